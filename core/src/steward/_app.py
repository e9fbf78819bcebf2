"""The HTTP app: every surface's routes behind one gate, and one error shape.

Every endpoint but ``/healthz`` and the console's page authenticates through the
:class:`~steward._surfaces.gate.CallerGate` (the ``authenticate`` hook, then the key store) and
checks a scope. Every error, including unknown routes, bad JSON and oversized bodies, is JSON
of one shape, ``{"error": {"code": …, "message": …}}``, and no exception escapes as a bare 500
page. The routes themselves live with their surface: :mod:`steward._surfaces.rest`,
:mod:`steward._mcp.http`, :mod:`steward._surfaces.console`.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import re
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from steward._auth import KeysUnavailable
from steward._bodies import ApiError
from steward._codes import Code
from steward._health import LoadError
from steward._host import Host
from steward._plugins import call_each, describe
from steward._state import StateUnavailable
from steward._surfaces.gate import CallerGate
from steward._surfaces.rest import INVOKE_ROUTE, rest_routes
from steward.web import error_response, host_of

log = logging.getLogger("steward.app")


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    code = {404: Code.NOT_FOUND, 405: Code.METHOD_NOT_ALLOWED, 413: Code.PAYLOAD_TOO_LARGE}.get(
        error.status_code, Code.INVALID_REQUEST
    )
    message = "no such endpoint" if error.status_code == 404 else str(error.detail)
    response = error_response(code, message, error.status_code)
    if error.status_code == 405:
        response.headers["Allow"] = ", ".join(_allowed_methods(request))
    return response


def _allowed_methods(request: Request) -> list[str]:
    """Every method of every route on this path: Starlette's own 405 names only the first route's."""
    methods: set[str] = set()
    for route in request.app.routes:
        if isinstance(route, Route) and route.methods and route.path_regex.match(request.url.path):
            methods |= route.methods
    return sorted(methods)


async def _api_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, ApiError)
    return error_response(error.code, error.message, error.status)


async def _keys_unavailable(request: Request, error: Exception) -> Response:
    return error_response(Code.KEYS_UNAVAILABLE, f"no key can be checked right now: {error}")


async def _state_unavailable(request: Request, error: Exception) -> Response:
    return error_response(Code.STATE_UNAVAILABLE, str(error))


async def _unexpected(request: Request, error: Exception) -> Response:
    fault = await host_of(request).state_fault()
    if fault is not None:
        return error_response(Code.STATE_UNAVAILABLE, str(fault))
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return error_response(Code.INTERNAL_ERROR, "internal error; the server log has details")


EXCEPTION_HANDLERS = {
    HTTPException: _http_error,
    ApiError: _api_error,
    KeysUnavailable: _keys_unavailable,
    StateUnavailable: _state_unavailable,
    Exception: _unexpected,
}
INVOKE_PATH = re.compile(r"/api/v1/capabilities/([^/]+)/invoke")


class _CountRequests:
    """Counts responses by endpoint name (never by raw path: paths carry caller text), and sends a
    ``POST`` to the invoke route or to ``/mcp`` straight to its endpoint.

    They are the busiest routes by far; Starlette's router and exception middleware in front of
    the invoke route were a fifth of what Steward added to a request (``bench/http_throughput.py``),
    and ``/mcp`` sits behind every REST route in the router. Their errors are rendered by the same
    handlers as every other route's.
    """

    def __init__(self, app: ASGIApp, host: Host, invoke: ASGIApp, mcp: ASGIApp | None) -> None:
        self.app, self.host, self.invoke, self.mcp = app, host, invoke, mcp

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        status = 500

        async def record_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        posted = scope["method"] == "POST"
        invoking = INVOKE_PATH.fullmatch(scope["path"]) if posted else None
        try:
            if invoking is not None:
                scope["path_params"], scope["endpoint"] = {"name": invoking[1]}, self.invoke
                await self._direct(self.invoke, scope, receive, record_status)
            elif posted and self.mcp is not None and scope["path"] == "/mcp":
                scope["path_params"], scope["endpoint"] = {}, self.mcp
                await self._direct(self.mcp, scope, receive, record_status)
            else:
                await self.app(scope, receive, record_status)
        finally:
            endpoint = scope.get("endpoint")
            route = getattr(endpoint, "__name__", "unmatched")
            self.host.metrics.requests.count(route, status)

    async def _direct(self, endpoint: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await endpoint(scope, receive, send)
        except Exception as error:  # noqa: BLE001 - rendered by the handlers, the last of which is for any Exception
            handler = next(EXCEPTION_HANDLERS[kind] for kind in type(error).__mro__ if kind in EXCEPTION_HANDLERS)
            response = await handler(Request(scope, receive), error)
            await response(scope, receive, send)


def create_app(host: Host) -> Starlette:
    """The ASGI app for ``host``: core routes, then every plugin's ``register_routes``."""
    gate = CallerGate(host)
    routes = rest_routes(host, gate)
    for plugin, declared in call_each(host.manager, "register_routes", config=host.config):
        if isinstance(declared, Exception):
            host.load_errors.append(LoadError(plugin=plugin, message=f"register_routes raised {describe(declared)}"))
        elif declared:
            routes.extend(declared)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await _call_lifecycle(host, "startup", app)
        try:
            yield
        finally:
            await _call_lifecycle(host, "shutdown", app)
            await host.model.aclose()
            await host.close_resources()
            if host.shared is not None:
                await host.shared.aclose()
            host.audit.flush()

    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers=EXCEPTION_HANDLERS)
    app.state.host = host
    app.state.gate = gate
    invoke = next(route.endpoint for route in routes if getattr(route, "path", None) == INVOKE_ROUTE)
    mcp = next((route.endpoint for route in routes if getattr(route, "path", None) == "/mcp"), None)
    app.add_middleware(_CountRequests, host=host, invoke=invoke, mcp=mcp)
    return app


async def _call_lifecycle(host: Host, hook: str, app: Starlette) -> None:
    for plugin, result in call_each(host.manager, hook, app=app):
        try:
            if isinstance(result, Exception):
                raise result
            if inspect.isawaitable(result):
                await result
        except Exception as error:  # noqa: BLE001 - one plugin's failure must not stop the others
            log.error("plugin %s: %s hook failed: %s", plugin, hook, describe(error))
