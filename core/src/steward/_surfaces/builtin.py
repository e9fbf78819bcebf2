"""Steward's own surfaces beyond the REST API, registered through the hooks any plugin uses.

As datasette ships its default plugins and llm its ``default_plugins``, the household console,
MCP over HTTP and conversation turns are added by :data:`BUILTIN`, registered before the
installed plugins under the name ``steward``: the app factory itself knows only the REST API.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from steward._mcp.http import McpEndpoint
from steward._surfaces.console import console_routes
from steward._surfaces.conversation import conversation_message
from steward.hookspecs import hookimpl


class _BuiltForItsApp:
    """An endpoint that needs the host, built on its first request from the app that serves it
    (``register_routes`` is given the configuration only, as a third party's hook is)."""

    def __init__(self, name: str, build: Callable[[Any, Any], ASGIApp]) -> None:
        self.__name__ = name
        self._build = build
        self._endpoint: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._endpoint is None:
            state = scope["app"].state
            self._endpoint = self._build(state.host, state.gate)
        await self._endpoint(scope, receive, send)


class Builtin:
    @hookimpl(tryfirst=True)
    def register_routes(self) -> list[BaseRoute]:
        """MCP first: after the REST API, the router tries it before any other plugin's route.

        MCP's wire format is the MCP specification's, not this API's (docs/mcp.md).
        """
        return [
            Route(
                "/mcp", _BuiltForItsApp("mcp", McpEndpoint), methods=["GET", "POST", "DELETE"], include_in_schema=False
            ),
            Route("/api/v1/conversation/message", conversation_message, methods=["POST"]),
            *console_routes(),
        ]


BUILTIN = Builtin()
