"""The HTTP surface: a thin Starlette layer that parses, calls the host, and renders.

Every endpoint but ``/healthz`` authenticates through the ``authenticate`` hook and checks a
scope. Every error, including unknown routes, bad JSON and oversized bodies, is JSON of one shape,
``{"error": {"code": …, "message": …}}``, and no exception escapes as a bare 500 page.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, TypeVar

import msgspec
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from steward.admission import Busy
from steward.auth import KeysUnavailable, Principal
from steward.bodies import ApiError, decode_body, receive_body
from steward.capability import Surface
from steward.codes import Code, http_status
from steward.confirmation import InvalidConfirmation, TooManyPending, Waiting, confirmation_reference
from steward.console import console_routes
from steward.conversation import ChatMessage
from steward.files import CorruptFile
from steward.health import LoadError
from steward.host import Host
from steward.mcp.http import McpEndpoint
from steward.metrics import CONTENT_TYPE
from steward.model import ModelUnavailable
from steward.openapi import INVOKE_BODY, openapi_document, openapi_operation
from steward.outcome import Outcome, Status
from steward.plugins import call_each, describe
from steward.policy import Policy
from steward.registry import Registered, Registry
from steward.state import StateStore, StateUnavailable

log = logging.getLogger("steward.app")

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
    ``CALLER_GONE``: nobody is left to read the answer. Call it after the body has been read.
    """
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
    ``KEYS_UNAVAILABLE`` while the key file cannot be read). The caller is also kept as
    ``request.state.principal``. For route authors whose endpoint cannot be wrapped in
    :func:`require_scope` (a route that answers refusals in a wire format of its own).
    """
    principal = await host_of(request).authenticate(request)
    if principal is None:
        raise ApiError(Code.UNAUTHORIZED, "a valid key is required: Authorization: Bearer <key>")
    if scopes and not any(principal.has_scope(scope) for scope in scopes):
        raise ApiError(Code.FORBIDDEN, f"this key lacks the scope for this endpoint ({' or '.join(scopes)})")
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


# request bodies
class ConfirmationAnswer(msgspec.Struct, forbid_unknown_fields=True):
    token: str
    approve: bool


class InvokeRequest(msgspec.Struct, forbid_unknown_fields=True):
    arguments: msgspec.Raw = msgspec.field(default_factory=msgspec.Raw)
    confirmation: ConfirmationAnswer | None = None
    version: int | None = None


# endpoints
async def healthz(request: Request) -> Response:
    """Liveness for anyone; with a valid key, plugin load errors, policy problems and dependency checks.

    The details name plugins and upstream URLs, which tell a stranger where to aim, so a caller
    without a key gets the status word alone (503 while shared state is unreachable).
    """
    host = host_of(request)
    report = await host.health()
    status = 503 if report.status == "unavailable" else 200
    try:
        principal = await host.authenticate(request) if "authorization" in request.headers else None
    except (KeysUnavailable, StateUnavailable):
        principal = None
    if principal is None:
        return json_response({"status": report.status}, status)
    return json_response(report, status)


@require_scope()
@openapi_operation(
    responses={
        "200": {"description": "Prometheus text format", "content": {"text/plain": {"schema": {"type": "string"}}}}
    }
)
async def metrics(request: Request) -> Response:
    """Prometheus metrics."""
    return Response(host_of(request).metrics.render(), media_type=CONTENT_TYPE)


@require_scope()
async def list_plugins(request: Request) -> Response:
    """Loaded plugins, their provenance and capabilities, and load errors."""
    host = host_of(request)
    return json_response({"plugins": host.plugin_infos(), "load_errors": host.load_errors})


@require_scope()
async def list_capabilities(request: Request) -> Response:
    """Every capability with its classification, bounds and JSON Schemas."""
    host = host_of(request)
    return json_response({"capabilities": describe_capabilities(host.registry)})


def describe_capabilities(registry: Registry) -> list[dict[str, Any]]:
    """One entry per name: a name a plugin declares with other schemas for some surfaces (web.fetch
    for the fetch service) is still one capability, and those forms are its ``variants``."""
    described = []
    for main, *others in registry.declarations():
        entry = describe_capability(main)
        entry["surfaces"] = sorted(set().union(*(item.capability.surfaces for item in (main, *others))))
        entry["variants"] = [_describe_variant(other) for other in others]
        described.append(entry)
    return described


def describe_capability(entry: Registered) -> dict[str, Any]:
    capability = entry.capability
    return {
        "name": capability.name,
        "version": capability.version,
        "description": capability.description,
        "plugin": entry.plugin,
        "classification": capability.classification,
        "policy_key": capability.policy_key,
        "surfaces": sorted(capability.surfaces),
        **_describe_form(entry),
    }


def _describe_variant(entry: Registered) -> dict[str, Any]:
    return {
        "surfaces": sorted(entry.capability.surfaces),
        "description": entry.capability.description,
        **_describe_form(entry),
    }


def _describe_form(entry: Registered) -> dict[str, Any]:
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


class InvokeEndpoint:
    """Invoke a capability, or answer a pending confirmation.

    The busiest route, so it is a bare ASGI app: no Request body stream, no Response object, no
    decorator layers, which is about a third of what an invocation costs over HTTP
    (``bench/http_throughput.py``). It answers exactly what a Starlette endpoint would: errors
    are raised as :class:`ApiError` and rendered by the app's handlers.
    """

    __name__ = "invoke"  # the route's name in metrics and OpenAPI

    def __init__(self, host: Host) -> None:
        self.host = host
        self._decode = msgspec.json.Decoder(InvokeRequest).decode

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        host = self.host
        principal = await host.authenticate(Request(scope, receive))
        if principal is None:
            raise ApiError(Code.UNAUTHORIZED, "a valid key is required: Authorization: Bearer <key>")
        if not principal.has_scope("invoke"):
            raise ApiError(Code.FORBIDDEN, "this key lacks the scope for this endpoint (invoke)")
        body = decode_body(await receive_body(scope, receive, host.config.server.max_body_bytes), self._decode)
        try:
            with host.admission.slot():
                outcome = await self._run(host, scope["path_params"]["name"], body, principal)
        except Busy as busy:
            raise ApiError(Code.BUSY, str(busy)) from None
        status, content = outcome_body(outcome)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(content)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": content})

    @staticmethod
    async def _run(host: Host, name: str, body: InvokeRequest, principal: Principal) -> Outcome:
        if bool(body.arguments) == (body.confirmation is not None):
            raise ApiError(Code.INVALID_REQUEST, 'send either "arguments" or "confirmation", not both or neither')
        if body.confirmation is not None:
            answer = body.confirmation
            return await host.executor.answer(
                answer.token, answer.approve, caller=principal, surface=Surface.INVOKE, capability=name
            )
        return await host.executor.invoke(
            name, bytes(body.arguments), caller=principal, surface=Surface.INVOKE, version=body.version
        )


class _ErrorBody(msgspec.Struct, omit_defaults=True):
    code: str
    message: str
    details: dict[str, Any] | None = None


class _RefusedOutcome(Outcome, kw_only=True):
    """A refused or failed outcome also carries the standard ``error`` object."""

    error: _ErrorBody


def outcome_body(outcome: Outcome) -> tuple[int, bytes]:
    """ok 200, pending 202, denied 200 (a normal answer); refusals and failures by their code."""
    if outcome.status in (Status.REJECTED, Status.FAILED):
        code = outcome.code or Code.INTERNAL_ERROR
        refused = _RefusedOutcome(
            **msgspec.structs.asdict(outcome), error=_ErrorBody(code, outcome.message or "", outcome.details)
        )
        return http_status(code), _encode(refused)
    return (202 if outcome.status is Status.PENDING else 200), _encode(outcome)


class ConversationRequest(msgspec.Struct, forbid_unknown_fields=True):
    messages: list[ChatMessage] = []
    confirmation: ConfirmationAnswer | None = None


@require_scope("conversation")
@openapi_operation(body=ConversationRequest)
async def conversation_message(request: Request) -> Response:
    """A conversation turn: the visible history, or a person's answer to a pending confirmation."""
    host = host_of(request)
    body = await read_json(request, ConversationRequest)
    if bool(body.messages) == (body.confirmation is not None):
        raise ApiError(Code.INVALID_REQUEST, 'send either "messages" or "confirmation", not both or neither')
    if body.messages and body.messages[-1].role != "user":
        raise ApiError(Code.INVALID_REQUEST, "the last message must be the user's")
    principal = request.state.principal
    started = time.perf_counter()
    try:
        if body.confirmation is not None:
            answer = body.confirmation
            reply, model_seconds = await host.conversation.resume(answer.token, answer.approve, principal)
        else:
            reply, model_seconds = await host.conversation.start(body.messages, principal)
    except ModelUnavailable as error:
        raise ApiError(Code.MODEL_UNAVAILABLE, str(error)) from None
    except InvalidConfirmation as error:
        raise ApiError(Code.INVALID_CONFIRMATION, str(error)) from None
    except TooManyPending as error:
        raise ApiError(Code.TOO_MANY_PENDING, str(error)) from None
    own_seconds = time.perf_counter() - started - model_seconds
    response = json_response(reply)
    response.headers["Server-Timing"] = f"model;dur={model_seconds * 1000:.3f}, steward;dur={own_seconds * 1000:.3f}"
    return response


