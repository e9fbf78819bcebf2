"""The MCP wire vocabulary Steward speaks: protocol revisions, JSON-RPC errors, metadata keys.

Two eras of the protocol are served side by side. The *handshake* revisions (2025-03-26 through
2025-11-25) open with ``initialize`` and keep a session; the server asks the client for input
with its own JSON-RPC request. The *stateless* revision (2026-07-28) carries the protocol
version and the client's capabilities in every request's ``_meta``, and asks for input by
answering ``input_required`` so the client retries with the answers (MRTR).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
"""Revisions negotiated by ``initialize``, newest first."""
STATELESS_VERSIONS = ("2026-07-28",)
"""Revisions whose every request carries its version in ``_meta``, newest first."""
SUPPORTED_VERSIONS = STATELESS_VERSIONS + HANDSHAKE_VERSIONS

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"
META_OUTCOME = "dev.steward/outcome"
"""Where a tool result carries Steward's own outcome (status, code, stage) for programs."""

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
STEWARD_REFUSED = -32001
"""Implementation-defined: the request was refused before any MCP method ran (key, scope, state)."""
HEADER_MISMATCH = -32020
MISSING_CLIENT_CAPABILITY = -32021
UNSUPPORTED_VERSION = -32022


class RpcError(Exception):
    """A JSON-RPC error answer; ``http_status`` is what Streamable HTTP sends it with."""

    def __init__(self, code: int, message: str, data: Any = None, *, http_status: int = 200) -> None:
        super().__init__(message)
        self.code, self.message, self.data, self.http_status = code, message, data, http_status

    def body(self, request_id: Any) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return {"jsonrpc": "2.0", "id": request_id, "error": error}


def unsupported_version(requested: Any) -> RpcError:
    return RpcError(
        UNSUPPORTED_VERSION,
        "Unsupported protocol version",
        {"supported": list(SUPPORTED_VERSIONS), "requested": requested},
        http_status=400,
    )


def negotiate_handshake(requested: Any) -> str:
    """The revision ``initialize`` answers with: the client's if served, else the newest handshake one."""
    return requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[0]


def names_elicitation_mode(version: str) -> bool:
    """Whether an elicitation request carries ``mode`` (form or URL), new in 2025-11-25."""
    return version == "2025-11-25" or version in STATELESS_VERSIONS


def elicitation_modes(capabilities: Any) -> frozenset[str]:
    """Which elicitation modes a client declared: an empty ``elicitation`` object means form only.

    ``capabilities`` is whatever the client sent; anything but an object declares nothing.
    """
    if not isinstance(capabilities, Mapping):
        return frozenset()
    declared = capabilities.get("elicitation")
    if not isinstance(declared, Mapping):
        return frozenset()
    modes = frozenset(mode for mode in ("form", "url") if isinstance(declared.get(mode), Mapping))
    return modes or frozenset({"form"})


def valid_request_id(request_id: Any) -> bool:
    """MCP's request ids are strings or integers; ``null``, objects, arrays, fractions and booleans are not."""
    return isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool))


def reply_result(message: Mapping[str, Any]) -> Any:
    """What a client's response to our request says: its ``result``, or ``None`` (a no) for an
    error, and for a response that carries both, which JSON-RPC forbids and nobody may read as yes."""
    if "error" in message or "result" not in message:
        return None
    return message["result"]


def request_meta(message: Mapping[str, Any]) -> Mapping[str, Any]:
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    return meta if isinstance(meta, Mapping) else {}
