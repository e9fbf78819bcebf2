"""Asking the person through an MCP client: the approval form, its answer, and the refusal for a
client that cannot ask.

The question is :func:`~steward._surfaces.prompts.confirmation_prompt`, the same text the CLI and
the console show; only the form around it is MCP's.
"""

from __future__ import annotations

from typing import Any

from steward._codes import Code
from steward._outcome import Outcome, PendingConfirmation
from steward._surfaces.outcomes import mcp_error
from steward._surfaces.prompts import confirmation_prompt

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
    params: dict[str, Any] = {
        "message": confirmation_prompt(pending, outcome.classification),
        "requestedSchema": APPROVAL_SCHEMA,
    }
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
        f"{confirmation_prompt(pending, outcome.classification)}"
    )
    return mcp_error(
        text,
        outcome,
        code=Code.CONFIRMATION_REQUIRED,
        confirmation=reference,
        console=console,
        expires_in_seconds=pending.expires_in_seconds,
    )