@require_scope()
async def whoami(request: Request) -> Response:
    """The caller's key: its name, scopes and pre-approved capabilities (a console shows what it may do)."""
    principal: Principal = request.state.principal
    return json_response(
        {"name": principal.name, "scopes": sorted(principal.scopes), "preapproved": sorted(principal.preapproved)}
    )


@require_scope("settings")
async def list_confirmations(request: Request) -> Response:
    """Every pending confirmation, from any surface, with what it would run: a console's cards."""
    host = host_of(request)
    waiting = await host.confirmations.pending()
    return json_response({"confirmations": [_describe_waiting(host, item) for item in waiting]})


def _describe_waiting(host: Host, item: Waiting) -> dict[str, Any]:
    request = item.request
    entry = host.registry.get(request.capability, request.surface)
    return {
        "id": item.id,
        "reference": confirmation_reference(item.id),
        "capability": request.capability,
        "version": request.version,
        "description": entry.capability.description if entry else None,
        "classification": entry.capability.classification if entry else None,
        "arguments": msgspec.json.decode(request.arguments),
        "surface": request.surface,
        "caller": request.caller,
        "expires_in_seconds": round(item.expires_in_seconds, 1),
    }


class ConfirmationDecision(msgspec.Struct, forbid_unknown_fields=True):
    approve: bool


