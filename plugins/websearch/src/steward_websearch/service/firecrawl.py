"""``POST /v2/scrape`` and ``POST /v2/search`` in Firecrawl's v2 wire format.

Any Firecrawl client pointed at Steward works unchanged (``Firecrawl(api_url=…, api_key=…)``);
requests are translated into the service's web.fetch and web.search and take the same gate.
What the real SDK (firecrawl-py 4.x) sends and accepts shaped this module:

- it sends its own defaults (``onlyMainContent``, ``mobile``, ``blockAds``, ``maxAge`` in ms,
  ``origin``, …): unknown keys are accepted and ignored; ``formats`` we cannot produce
  (screenshots, LLM extraction) are refused with a 400 that names them;
- ``metadata.sourceURL`` and ``metadata.url`` are both the *final* URL after redirects (agents
  re-check and cite it), the requested one is ``requestedURL``; ``cacheState`` is only
  ``hit``/``miss`` and ``proxyUsed`` only ``basic``/``stealth`` (other values make the SDK raise);
- search answers ``data`` as an object keyed by source (``{"web": [...]}``); a flat list parses
  as nothing;
- errors are ``{"success": false, "error": …}`` with the status the SDK maps to its exceptions.
  A 502 is never sent (the SDK retries it), nor a 408 with ``details.state`` (it resumes); an
  upstream that is down is a 503 with its reason, not the 500 of a bug.
"""

from __future__ import annotations

import dataclasses
import http
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import steward
from steward_websearch.codes import WebsearchCode
from steward_websearch.service.routes import ServiceGate

FORMATS = {"markdown": None, "html": "html", "rawHtml": "raw_html", "links": "links"}
TBS_RANGES = {"qdr:d": "day", "qdr:w": "week", "qdr:m": "month", "qdr:y": "year"}
MAX_SEARCH_LIMIT = 20

_CODES = {
    WebsearchCode.DNS_RESOLUTION_FAILED: "SCRAPE_DNS_RESOLUTION_ERROR",
    WebsearchCode.TLS_FAILED: "SCRAPE_SSL_ERROR",
}


FormatName = Literal["markdown", "html", "rawHtml", "links"]


class FormatObject(msgspec.Struct):
    """A format given as an object (``{"type": "markdown"}``); its other options are not used."""

    type: FormatName


class ScrapeRequest(msgspec.Struct, rename="camel"):
    url: str
    formats: list[FormatName | FormatObject] = msgspec.field(default_factory=lambda: ["markdown"])
    only_main_content: bool = True
    timeout: int | None = None
    max_age: int | None = None
    store_in_cache: bool = True
    recover: bool = False  # Steward's own: try archives when the site refuses
    origin: str | None = None  # who sent it (the SDKs send it always); telemetry, nothing to do
    integration: str | None = None


@dataclass(frozen=True)
class View:
    """What the answer should hold besides what the service computed."""

    markdown: bool = True
    recover: bool = False
    limit_asked: int = 0
    warnings: tuple[str, ...] = ()


class SearchRequest(msgspec.Struct, rename="camel"):
    query: str
    limit: int = 5
    sources: list[str | dict[str, Any]] = msgspec.field(default_factory=lambda: ["web"])
    """Only ``web`` is searched; others are ignored with a warning (clients send several by default)."""
    tbs: str | None = None
    scrape_options: dict[str, Any] | None = None
    origin: str | None = None
    integration: str | None = None


class FirecrawlError(msgspec.Struct, omit_defaults=True):
    """Firecrawl's error shape, which its SDKs parse."""

    success: bool
    error: str
    code: str | None = None
    hint: str | None = None


def firecrawl_routes(gate: ServiceGate) -> list[Route]:
    read_scrape = _reading(ScrapeRequest, _scrape_arguments)
    read_search = _reading(SearchRequest, _search_arguments)

    @steward.openapi_operation(body=ScrapeRequest, error=FirecrawlError)
    async def scrape(request: Request) -> Response:
        """Firecrawl-compatible scrape (v2 wire format)."""
        return await gate.serve(request, "web.fetch", read_scrape, _answering(_scrape_data), _refusal)

    @steward.openapi_operation(body=SearchRequest, error=FirecrawlError)
    async def search(request: Request) -> Response:
        """Firecrawl-compatible search (v2 wire format)."""
        return await gate.serve(request, "web.search", read_search, _answering(_search_data), _refusal)

    return [Route("/v2/scrape", scrape, methods=["POST"]), Route("/v2/search", search, methods=["POST"])]


def _reading(
    body_type: type[msgspec.Struct], translate: Callable[[Any], tuple[dict[str, Any], View]]
) -> Callable[[Request], Awaitable[tuple[dict[str, Any], str | None, View]]]:
    """A request's Firecrawl body, decoded and translated into the service's arguments."""

    known = {field.encode_name for field in msgspec.structs.fields(body_type)}

    async def read(request: Request) -> tuple[dict[str, Any], str | None, View]:
        raw = await steward.read_json(request, dict[str, Any])
        try:
            body = msgspec.convert(raw, type=body_type)
        except msgspec.ValidationError as error:
            raise steward.ApiError(steward.Code.INVALID_REQUEST, f"invalid request: {error}") from None
        arguments, view = translate(body)
        ignored = sorted(set(raw) - known)
        if ignored:
            view = dataclasses.replace(view, warnings=(*view.warnings, f"ignored: {', '.join(ignored)}"))
        return arguments, arguments.get("url"), view

    return read


