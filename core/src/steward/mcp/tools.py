"""Capabilities as MCP tools, and outcomes as tool results.

A tool's annotations are read off the capability's classification, never off its prose, so a
client that trusts ``readOnlyHint`` trusts something the executor enforces. Refusals and failures
are tool results with ``isError`` (the model can read them and adjust), except a name that does
not exist, which is a protocol error as the specification asks.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from steward.capability import Capability
from steward.codes import Code
from steward.confirmation import readable_arguments
from steward.mcp.protocol import META_OUTCOME
from steward.model import object_at_root
from steward.outcome import Outcome, PendingConfirmation, Status
from steward.registry import Registered

_encode = msgspec.json.Encoder().encode
_SENTENCE = re.compile(r"(.+?[.!?])(\s|$)", re.DOTALL)


def tool_definition(entry: Registered, disabled_by: str | None = None) -> dict[str, Any]:
    """``tools/list``'s item for ``entry``; ``disabled_by`` names the policy flag that is off."""
    capability = entry.capability
    description = capability.description
    if disabled_by is not None:
        description += f" (Off: the household's policy flag {disabled_by} is off, so calls are refused.)"
    return {
        "name": capability.name,
        "title": title_of(capability),
        "description": description,
        "inputSchema": object_at_root(entry.arguments_schema),
        "outputSchema": object_at_root(entry.result_schema),
        "annotations": annotations(capability),
    }


def title_of(capability: Capability) -> str:
    """The description's first sentence, without its full stop: what a client shows as the tool's name."""
    match = _SENTENCE.match(capability.description.strip())
    sentence = match.group(1) if match else capability.description.strip()
    return sentence.rstrip(".").strip()


def annotations(capability: Capability) -> dict[str, Any]:
    read_only = capability.side_effect == "read_only"
    hints: dict[str, Any] = {
        "title": title_of(capability),
        "readOnlyHint": read_only,
        "destructiveHint": not read_only,
        "openWorldHint": capability.network == "external",
    }
    if capability.idempotent is not None:
        hints["idempotentHint"] = capability.idempotent
    return hints


def tool_result(outcome: Outcome) -> dict[str, Any]:
    """An outcome as ``CallToolResult``: the validated result as structured content when it ran."""
    if outcome.status is Status.OK:
        encoded = _encode(outcome.result)
        return {
            "content": [{"type": "text", "text": encoded.decode()}],
            "structuredContent": msgspec.json.decode(encoded),
            "isError": False,
        }
    return tool_error(_refusal_text(outcome), outcome)


def tool_error(text: str, outcome: Outcome, **facts: Any) -> dict[str, Any]:
    meta = {"status": outcome.status, "code": outcome.code, "stage": outcome.stage, **facts}
    return {
        "content": [{"type": "text", "text": text}],
        "isError": True,
        "_meta": {META_OUTCOME: {key: value for key, value in meta.items() if value is not None}},
    }


def _refusal_text(outcome: Outcome) -> str:
    if outcome.status is Status.DENIED and outcome.code == Code.CONFIRMATION_DENIED:
        return f"Declined: the person said no, so {outcome.capability} did not run. Do not retry it unasked."
    return f"{outcome.code}: {outcome.message}"


def confirmation_prompt(pending: PendingConfirmation, outcome: Outcome) -> str:
    """What the person reads before saying yes: the capability, how it touches the world, the exact arguments."""
    classification = outcome.classification
    touches = []
    if classification is not None:
        touches.append("changes something" if classification.side_effect == "mutating" else "reads only")
        touches.append("leaves this device" if classification.network == "external" else "stays on this device")
    arguments = readable_arguments(pending.arguments)
    return (
        f"Allow {pending.capability} (version {pending.version}) to run? It {' and '.join(touches)}.\n"
        f"It would run exactly once with these arguments:\n{arguments}\n"
        f"This request expires in {pending.expires_in_seconds} s."
    )


APPROVAL_SCHEMA = {
    "type": "object",
    "properties": {
        "approve": {
            "type": "boolean",
            "title": "Run it",
            "description": "Tick to let it run once with exactly these arguments.",
            "default": False,
        }
    },
    "required": ["approve"],
}
"""The form a person fills in: one explicit yes, so accepting an untouched form is not a yes."""


def form_elicitation(pending: PendingConfirmation, outcome: Outcome, *, with_mode: bool) -> dict[str, Any]:
    params: dict[str, Any] = {"message": confirmation_prompt(pending, outcome), "requestedSchema": APPROVAL_SCHEMA}
    if with_mode:
        params = {"mode": "form", **params}
    return params


def approved(reply: Any) -> bool:
    """A person's yes: ``accept`` with ``approve: true``; decline, cancel, anything else is a no."""
    if not isinstance(reply, dict) or reply.get("action") != "accept":
        return False
    content = reply.get("content")
    return isinstance(content, dict) and content.get("approve") is True


def confirmation_required(
    pending: PendingConfirmation, outcome: Outcome, reference: str, console: str
) -> dict[str, Any]:
    """The tool error for a client that cannot ask the person itself: nothing ran, where to answer."""
    text = (
        f"CONFIRMATION_REQUIRED: {pending.capability} needs a person's yes before it runs, and this MCP client "
        f"cannot ask for one. Nothing ran. A person can approve pending confirmation {reference} in the "
        f"household console ({console}) within {pending.expires_in_seconds} s; it then runs there once.\n"
        f"{confirmation_prompt(pending, outcome)}"
    )
    return tool_error(
        text,
        outcome,
        code=Code.CONFIRMATION_REQUIRED,
        confirmation=reference,
        console=console,
        expires_in_seconds=pending.expires_in_seconds,
    )