@require_scope("settings")
@openapi_operation(body=ConfirmationDecision)
async def answer_confirmation(request: Request) -> Response:
    """A person's answer to a pending confirmation by its id, from any device.

    The caller's own paused conversation turn resumes here and the answer is ``{"conversation":
    <turn reply>}``; anything else answers ``{"outcome": <outcome>}``, as the invoke endpoint
    would have, with the standard ``error`` object beside it when it was refused or failed. A turn
    another key paused is not continued here: its outcome is kept, and the turn goes on on the
    asker's side when it resumes with its token.
    """
    host = host_of(request)
    body = await read_json(request, ConfirmationDecision)
    confirmation_id = request.path_params["id"]
    principal = request.state.principal
    waiting = {item.id: item for item in await host.confirmations.pending()}
    asked = waiting.get(confirmation_id)
    if (
        asked is not None
        and asked.request.surface == Surface.CONVERSATION
        and asked.request.asker == principal.identity
    ):
        try:
            reply, _ = await host.conversation.resume_id(confirmation_id, body.approve, principal)
        except ModelUnavailable as error:
            raise ApiError(Code.MODEL_UNAVAILABLE, str(error)) from None
        except InvalidConfirmation as error:
            raise ApiError(Code.INVALID_CONFIRMATION, str(error)) from None
        return json_response({"conversation": reply})
    outcome = await host.executor.answer_id(confirmation_id, body.approve, caller=principal, surface=None)
    status, _ = outcome_body(outcome)
    answer: dict[str, Any] = {"outcome": outcome}
    if outcome.status in (Status.REJECTED, Status.FAILED):
        answer["error"] = _ErrorBody(outcome.code or Code.INTERNAL_ERROR, outcome.message or "", outcome.details)
    return json_response(answer, status)


class Withdrawal(msgspec.Struct, forbid_unknown_fields=True):
    token: str


@require_scope()
@openapi_operation(body=Withdrawal)
async def withdraw_confirmation(request: Request) -> Response:
    """The asker takes back its own pending confirmation (by its token) before anyone answered it.

    Answers the outcome, ``denied`` with ``CONFIRMATION_WITHDRAWN``; a token of another key, an
    unknown or an already answered one is ``400 INVALID_CONFIRMATION`` and stays as it was.
    """
    body = await read_json(request, Withdrawal)
    outcome = await host_of(request).executor.withdraw(body.token, caller=request.state.principal)
    status, content = outcome_body(outcome)
    return Response(content, status_code=status, media_type="application/json")


@require_scope("settings", "conversation")
async def list_policy_flags(request: Request) -> Response:
    """Every policy flag with its description and current value (a console's switches)."""
    policy = host_of(request).policy
    current = await policy.current()
    flags = [
        {"name": name, "description": flag.description, "enabled": current.get(name, False)}
        for name, flag in sorted(policy.flags.items())
    ]
    return json_response({"flags": flags})


@require_scope("settings")
async def recent_audit(request: Request) -> Response:
    """The newest audit records (names, outcomes, durations; never arguments), ``?limit=`` up to 500."""
    raw = request.query_params.get("limit", "50")
    if not raw.isdigit() or not 1 <= int(raw) <= 500:
        raise ApiError(Code.INVALID_REQUEST, "limit must be a whole number from 1 to 500")
    return json_response({"records": await asyncio.to_thread(host_of(request).audit.recent, int(raw))})


