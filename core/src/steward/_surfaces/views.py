"""A capability as each wire shows it: REST JSON, an MCP tool, an OpenAI tool.

Every view reads the same declaration, so a name, a description and a schema never differ
between surfaces. Tool annotations are read off the capability's classification, never off its
prose, so a client that trusts ``readOnlyHint`` trusts something the executor enforces.
"""

from __future__ import annotations

import re
from typing import Any

from steward._capability import Capability
from steward._model import tool_name
from steward._registry import Registered, Registry

_SENTENCE = re.compile(r"(.+?[.!?])(\s|$)", re.DOTALL)


def rest_capabilities(registry: Registry) -> list[dict[str, Any]]:
    """``GET /api/v1/capabilities``: one entry per name. A name a plugin declares with other schemas
    for some surfaces (web.fetch for the fetch service) is still one capability, and those forms
    are its ``variants``."""
    described = []
    for main, *others in registry.declarations():
        entry = rest_capability(main)
        entry["surfaces"] = sorted(set().union(*(item.capability.surfaces for item in (main, *others))))
        entry["variants"] = [_variant(other) for other in others]
        described.append(entry)
    return described


def rest_capability(entry: Registered) -> dict[str, Any]:
    capability = entry.capability
    return {
        "name": capability.name,
        "version": capability.version,
        "title": capability.title or capability.name,
        "description": capability.description,
        "plugin": entry.plugin,
        "classification": capability.classification,
        "policy_key": capability.policy_key,
        "surfaces": sorted(capability.surfaces),
        **_form(entry),
    }


def _variant(entry: Registered) -> dict[str, Any]:
    return {"surfaces": sorted(entry.capability.surfaces), "description": entry.capability.description, **_form(entry)}


def _form(entry: Registered) -> dict[str, Any]:
    bounds = entry.capability.bounds
    return {
        "bounds": {
            "timeout_seconds": bounds.timeout_seconds,
            "max_result_bytes": bounds.max_result_bytes,
            "max_invocations_per_turn": bounds.max_invocations_per_turn,
        },
        "arguments_schema": entry.arguments_schema,
        "result_schema": entry.result_schema,
    }


def mcp_tool(entry: Registered, disabled_by: str | None = None) -> dict[str, Any]:
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
        "annotations": mcp_annotations(capability),
    }


def mcp_annotations(capability: Capability) -> dict[str, Any]:
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


def openai_tool(entry: Registered) -> dict[str, Any]:
    """A capability as an OpenAI ``tools`` item, for the conversation's model."""
    return {
        "type": "function",
        "function": {
            "name": tool_name(entry.capability.name),
            "description": entry.capability.description,
            "parameters": object_at_root(entry.arguments_schema),
        },
    }


def title_of(capability: Capability) -> str:
    """The description's first sentence, without its full stop: what a client shows as the tool's name."""
    match = _SENTENCE.match(capability.description.strip())
    sentence = match.group(1) if match else capability.description.strip()
    return sentence.rstrip(".").strip()


def object_at_root(schema: dict[str, Any]) -> dict[str, Any]:
    """msgspec's ``{"$ref": …, "$defs": …}`` with the referenced object inlined at the root.

    Tool schemas must be an object at the top (OpenAI tools, MCP's ``inputSchema`` and
    ``outputSchema``), and some servers cannot follow a top-level ``$ref``.
    """
    schema = dict(schema)
    definitions = dict(schema.pop("$defs", {}))
    reference = schema.pop("$ref", None)
    if reference is not None:
        schema = {**definitions.pop(reference.rsplit("/", 1)[-1]), **schema}
    if definitions:
        schema["$defs"] = definitions
    schema.pop("title", None)
    return schema
