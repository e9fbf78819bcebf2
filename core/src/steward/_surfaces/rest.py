"""The REST API (``/api/v1``, ``/healthz``, ``/metrics``, ``/openapi.json``): parse, call the host, render.

Each endpoint reads its body once into a msgspec type, asks the :class:`CallerGate` for the caller
(and a slot, where something runs), calls the host, and renders with
:mod:`steward._surfaces.outcomes` and :mod:`steward._surfaces.views`. Errors are raised as
:class:`~steward.ApiError` and rendered by the app's handlers in one shape.
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING, Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from steward._auth import KeysUnavailable, Principal
from steward._bodies import ApiError, decode_body, receive_body
from steward._capability import Surface
from steward._codes import Code
from steward._confirmation import Waiting, confirmation_reference, token_digest
from steward._files import CorruptFile
from steward._metrics import CONTENT_TYPE
from steward._model import ModelUnavailable
from steward._openapi import INVOKE_BODY, openapi_document, openapi_operation
from steward._outcome import Outcome, Status
from steward._state import StateUnavailable
from steward._surfaces.gate import CallerGate
from steward._surfaces.outcomes import error_of, rest_body
from steward._surfaces.views import rest_capabilities
from steward.web import Endpoint, gate_of, host_of, json_response, read_json, require_scope

if TYPE_CHECKING:
    from steward._host import Host


INVOKE_ROUTE = "/api/v1/capabilities/{name}/invoke"


class ConfirmationAnswer(msgspec.Struct, forbid_unknown_fields=True):
    token: str
    approve: bool

    @property
    def confirmation_id(self) -> str:
        """The id the executor and the stores know it by: the token goes no further than here."""
        return token_digest(self.token)


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
    return json_response({"capabilities": rest_capabilities(host.registry)})


class InvokeEndpoint:
    """Invoke a capability, or answer a pending confirmation.

    The busiest route, so it is a bare ASGI app: no Request body stream, no Response object, no
    decorator layers, which is about a third of what an invocation costs over HTTP
    (``bench/http_throughput.py``). It answers exactly what a Starlette endpoint would: errors
    are raised as :class:`ApiError` and rendered by the app's handlers.
    """

    __name__ = "invoke"  # the route's name in metrics and OpenAPI

    def __init__(self, host: Host, gate: CallerGate) -> None:
        self.host = host
        self.gate = gate
        self._decode = msgspec.json.Decoder(InvokeRequest).decode

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        host = self.host
        principal = await self.gate.caller(Request(scope, receive), "invoke")
        body = decode_body(await receive_body(scope, receive, host.config.server.max_body_bytes), self._decode)
        with self.gate.admitted():
            outcome = await self._run(host, scope["path_params"]["name"], body, principal)
        status, content = rest_body(outcome)
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
                answer.confirmation_id, answer.approve, caller=principal, surface=Surface.INVOKE, capability=name
            )
        return await host.executor.invoke(
            name, bytes(body.arguments), caller=principal, surface=Surface.INVOKE, version=body.version
        )


@require_scope()
async def whoami(request: Request) -> Response:
    """The caller's key: its name, scopes and pre-approved capabilities (a console shows what it may do)."""
    principal: Principal = request.state.principal
    return json_response(
        {"name": principal.name, "scopes": sorted(principal.scopes), "preapproved": sorted(principal.preapproved)}
    )


@require_scope()
async def list_codes(request: Request) -> Response:
    """Every outcome code this host answers with, core's and its plugins', with its HTTP status and
    the sentence that says what it means (a console shows the sentence where a client would branch
    on the code)."""
    plugins = host_of(request).outcome_codes.values()
    answered = [*Code, *(code for family in plugins for code in family)]
    codes = [{"code": code.value, "status": code.status, "description": code.description} for code in answered]
    return json_response({"codes": codes})


@require_scope("settings")
async def list_confirmations(request: Request) -> Response:
    """Every pending confirmation, from any surface, with what it would run: a console's cards."""
    host = host_of(request)
    waiting = await host.confirmations.pending()
    return json_response({"confirmations": [_describe_waiting(host, item) for item in waiting]})


def _describe_waiting(host: Host, item: Waiting) -> dict[str, Any]:
    request = item.request
    entry = host.registry.get(request.capability, request.surface)
    arguments = msgspec.json.decode(request.arguments)
    return {
        "id": item.id,
        "reference": confirmation_reference(item.id),
        "capability": request.capability,
        "version": request.version,
        "title": (entry.capability.title or entry.capability.name) if entry else request.capability,
        "action": entry.capability.says(arguments) if entry else request.capability,
        "description": entry.capability.description if entry else None,
        "classification": entry.capability.classification if entry else None,
        "arguments": arguments,
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
    confirmation_id, principal = request.path_params["id"], request.state.principal
    with gate_of(request).admitted():
        try:
            resumed = await host.conversation.resume(confirmation_id, body.approve, principal)
        except ModelUnavailable as error:
            raise ApiError(Code.MODEL_UNAVAILABLE, str(error)) from None
        if resumed is not None:
            return json_response({"conversation": resumed[0]})
        outcome = await host.executor.answer(confirmation_id, body.approve, caller=principal, surface=Surface.CONSOLE)
    status, _ = rest_body(outcome)
    answer: dict[str, Any] = {"outcome": outcome}
    if outcome.status in (Status.REJECTED, Status.FAILED):
        answer["error"] = error_of(outcome)
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
    outcome = await host_of(request).executor.withdraw(token_digest(body.token), caller=request.state.principal)
    status, content = rest_body(outcome)
    return Response(content, status_code=status, media_type="application/json")


@require_scope("settings", "conversation")
async def list_policy_flags(request: Request) -> Response:
    """Every policy flag with its description and current value (a console's switches)."""
    policy = host_of(request).policy
    current = await policy.current()
    flags = [
        {
            "name": name,
            "label": flag.label or name,
            "description": flag.description,
            "enabled": current.get(name, False),
        }
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


def _described_invoke(host: Host, gate: CallerGate) -> InvokeEndpoint:
    return openapi_operation(
        body=INVOKE_BODY,
        responses={
            "200": _outcome_response("the outcome: ok, or denied/expired"),
            "202": _outcome_response("pending: a person must confirm (pending_confirmation)"),
        },
    )(InvokeEndpoint(host, gate))


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


def rest_routes(host: Host, gate: CallerGate) -> list[BaseRoute]:
    """The REST API's routes, the busiest first: the router tries them in order."""
    return [
        Route(INVOKE_ROUTE, _described_invoke(host, gate), methods=["POST"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/api/v1/plugins", list_plugins, methods=["GET"]),
        Route("/api/v1/capabilities", list_capabilities, methods=["GET"]),
        Route("/api/v1/conversation/policy", get_policy, methods=["GET"]),
        Route("/api/v1/conversation/policy", _described_set_policy(host), methods=["POST"]),
        Route("/api/v1/whoami", whoami, methods=["GET"]),
        Route("/api/v1/codes", list_codes, methods=["GET"]),
        Route("/api/v1/confirmations", list_confirmations, methods=["GET"]),
        Route("/api/v1/confirmations/withdraw", withdraw_confirmation, methods=["POST"]),
        Route("/api/v1/confirmations/{id}", answer_confirmation, methods=["POST"]),
        Route("/api/v1/policy", list_policy_flags, methods=["GET"]),
        Route("/api/v1/audit", recent_audit, methods=["GET"]),
    ]