@require_scope("settings", "conversation")
async def get_policy(request: Request) -> Response:
    """Every policy flag and its current value."""
    return json_response(await host_of(request).policy.current())


@require_scope("settings")
async def set_policy(request: Request) -> Response:
    """Set policy flags; applies to the next request."""
    policy = host_of(request).policy
    changes = await read_json(request, dict[str, bool])
    unknown = sorted(set(changes) - set(policy.flags))
    if unknown:
        raise ApiError(
            Code.INVALID_REQUEST,
            f"unknown policy flag(s): {', '.join(unknown)}; known: {', '.join(sorted(policy.flags))}",
        )
    try:
        for name, value in changes.items():
            await asyncio.to_thread(policy.set, name, value)
    except CorruptFile as error:
        raise ApiError(Code.POLICY_FILE_CORRUPT, f"policy not saved: {error}; fix or delete the file") from None
    except OSError as error:
        raise ApiError(Code.SETTINGS_NOT_SAVED, f"policy not saved: {error.strerror or error}") from None
    return json_response(await policy.current())


@require_scope()
async def openapi(request: Request) -> Response:
    """This document."""
    return json_response(openapi_document(host_of(request), request.app.routes))


# errors
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


class _CountRequests:
    """Counts responses by endpoint name (never by raw path: paths carry caller text)."""

    def __init__(self, app: ASGIApp, host: Host) -> None:
        self.app, self.host = app, host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        status = 500

        async def record_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, record_status)
        finally:
            endpoint = scope.get("endpoint")
            route = getattr(endpoint, "__name__", "unmatched")
            self.host.metrics.requests.labels(route, str(status)).inc()


def _described_invoke(host: Host) -> InvokeEndpoint:
    return openapi_operation(
        body=INVOKE_BODY,
        responses={
            "200": _outcome_response("the outcome: ok, or denied/expired"),
            "202": _outcome_response("pending: a person must confirm (pending_confirmation)"),
        },
    )(InvokeEndpoint(host))


def _described_set_policy(host: Host) -> Endpoint:
    """``set_policy``, described with this host's flags: the only keys its body may hold."""

    @functools.wraps(set_policy)
    async def endpoint(request: Request) -> Response:
        return await set_policy(request)

    flags = {name: {"type": "boolean", "description": flag.description} for name, flag in host.policy.flags.items()}
    body = {"type": "object", "additionalProperties": False, "properties": flags}
    return openapi_operation(body=body)(endpoint)


def _outcome_response(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": {"type": "object"}}}}


def core_routes(host: Host) -> list[BaseRoute]:
    """The core's routes, the busiest first: the router tries them in order."""
    return [
        Route("/api/v1/capabilities/{name}/invoke", _described_invoke(host), methods=["POST"]),
        Route("/healthz", healthz, methods=["GET"]),
        # MCP's wire format is the MCP specification's, not this API's (docs/mcp.md)
        Route("/mcp", McpEndpoint(host), methods=["GET", "POST", "DELETE"], include_in_schema=False),
        Route("/metrics", metrics, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/api/v1/plugins", list_plugins, methods=["GET"]),
        Route("/api/v1/capabilities", list_capabilities, methods=["GET"]),
        Route("/api/v1/conversation/message", conversation_message, methods=["POST"]),
        Route("/api/v1/conversation/policy", get_policy, methods=["GET"]),
        Route("/api/v1/conversation/policy", _described_set_policy(host), methods=["POST"]),
        Route("/api/v1/whoami", whoami, methods=["GET"]),
        Route("/api/v1/confirmations", list_confirmations, methods=["GET"]),
        Route("/api/v1/confirmations/withdraw", withdraw_confirmation, methods=["POST"]),
        Route("/api/v1/confirmations/{id}", answer_confirmation, methods=["POST"]),
        Route("/api/v1/policy", list_policy_flags, methods=["GET"]),
        Route("/api/v1/audit", recent_audit, methods=["GET"]),
        *console_routes(),
    ]


def create_app(host: Host) -> Starlette:
    """The ASGI app for ``host``: core routes, then every plugin's ``register_routes``."""
    routes = core_routes(host)
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

    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={
            HTTPException: _http_error,
            ApiError: _api_error,
            KeysUnavailable: _keys_unavailable,
            StateUnavailable: _state_unavailable,
            Exception: _unexpected,
        },
    )
    app.state.host = host
    app.add_middleware(_CountRequests, host=host)
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
