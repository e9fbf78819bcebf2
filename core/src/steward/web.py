"""What a plugin's routes are written with: the caller, the body, the answer, the invocation.

A route a plugin registers (``register_routes``) answers in Steward's error shape and reaches the
host through these, never through the host's own objects: the caller through the same
:class:`~steward._surfaces.gate.CallerGate` the core's routes use, a capability through the same
executor, admission cap and audit as ``/api/v1/capabilities/{name}/invoke``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from steward._auth import Principal
from steward._bodies import ApiError, decode_body, receive_body
from steward._capability import Surface
from steward._codes import Code, http_status
from steward._openapi import openapi_operation
from steward._outcome import Outcome
from steward._policy import Policy
from steward._state import StateStore
from steward._surfaces.gate import CallerGate

if TYPE_CHECKING:
    from steward._host import Host

T = TypeVar("T")
Endpoint = Callable[[Request], Awaitable[Response]]
_encode = msgspec.json.Encoder().encode


def json_response(value: Any, status: int = 200) -> Response:
    """``value`` (structs included) encoded once by msgspec, for a route's answer."""
    return Response(_encode(value), status_code=status, media_type="application/json")


def error_response(code: str, message: str, status: int | None = None) -> Response:
    return json_response({"error": {"code": code, "message": message}}, status or http_status(code))


def host_of(request: Request) -> Host:
    return request.app.state.host


def gate_of(request: Request) -> CallerGate:
    return request.app.state.gate


async def read_body(request: Request) -> bytes:
    """The request body (read once), refused with 413 as soon as it passes ``server.max_body_bytes``."""
    return await receive_body(request.scope, request.receive, host_of(request).config.server.max_body_bytes)


async def read_json(request: Request, body_type: type[T]) -> T:
    """Decode the body into ``body_type`` once, here at the edge; the message names the field."""
    return decode_body(await read_body(request), functools.partial(msgspec.json.decode, type=body_type))


async def invoke_capability(
    request: Request, name: str, arguments: bytes | Mapping[str, Any], *, surface: str = Surface.SERVICE
) -> Outcome:
    """Run ``name`` for the caller of ``request`` (an endpoint behind :func:`require_scope`).

    For plugin routes that offer a capability under a wire format of their own, as the fetch
    service does: the six stages, the household's policy, pre-approval and the audit log apply
    exactly as on the invoke endpoint. ``arguments`` are validated here, at stage 2. A client
    that disconnects while it runs stops it (the work in isolated workers included), audited as
    ``CALLER_GONE``: nobody is left to read the answer. It holds one of the host's invocation
    slots while it runs (``429 BUSY`` when none is free). Call it after the body has been read.
    """
    with gate_of(request).admitted():
        invocation = asyncio.ensure_future(
            host_of(request).executor.invoke(name, arguments, caller=request.state.principal, surface=surface)
        )
        gone = asyncio.ensure_future(_disconnected(request))
        try:
            await asyncio.wait({invocation, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
        if not invocation.done():
            invocation.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await invocation
            raise ApiError(Code.CALLER_GONE, "the caller went away")
        return invocation.result()


async def _disconnected(request: Request) -> None:
    while (await request.receive())["type"] != "http.disconnect":
        pass


def plugin_state(request: Request, plugin: str) -> StateStore:
    """Plugin ``plugin``'s key space in the host's shared store, for its routes (handlers have ``context.state``)."""
    return host_of(request).state_store(plugin)


def policy_of(request: Request) -> Policy:
    """The household's policy flags, for a plugin's routes (a console page that shows or sets its own switch).

    ``await policy.enabled(name)`` reads one flag, ``await policy.current()`` all of them, and
    ``policy.set(name, value)`` writes one where the host keeps them (files, or the shared Redis).
    """
    return host_of(request).policy


async def authenticate(request: Request, *scopes: str) -> Principal:
    """The caller of ``request``, who must hold one of ``scopes`` (any valid key when none are named).

    Raises :class:`ApiError`: 401 without a valid key, 403 without the scope (and 503
    ``KEYS_UNAVAILABLE`` or ``STATE_UNAVAILABLE`` while keys cannot be checked). The caller is also kept as
    ``request.state.principal``. For route authors whose endpoint cannot be wrapped in
    :func:`require_scope` (a route that answers refusals in a wire format of its own).
    """
    principal = await gate_of(request).caller(request, *scopes)
    request.state.principal = principal
    return principal


def require_scope(*scopes: str) -> Callable[[Endpoint], Endpoint]:
    """Protect an endpoint: 401 without a valid key, 403 unless the key holds one of ``scopes``.

    With no scopes, any valid key passes. The caller is then ``request.state.principal``.
    """

    def decorate(endpoint: Endpoint) -> Endpoint:
        @functools.wraps(endpoint)
        async def guarded(request: Request) -> Response:
            await authenticate(request, *scopes)
            return await endpoint(request)

        return guarded

    return decorate


__all__ = [
    "ApiError",
    "authenticate",
    "invoke_capability",
    "json_response",
    "openapi_operation",
    "plugin_state",
    "policy_of",
    "read_body",
    "read_json",
    "require_scope",
]