def _answering(render: Callable[[Any, View], dict[str, Any]]) -> Callable[[steward.Outcome, View], Response]:
    def answer(outcome: steward.Outcome, view: View) -> Response:
        if outcome.status is steward.Status.OK:
            return steward.json_response(render(outcome.result, view))
        code = outcome.code or steward.Code.INTERNAL_ERROR
        hint = ("browser" if view.recover else "recover") if code == WebsearchCode.UPSTREAM_BLOCKED else None
        return _error(outcome.message or code, firecrawl_status(code), _CODES.get(code), hint)

    return answer


def firecrawl_status(code: str) -> int:
    """The status Firecrawl answers a failure with, which its SDKs turn into the right exception:
    a client error keeps its declared 4xx, a refusing site is Firecrawl's 403, a timeout its 408,
    something this service depends on being down (SearXNG, the shared state) 503, and everything
    else its 500."""
    if code == WebsearchCode.UPSTREAM_BLOCKED:
        return 403
    if code == steward.Code.TIMEOUT:
        return 408
    status = steward.http_status(code)
    return status if 400 <= status < 500 or status == 503 else 500


def _refusal(code: str, message: str, status: int) -> Response:
    return _error(message, status)


def _scrape_arguments(body: ScrapeRequest) -> tuple[dict[str, Any], View]:
    wanted = [item if isinstance(item, str) else item.type for item in body.formats]
    arguments: dict[str, Any] = {
        "url": body.url,
        "error_pages": True,
        "include": sorted({FORMATS[name] for name in wanted if FORMATS[name]}),
        "main_content_only": body.only_main_content,
        "store": body.store_in_cache,
        "recover": body.recover,
    }
    if body.max_age is not None:
        arguments["max_age"] = max(0, body.max_age) / 1000
    if body.timeout is not None:
        arguments["timeout"] = min(max(body.timeout, 1000), 120_000) / 1000
    return arguments, View(markdown="markdown" in wanted, recover=body.recover)


def _scrape_data(result: Any, view: View) -> dict[str, Any]:
    source = result.source
    metadata: dict[str, Any] = {
        "title": result.metadata.get("title", ""),
        "description": result.metadata.get("description", ""),
        "language": result.metadata.get("language", ""),
        "sourceURL": source.final_url,
        "url": source.final_url,
        "requestedURL": source.url,
        "statusCode": source.status,
        "contentType": source.content_type,
        "cacheState": "hit" if source.cached else "miss",
        "proxyUsed": "basic",
        "fetchedAt": source.fetched_at,
        "hash": source.hash,
        "bytes": source.bytes,
        "rawTokens": result.sizes.raw_tokens,
        "cleanTokens": result.sizes.clean_tokens,
        "returnedTokens": result.sizes.returned_tokens,
        "truncated": result.truncated,
        "untrusted": True,
    }
    if source.status >= 400:
        metadata["error"] = f"{source.status} {_reason(source.status)}".strip()
    if source.cached:
        metadata["cachedAt"] = source.fetched_at
    if source.snapshot is not None:
        metadata["snapshot"] = msgspec.to_builtins(source.snapshot)
    data: dict[str, Any] = {"metadata": metadata}
    if view.markdown:
        data["markdown"] = result.content
    for name, included in (("html", result.html), ("rawHtml", result.raw_html), ("links", result.links)):
        if included is not None:
            data[name] = included
    body: dict[str, Any] = {"success": True, "data": data}
    warnings = [*view.warnings, *result.warnings]
    if warnings:
        body["warning"] = "; ".join(warnings)
    return body


def _reason(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return ""


def _search_arguments(body: SearchRequest) -> tuple[dict[str, Any], View]:
    warnings = []
    sources = [item if isinstance(item, str) else str(item.get("type", "?")) for item in body.sources]
    ignored = [name for name in sources if name != "web"]
    if ignored:
        warnings.append(f"only web results are searched; ignored sources: {', '.join(ignored)}")
    if body.scrape_options:
        warnings.append("scrapeOptions ignored: scrape the results you need with /v2/scrape")
    arguments: dict[str, Any] = {"query": body.query, "k": min(max(body.limit, 1), MAX_SEARCH_LIMIT)}
    if body.tbs:
        if body.tbs in TBS_RANGES:
            arguments["time_range"] = TBS_RANGES[body.tbs]
        else:
            warnings.append(f"tbs {body.tbs!r} ignored: Steward knows {', '.join(TBS_RANGES)}")
    return arguments, View(limit_asked=body.limit, warnings=tuple(warnings))


def _search_data(result: Any, view: View) -> dict[str, Any]:
    web = [
        {
            "url": hit.url,
            "title": hit.title,
            "description": hit.snippet,
            "position": position,
            "score": hit.score,
            "foundBy": hit.found_by,
        }
        for position, hit in enumerate(result.results, start=1)
    ]
    body: dict[str, Any] = {"success": True, "data": {"web": web}}
    warnings = [*view.warnings, *result.warnings]
    if view.limit_asked > MAX_SEARCH_LIMIT:
        warnings.append(f"limit {view.limit_asked} lowered to {MAX_SEARCH_LIMIT}")
    if warnings:
        body["warning"] = "; ".join(warnings)
    return body


def _error(message: str, status: int, code: str | None = None, hint: str | None = None) -> Response:
    """Firecrawl's error shape; ``code`` and ``hint`` only where they apply."""
    return steward.json_response(FirecrawlError(success=False, error=message, code=code, hint=hint), status)
