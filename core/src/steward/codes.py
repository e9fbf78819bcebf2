"""Every stable outcome code, with the HTTP status it maps to.

Codes are part of the wire contract: clients branch on them, so a code is never renamed. Plugins
may raise codes of their own (``CapabilityError("QUOTA_SPENT", …)``); those map to 502 unless
they are listed here.
"""

from __future__ import annotations

import enum
import re

CODE_PATTERN = re.compile(r"^[A-Z][A-Z0-9_]{2,63}$")


class Code(enum.StrEnum):
    # stage 1: resolve
    CAPABILITY_NOT_FOUND = "CAPABILITY_NOT_FOUND"
    # stage 2: validate
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
    # stage 3: policy
    CAPABILITY_DISABLED = "CAPABILITY_DISABLED"
    CAPABILITY_NOT_CONFIGURED = "CAPABILITY_NOT_CONFIGURED"
    ENTITY_NOT_ALLOWLISTED = "ENTITY_NOT_ALLOWLISTED"
    INVOCATION_LIMIT_EXCEEDED = "INVOCATION_LIMIT_EXCEEDED"
    # stage 4: confirm
    CONFIRMATION_DENIED = "CONFIRMATION_DENIED"
    CONFIRMATION_EXPIRED = "CONFIRMATION_EXPIRED"
    INVALID_CONFIRMATION = "INVALID_CONFIRMATION"
    # stage 5: execute
    TIMEOUT = "TIMEOUT"
    EXECUTION_FAILED = "EXECUTION_FAILED"
    UPSTREAM_UNAVAILABLE = "UPSTREAM_UNAVAILABLE"
    FETCH_TARGET_REJECTED = "FETCH_TARGET_REJECTED"
    UNSUPPORTED_CONTENT_TYPE = "UNSUPPORTED_CONTENT_TYPE"
    # stage 6: result
    INVALID_RESULT = "INVALID_RESULT"
    RESULT_TOO_LARGE = "RESULT_TOO_LARGE"
    # the HTTP surface itself
    INVALID_REQUEST = "INVALID_REQUEST"
    UNAUTHORIZED = "UNAUTHORIZED"
    FORBIDDEN = "FORBIDDEN"
    NOT_FOUND = "NOT_FOUND"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    BUSY = "BUSY"
    MODEL_UNAVAILABLE = "MODEL_UNAVAILABLE"
    INTERNAL_ERROR = "INTERNAL_ERROR"


_STATUS: dict[str, int] = {
    Code.CAPABILITY_NOT_FOUND: 404,
    Code.INVALID_ARGUMENTS: 400,
    Code.CAPABILITY_DISABLED: 403,
    Code.CAPABILITY_NOT_CONFIGURED: 409,
    Code.ENTITY_NOT_ALLOWLISTED: 403,
    Code.INVOCATION_LIMIT_EXCEEDED: 429,
    Code.CONFIRMATION_DENIED: 200,
    Code.CONFIRMATION_EXPIRED: 200,
    Code.INVALID_CONFIRMATION: 400,
    Code.TIMEOUT: 504,
    Code.EXECUTION_FAILED: 502,
    Code.UPSTREAM_UNAVAILABLE: 503,
    Code.FETCH_TARGET_REJECTED: 403,
    Code.UNSUPPORTED_CONTENT_TYPE: 415,
    Code.INVALID_RESULT: 502,
    Code.RESULT_TOO_LARGE: 502,
    Code.INVALID_REQUEST: 400,
    Code.UNAUTHORIZED: 401,
    Code.FORBIDDEN: 403,
    Code.NOT_FOUND: 404,
    Code.METHOD_NOT_ALLOWED: 405,
    Code.PAYLOAD_TOO_LARGE: 413,
    Code.BUSY: 429,
    Code.MODEL_UNAVAILABLE: 503,
    Code.INTERNAL_ERROR: 500,
}


def http_status(code: str) -> int:
    """The HTTP status for ``code``; a plugin's own failure codes are upstream failures (502)."""
    return _STATUS.get(code, 502)
