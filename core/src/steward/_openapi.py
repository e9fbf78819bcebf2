"""The OpenAPI document of the whole HTTP surface, built from the routes that are really mounted.

Every route is listed with its methods and its endpoint's docstring; a route that declares its
request body and error shape with :func:`openapi_operation` (the core's own do) is described
with them, and every ``POST`` requires a JSON body. Each capability's argument and result
schemas are components, so a client generator sees exactly what the executor accepts. The
document is checked against the running server by schemathesis in the test suite.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec
from starlette.routing import BaseRoute, Route

from steward._capability import EVERY_SURFACE
from steward._registry import Registered
from steward._version import __version__

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

INVOKE_BODY = {
    "description": 'Exactly one of "arguments" (run it) or "confirmation" (a person\'s answer).',
    "oneOf": [
        {
            "type": "object",
            "additionalProperties": False,
            "required": ["arguments"],
            "properties": {
                "arguments": {"type": "object", "description": "the capability's arguments (see its schema)"},
                "version": {"type": "integer"},
            },
        },
        {
            "type": "object",
            "additionalProperties": False,
            "required": ["confirmation"],
            "properties": {
                "confirmation": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["token", "approve"],
                    "properties": {"token": {"type": "string"}, "approve": {"type": "boolean"}},
                }
            },
        },
    ],
}


E = TypeVar("E", bound=Callable[..., Any])


@dataclass(frozen=True)
class _Operation:
    body: Any = None
    error: Any = None
    responses: dict[str, Any] | None = None


def openapi_operation(
    *, body: Any = None, error: Any = None, responses: dict[str, Any] | None = None
) -> Callable[[E], E]:
    """Describe a route's endpoint in the OpenAPI document (apply it under ``require_scope``).

    ``body`` is the type its JSON body decodes into (a ``msgspec.Struct``, ``dict[str, bool]`` …),
    ``error`` the type of its error answers when they are not Steward's standard shape (the
    Firecrawl routes answer in Firecrawl's), ``responses`` extra OpenAPI responses by status.
    """

    def describe(endpoint: E) -> E:
        endpoint.__steward_openapi__ = _Operation(body, error, responses)  # type: ignore[attr-defined]
        return endpoint

    return describe


def _schema_of(kind: Any, name: str, schemas: dict[str, Any]) -> dict[str, Any]:
    """A type's JSON Schema as a component (with its definitions), and a reference to it."""
    schemas.update(_namespaced(msgspec.json.schema(kind), name))
    return {"$ref": f"#/components/schemas/{name}"}


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
        if not isinstance(route, Route) or not route.include_in_schema:
            continue
        described: _Operation = getattr(route.endpoint, "__steward_openapi__", None) or _Operation()
        for method in sorted((route.methods or set()) - {"HEAD"}):
            name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{method}{route.path}").strip("_")
            error = _schema_of(described.error, f"{name}.error", schemas) if described.error is not None else ERROR
            operation: dict[str, Any] = {
                "summary": (route.endpoint.__doc__ or route.name or "").strip().split("\n")[0],
                "responses": {"default": _json(error, "an error"), "200": _json({"type": "object"}, "success")},
            }
            if route.path != "/healthz":
                operation["security"] = [{"bearer": []}]
            if route.param_convertors:
                operation["parameters"] = [
                    {"name": parameter, "in": "path", "required": True, "schema": {"type": "string"}}
                    for parameter in route.param_convertors
                ]
            if method == "POST":
                if isinstance(described.body, dict):
                    body = described.body
                elif described.body is not None:
                    body = _schema_of(described.body, f"{name}.body", schemas)
                else:
                    body = {"type": "object"}
                operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
            operation["responses"].update(described.responses or {})
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
