"""An outcome as each wire carries it: a REST body, an MCP tool result, a model's ``tool`` message.

The executor's :class:`~steward.Outcome` is the one answer; these render it and decide nothing.
What a model reads about a refusal is one sentence whichever way it asked (MCP or a
conversation turn), so a declined call reads as final everywhere.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from steward._codes import Code, http_status
from steward._mcp.protocol import META_OUTCOME
from steward._outcome import Outcome, Status

_encode = msgspec.json.Encoder().encode


class ErrorBody(msgspec.Struct, omit_defaults=True):
    """The standard ``error`` object: ``{"code", "message"[, "details"]}``."""

    code: str
    message: str
    details: dict[str, Any] | None = None


class _RefusedOutcome(Outcome, kw_only=True):
    """A refused or failed outcome also carries the standard ``error`` object."""

    error: ErrorBody


def rest_body(outcome: Outcome) -> tuple[int, bytes]:
    """ok 200, pending 202, denied 200 (a normal answer); refusals and failures by their code."""
    if outcome.status in (Status.REJECTED, Status.FAILED):
        code = outcome.code or Code.INTERNAL_ERROR
        refused = _RefusedOutcome(**msgspec.structs.asdict(outcome), error=error_of(outcome))
        return http_status(code), _encode(refused)
    return (202 if outcome.status is Status.PENDING else 200), _encode(outcome)


def error_of(outcome: Outcome) -> ErrorBody:
    return ErrorBody(outcome.code or Code.INTERNAL_ERROR, outcome.message or "", outcome.details)


def for_model(outcome: Outcome) -> str:
    """Why a call did not run, as the model that proposed it reads it."""
    if outcome.code == Code.CONFIRMATION_DENIED:
        return f"Declined: the person said no, so {outcome.capability} did not run. Do not retry it unasked."
    if outcome.code == Code.CONFIRMATION_EXPIRED:
        return (
            f"Expired: the person did not answer in time, so {outcome.capability} did not run. "
            "Do not retry it unless asked."
        )
    return f"{outcome.code}: {outcome.message}"


def mcp_result(outcome: Outcome) -> dict[str, Any]:
    """An outcome as ``CallToolResult``: the validated result as structured content when it ran.

    Refusals and failures are tool results with ``isError`` (the model can read them and
    adjust); a name that does not exist is a protocol error, raised by the MCP server itself.
    """
    if outcome.status is Status.OK:
        encoded = _encode(outcome.result)
        return {
            "content": [{"type": "text", "text": encoded.decode()}],
            "structuredContent": msgspec.json.decode(encoded),
            "isError": False,
        }
    return mcp_error(for_model(outcome), outcome)


def mcp_error(text: str, outcome: Outcome, **facts: Any) -> dict[str, Any]:
    meta = {"status": outcome.status, "code": outcome.code, "stage": outcome.stage, **facts}
    return {
        "content": [{"type": "text", "text": text}],
        "isError": True,
        "_meta": {META_OUTCOME: {key: value for key, value in meta.items() if value is not None}},
    }


def model_message(call_id: str, outcome: Outcome) -> dict[str, Any]:
    """The outcome as a conversation's model sees it: data, marked untrusted, in a ``tool`` message only."""
    body: dict[str, Any] = {"untrusted": True, "capability": outcome.capability, "status": outcome.status}
    if outcome.status is Status.OK:
        body["result"] = msgspec.to_builtins(outcome.result)
    elif outcome.code in (Code.CONFIRMATION_DENIED, Code.CONFIRMATION_EXPIRED):
        body["message"] = for_model(outcome)
    else:
        body["code"] = outcome.code
        body["message"] = outcome.message
    return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(body, ensure_ascii=False)}
