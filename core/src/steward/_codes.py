"""Outcome codes: every code has one home, where it is declared with its HTTP status.

Codes are part of the wire contract: clients branch on them, so a code is never renamed. Core's
codes are :class:`Code`; a plugin declares its own the same way, as a subclass of
:class:`OutcomeCode` returned from the ``register_outcome_codes`` hook::

    class QuoteCode(steward.OutcomeCode):
        QUOTA_SPENT = "QUOTA_SPENT", 429, "The quote service's daily quota is spent."

A member is a ``str``, so it goes wherever a code goes (``CapabilityError(QuoteCode.QUOTA_SPENT,
…)``, comparisons with ``outcome.code``); the host learns the status once, and every route answers
with it. A code nobody declared still works, as an upstream failure (502), and is logged.
"""

from __future__ import annotations

import enum
import logging
import re

log = logging.getLogger("steward.codes")

CODE_PATTERN = re.compile(r"^[A-Z][A-Z0-9_]{2,63}$")


class OutcomeCode(enum.StrEnum):
    """The base of a family of codes: each member is ``NAME = "NAME", status, "description"``."""

    status: int
    description: str

    def __new__(cls, value: str, status: int, description: str = "") -> OutcomeCode:
        if not isinstance(value, str) or not CODE_PATTERN.match(value):
            raise ValueError(f"outcome code {value!r} must be UPPER_SNAKE_CASE, 3 to 64 characters")
        if isinstance(status, bool) or not isinstance(status, int) or not 200 <= status <= 599:
            raise ValueError(f"outcome code {value}: status {status!r} must be an HTTP status from 200 to 599")
        member = str.__new__(cls, value)
        member._value_ = value
        member.status = status
        member.description = description
        return member


