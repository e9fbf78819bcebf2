"""The fetch service's HTTP side: ``POST /v1/fetch`` and ``POST /v1/search``.

Every request, here and on the Firecrawl routes (``firecrawl``), takes the same path through
:class:`ServiceGate`: a key with scope ``service`` that has the capability pre-approved (an
operator's explicit decision, so no request waits for a person), admission (concurrency caps,
rate limit), then the executor on the ``service`` surface, which applies the household's policy
and writes the audit record, then one log line and the metrics.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import steward
from steward_websearch.codes import WebsearchCode
from steward_websearch.service.admission import Admission, Busy
from steward_websearch.service.fleet import ServiceFetchArguments, ServiceSearchArguments
from steward_websearch.service.telemetry import Telemetry
from steward_websearch.settings import WebsearchSettings


class Refused(Exception):
    """The gate said no before anything ran: ``status`` and ``code`` say why; ``retry_after`` if waiting helps."""

    def __init__(self, code: str, message: str, status: int, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.status, self.retry_after = code, message, status, retry_after


class _Peek(msgspec.Struct):
    """What the gate needs from a body before the executor validates it: the target and ``recover``."""

    url: Any = None
    recover: Any = False


class ServiceGate:
    """Lets service requests through for one app: who calls, whether they may, whether there is room."""

    def __init__(self, settings: WebsearchSettings) -> None:
        self.admission = Admission(settings.service)
        self.telemetry = Telemetry()

    async def caller(self, request: Request) -> steward.Principal:
        """The request's key, which must hold scope ``service``; :class:`Refused` (401, 403) if not."""

        try:
            return await steward.authenticate(request, "service")
        except steward.ApiError as error:
            raise Refused(error.code, error.message, error.status) from None

    async def run(
        self, request: Request, capability: str, arguments: bytes | dict[str, Any], target: str | None
    ) -> steward.Outcome:
        """The outcome of ``capability`` for the caller; :class:`Refused` without pre-approval or room."""
        principal: steward.Principal = request.state.principal
        if capability not in principal.preapproved:
            raise Refused(
                steward.Code.FORBIDDEN,
                f"key {principal.name!r} may not use the fetch service: it needs {capability} pre-approved "
                "(steward keys add NAME --scope service --preapprove web.fetch --preapprove web.search)",
                403,
            )
        try:
            store = steward.plugin_state(request, "websearch")
            async with self.admission.admit(store, principal.name, host_of(target) if target else None):
                return await steward.invoke_capability(request, capability, arguments, surface=steward.Surface.SERVICE)
        except Busy as error:
            raise Refused(steward.Code.BUSY, error.message, 429, error.retry_after) from None

    async def serve(
        self,
        request: Request,
        capability: str,
        prepare: Callable[[Request], Awaitable[tuple[bytes | dict[str, Any], str | None, Any]]],
        answer: Callable[[steward.Outcome, Any], Response],
        refuse: Callable[[str, str, int], Response],
    ) -> Response:
        """One service request end to end, in the wire format its API speaks.

        ``prepare`` reads the request into (arguments, target URL, what ``answer`` needs besides
        the outcome); ``refuse`` renders a refusal before anything ran (code, message, status).
        Every request, refused or not, gets its log line.
        """
        key, target, outcome = "-", None, None
        try:
            key = (await self.caller(request)).name
            arguments, target, view = await prepare(request)
            outcome = await self.run(request, capability, arguments, target)
            response = answer(outcome, view)
        except Refused as error:
            response = refuse(error.code, error.message, error.status)
            if error.retry_after is not None:
                response.headers["Retry-After"] = str(error.retry_after)
        except steward.ApiError as error:
            response = refuse(error.code, error.message, error.status)
        except steward.StateUnavailable as error:
            response = refuse(steward.Code.STATE_UNAVAILABLE, str(error), 503)
        self.telemetry.observe(request.url.path, key, host_of(target), response.status_code, outcome)
        return response


_HOST = re.compile(r"[a-z0-9._:\[\]-]{1,255}")


def host_of(url: str | None) -> str:
    """The URL's host for logs and limits; anything that is not host-shaped is empty (never logged)."""
    try:
        host = (urlsplit(url or "").hostname or "").lower()
    except ValueError:
        return ""
    return host if _HOST.fullmatch(host) else ""


def native_routes(gate: ServiceGate) -> list[Route]:
    @steward.openapi_operation(body=ServiceFetchArguments)
    async def fetch(request: Request) -> Response:
        """The fetch service: one page through the guard as clean Markdown, raw text, jq or a digest."""
        return await gate.serve(request, "web.fetch", _prepare_fetch, native_response, error_body)

    @steward.openapi_operation(body=ServiceSearchArguments)
    async def search(request: Request) -> Response:
        """The fetch service: web search results from the household's SearXNG."""
        return await gate.serve(request, "web.search", _prepare_search, native_response, error_body)

    return [Route("/v1/fetch", fetch, methods=["POST"]), Route("/v1/search", search, methods=["POST"])]


async def _prepare_fetch(request: Request) -> tuple[bytes, str | None, str]:
    """The body as the executor will validate it, its target, and the hint for a refusing site."""
    body = await steward.read_body(request)
    try:
        peek = msgspec.json.decode(body, type=_Peek)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        peek = _Peek()
    target = peek.url if isinstance(peek.url, str) else None
    return body, target, "browser" if peek.recover is True else "recover"


async def _prepare_search(request: Request) -> tuple[bytes, None, str]:
    return await steward.read_body(request), None, "recover"


def native_response(outcome: steward.Outcome, hint: str) -> Response:
    if outcome.status is steward.Status.OK:
        return steward.json_response(outcome.result)
    code = outcome.code or steward.Code.INTERNAL_ERROR
    hint = hint if code == WebsearchCode.UPSTREAM_BLOCKED else None
    return error_body(code, outcome.message or "", steward.http_status(code), hint, outcome.details)


def error_body(
    code: str, message: str, status: int, hint: str | None = None, details: dict[str, Any] | None = None
) -> Response:
    """The standard error shape; refusals an agent can work around add what to try next."""
    body: dict[str, Any] = {"error": {"code": code, "message": message}}
    if details is not None:
        body["error"]["details"] = details
    if hint is not None:
        body["hint"] = hint
    return steward.json_response(body, status)
