"""The fetch service's HTTP side: ``POST /v1/fetch`` and ``POST /v1/search``.

Every request, here and on the Firecrawl routes (``firecrawl``), takes the same path through
:class:`ServiceGate`: a key with scope ``service`` that has the capability pre-approved (an
operator's explicit decision, so no request waits for a person), admission (concurrency caps,
rate limit), then the executor on the ``service`` surface, which applies the household's policy
and writes the audit record, then one log line and the metrics.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import steward
from steward_websearch import telemetry
from steward_websearch.admission import Admission, Busy
from steward_websearch.settings import WebsearchSettings

# Codes of the service's own failures, by the status the native API answers them with.
_STATUS = {
    "JQ_FAILED": 400,
    "JQ_NOT_APPLICABLE": 400,
    "UPSTREAM_BLOCKED": 502,
    "FETCH_HTTP_ERROR": 502,
    "DNS_RESOLUTION_FAILED": 502,
}


class NotPreapproved(Exception):
    pass


class _Peek(msgspec.Struct):
    """What the gate needs from a body before the executor validates it: the target and ``recover``."""

    url: Any = None
    recover: Any = False


class ServiceGate:
    """Runs service requests for one app; holds its admission state."""

    def __init__(self, settings: WebsearchSettings) -> None:
        self.admission = Admission(settings.service)

    async def run(
        self, request: Request, capability: str, arguments: bytes | dict[str, Any], target: str | None
    ) -> steward.Outcome:
        """The outcome of ``capability`` for the request's caller; :class:`Busy` or :class:`NotPreapproved`."""
        principal: steward.Principal = request.state.principal
        if capability not in principal.preapproved:
            raise NotPreapproved(
                f"key {principal.name!r} may not use the fetch service: it needs {capability} pre-approved "
                f"(steward keys add NAME --scope service --preapprove web.fetch --preapprove web.search)"
            )
        with self.admission.admit(principal.name, host_of(target) if target else None):
            return await steward.invoke_capability(request, capability, arguments, surface=steward.Surface.SERVICE)


_HOST = re.compile(r"[a-z0-9._:\[\]-]{1,255}")


def host_of(url: str | None) -> str:
    """The URL's host for logs and limits; anything that is not host-shaped is empty (never logged)."""
    try:
        host = (urlsplit(url or "").hostname or "").lower()
    except ValueError:
        return ""
    return host if _HOST.fullmatch(host) else ""


def native_routes(gate: ServiceGate) -> list[Route]:
    @steward.require_scope("service")
    async def fetch(request: Request) -> Response:
        """The fetch service: one page through the guard as clean Markdown, raw text, jq or a digest."""
        body = await steward.read_body(request)
        peek = _peek(body)
        target = peek.url if isinstance(peek.url, str) else None
        hint = "browser" if peek.recover is True else "recover"
        return await _answer(request, gate, "web.fetch", body, target, hint)

    @steward.require_scope("service")
    async def search(request: Request) -> Response:
        """The fetch service: web search results from the household's SearXNG."""
        body = await steward.read_body(request)
        return await _answer(request, gate, "web.search", body, None, None)

    return [Route("/v1/fetch", fetch, methods=["POST"]), Route("/v1/search", search, methods=["POST"])]


def _peek(body: bytes) -> _Peek:
    try:
        return msgspec.json.decode(body, type=_Peek)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return _Peek()


async def _answer(
    request: Request, gate: ServiceGate, capability: str, body: bytes, target: str | None, hint: str | None
) -> Response:
    route = request.url.path
    key = request.state.principal.name
    outcome = None
    try:
        outcome = await gate.run(request, capability, body, target)
        response = native_response(outcome, hint)
    except NotPreapproved as error:
        response = error_body(steward.Code.FORBIDDEN, str(error), 403)
    except Busy as error:
        response = error_body(steward.Code.BUSY, error.message, 429)
        response.headers["Retry-After"] = str(error.retry_after)
    telemetry.observe(route, key, host_of(target), response.status_code, outcome)
    return response


def native_response(outcome: steward.Outcome, hint: str | None) -> Response:
    if outcome.status is steward.Status.OK:
        return steward.json_response(outcome.result)
    code = outcome.code or steward.Code.INTERNAL_ERROR
    status = _STATUS.get(code) or steward.http_status(code)
    return error_body(code, outcome.message or "", status, hint if code == "UPSTREAM_BLOCKED" else None)


def error_body(code: str, message: str, status: int, hint: str | None = None) -> Response:
    """The standard error shape; refusals an agent can work around add what to try next."""
    body: dict[str, Any] = {"error": {"code": code, "message": message}}
    if hint is not None:
        body["hint"] = hint
    return steward.json_response(body, status)