class Code(OutcomeCode):
    """Core's codes, by the stage that answers them."""

    # stage 1: resolve
    CAPABILITY_NOT_FOUND = "CAPABILITY_NOT_FOUND", 404, "No capability of that name (or version) is offered here."
    # stage 2: validate
    INVALID_ARGUMENTS = (
        "INVALID_ARGUMENTS",
        400,
        "What it was asked to do does not fit what it takes (the arguments do not match its schema).",
    )
    # stage 3: policy
    CAPABILITY_DISABLED = "CAPABILITY_DISABLED", 403, "The household switched it off (its policy flag is off)."
    CAPABILITY_NOT_CONFIGURED = "CAPABILITY_NOT_CONFIGURED", 409, "It needs settings nobody has made yet."
    ENTITY_NOT_ALLOWLISTED = "ENTITY_NOT_ALLOWLISTED", 403, "The entity is not on the household's allowlist."
    INVOCATION_LIMIT_EXCEEDED = "INVOCATION_LIMIT_EXCEEDED", 429, "The turn used up the capability's invocations."
    # stage 4: confirm
    CONFIRMATION_DENIED = (
        "CONFIRMATION_DENIED",
        200,
        "The person said no, so it did not run (a normal answer, not an error).",
    )
    CONFIRMATION_EXPIRED = "CONFIRMATION_EXPIRED", 200, "The person did not answer in time; nothing ran."
    CONFIRMATION_WITHDRAWN = (
        "CONFIRMATION_WITHDRAWN",
        200,
        "The asker took its request back before anyone answered; nothing ran.",
    )
    CONFIRMATION_REQUIRED = (
        "CONFIRMATION_REQUIRED",
        202,
        "It waits for a person's yes that this client cannot ask for; nothing ran (MCP without elicitation).",
    )
    INVALID_CONFIRMATION = "INVALID_CONFIRMATION", 400, "Unknown, spent or foreign confirmation token."
    TOO_MANY_PENDING = "TOO_MANY_PENDING", 429, "Too many confirmations are waiting for an answer."
    # stage 5: execute
    TIMEOUT = "TIMEOUT", 504, "It took longer than it may (bounds.timeout_seconds) and was stopped."
    EXECUTION_FAILED = "EXECUTION_FAILED", 502, "It broke while running; the server log says why."
    CALLER_GONE = "CALLER_GONE", 499, "The caller went away before the answer, so the work was stopped."
    UPSTREAM_UNAVAILABLE = "UPSTREAM_UNAVAILABLE", 503, "A service it needs did not answer."
    FETCH_TARGET_REJECTED = (
        "FETCH_TARGET_REJECTED",
        403,
        "Steward does not go to that address: it is private, local or on a port it does not use (the fetch guard).",
    )
    UNSUPPORTED_CONTENT_TYPE = "UNSUPPORTED_CONTENT_TYPE", 415, "The page is of a kind Steward does not read."
    AUDIT_UNAVAILABLE = "AUDIT_UNAVAILABLE", 503, "The audit log cannot be written, so nothing that changes runs."
    # stage 6: result
    INVALID_RESULT = "INVALID_RESULT", 502, "The handler's result does not match its declared schema."
    RESULT_TOO_LARGE = "RESULT_TOO_LARGE", 502, "The encoded result is above bounds.max_result_bytes."
    # the HTTP surface itself
    INVALID_REQUEST = "INVALID_REQUEST", 400, "The request body is not what the endpoint takes."
    POLICY_FILE_CORRUPT = "POLICY_FILE_CORRUPT", 409, "A policy file cannot be read; fix or remove it."
    UNAUTHORIZED = "UNAUTHORIZED", 401, "No key, or a key that is not known."
    FORBIDDEN = "FORBIDDEN", 403, "The key lacks the scope the endpoint needs."
    NOT_FOUND = "NOT_FOUND", 404, "No such endpoint or item."
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED", 405, "The endpoint does not take that method."
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE", 413, "The request body is above the limit."
    BUSY = "BUSY", 429, "Too many requests at once; retry after the time given."
    MODEL_UNAVAILABLE = "MODEL_UNAVAILABLE", 503, "The language model did not answer."
    KEYS_UNAVAILABLE = "KEYS_UNAVAILABLE", 503, "The key file cannot be read, so no key is trusted."
    STATE_UNAVAILABLE = "STATE_UNAVAILABLE", 503, "The shared state store (Redis) cannot be reached; nothing ran."
    SETTINGS_NOT_SAVED = "SETTINGS_NOT_SAVED", 503, "The settings could not be written; nothing changed."
    INTERNAL_ERROR = "INTERNAL_ERROR", 500, "A bug in Steward; the server log has the traceback."


_DECLARED: dict[str, OutcomeCode] = {member.value: member for member in Code}
_UNDECLARED_SEEN: set[str] = set()


def declare(family: type[OutcomeCode]) -> list[str]:
    """Learn ``family``'s codes; what is wrong with it (a clash, a misnamed member), one line each.

    Codes form one namespace on the wire, so a code a plugin declares must be new, or the very
    member another declaration already holds (a host built twice in one process).
    """
    if not (isinstance(family, type) and issubclass(family, OutcomeCode)):
        return [f"{family!r} is not a steward.OutcomeCode subclass"]
    problems = []
    for member in family:
        held = _DECLARED.get(member.value)
        if member.name != member.value:
            problems.append(f"{family.__name__}.{member.name} must be spelt as its value {member.value!r}")
        elif held is not None and held is not member:
            problems.append(
                f"{member.value} is already declared by {type(held).__name__} (status {held.status});"
                " reuse that code or pick another name"
            )
    if not problems:
        _DECLARED.update((member.value, member) for member in family)
    return problems


def declared(code: str) -> OutcomeCode | None:
    """The declaration of ``code``, if any host in this process has learnt it."""
    if isinstance(code, OutcomeCode):
        return code
    return _DECLARED.get(code)


def http_status(code: str) -> int:
    """The HTTP status ``code`` answers with; an undeclared code is an upstream failure (502)."""
    declaration = declared(code)
    if declaration is not None:
        return declaration.status
    if code not in _UNDECLARED_SEEN:
        _UNDECLARED_SEEN.add(code)
        log.warning("outcome code %s was never declared (register_outcome_codes); answering 502", code)
    return 502
