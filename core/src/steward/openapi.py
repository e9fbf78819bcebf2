"""The OpenAPI document of the whole HTTP surface, built from the routes that are really mounted.

Core routes are described in full; a plugin route is listed with its methods and its endpoint's
docstring. Each capability's argument and result schemas are components, so a client generator
sees exactly what the executor accepts.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from steward.capability import EVERY_SURFACE
from steward.registry import Registered
from steward.version import __version__

ERROR = {"$ref": "#/components/schemas/Error"}

_ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
        }
    },
}

_INVOKE_BODY = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "arguments": {"type": "object", "description": "the capability's arguments (see its schema)"},
        "version": {"type": "integer"},
        "confirmation": {
            "type": "object",
            "additionalProperties": False,
            "required": ["token", "approve"],
            "properties": {"token": {"type": "string"}, "approve": {"type": "boolean"}},
        },
    },
    "description": 'Exactly one of "arguments" or "confirmation".',
}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _label(entry: Registered) -> str:
    """The capability's name, qualified by its surfaces when it is not offered everywhere."""
    capability = entry.capability
    if capability.surfaces == EVERY_SURFACE:
        return capability.name
    return f"{capability.name}[{','.join(sorted(capability.surfaces))}]"


def openapi_document(host: Any, routes: list[BaseRoute]) -> dict[str, Any]:
    schemas: dict[str, Any] = {"Error": _ERROR_SCHEMA}
    for entry in host.registry:
        for role, schema in (("arguments", entry.arguments_schema), ("result", entry.result_schema)):
            schemas.update(_namespaced(schema, f"{_label(entry)}.{role}"))
    paths: dict[str, Any] = {}
    for route in routes:
        if not isinstance(route, Route):
            continue
        for method in sorted((route.methods or set()) - {"HEAD"}):
            operation: dict[str, Any] = {
                "summary": (route.endpoint.__doc__ or route.name or "").strip().split("\n")[0],
                "responses": {"default": _json(ERROR, "an error")},
            }
            if route.path != "/healthz":
                operation["security"] = [{"bearer": []}]
            if route.path.endswith("/invoke"):
                operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": _INVOKE_BODY}}}
                operation["parameters"] = [
                    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
                ]
                operation["responses"].update(
                    {
                        "200": _json({"type": "object"}, "the outcome: ok, or denied/expired"),
                        "202": _json({"type": "object"}, "pending: a person must confirm (pending_confirmation)"),
                    }
                )
            else:
                operation["responses"]["200"] = _json({"type": "object"}, "success")
            paths.setdefault(route.path, {})[method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": "Steward", "version": __version__},
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


def _namespaced(schema: dict[str, Any], name: str) -> dict[str, Any]:
    """One capability's schema as components named ``<capability>.<role>`` and ``….<Def>``.

    Two plugins may both call a struct ``Empty``; prefixing keeps their definitions apart.
    """
    prefix = "#/components/schemas/" + name

    def rewrite(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                key: prefix + "." + item.removeprefix("#/$defs/") if key == "$ref" else rewrite(item)
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [rewrite(item) for item in value]
        return value

    body = {key: value for key, value in schema.items() if key != "$defs"}
    components = {name: rewrite(body)}
    for definition, value in schema.get("$defs", {}).items():
        components[f"{name}.{definition}"] = rewrite(value)
    return components
