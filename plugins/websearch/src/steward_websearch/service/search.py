"""``web.search``: the household's own SearXNG, asked for JSON.

SearXNG is an upstream the operator configured (usually on loopback), so it is reached directly,
not through the guard. It is taken as it really behaves: HTTP 200 with no results and a list of
``unresponsive_engines`` when engines failed, which is an outage only when *every* enabled engine
is among them (``/config`` lists them; a healthy engine that found nothing makes it an honest empty
result, the failed engines named); 403 when
``json`` is missing from ``search.formats``; 429 when its limiter is on; ``content`` that may hold
HTML; ``number_of_results`` only from older versions; no way to ask for fewer results.

A query is searched as text. SearXNG reads any word that starts with ``!`` (an engine or
category), ``!!`` (an external bang), ``:`` (a language) or ``<`` (a timeout) as a command and
drops it from the search (``<3 cats`` searches "cats"); such words are sent quoted, so what a model
wrote is what is searched.
"""

from __future__ import annotations

import asyncio
import datetime
from html.parser import HTMLParser
from typing import Annotated, Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
import msgspec

import steward
from steward_websearch.service.brave import BraveHit, ask_brave
from steward_websearch.service.secret_files import BRAVE_KEY

MAX_RESULTS = 5
SNIPPET_CHARS = 400
MAX_CHUNKS = 8
MAX_CHUNK_CHARS = 1200
TimeRange = Literal["day", "week", "month", "year"]
_SEARXNG_COMMAND_PREFIXES = ("!", ":", "<")
DEFAULT_CATEGORY = "general"


class SearchArguments(msgspec.Struct, forbid_unknown_fields=True):
    query: Annotated[str, msgspec.Meta(min_length=1, max_length=500, description="What to search the web for.")]
    time_range: TimeRange | None = None


class SearchHit(msgspec.Struct):
    title: str
    url: str
    snippet: str
    found_by: list[str] = []
    """Which backends found it: ``searxng``, ``brave``, or both."""


class SearchResult(msgspec.Struct, kw_only=True):
    query: str
    results: Annotated[list[SearchHit], msgspec.Meta(max_length=MAX_RESULTS)]
    result_count: int
    retrieved_at: str
    unresponsive_engines: list[str] = []
    warnings: list[str] = []


class FoundHit(SearchHit, kw_only=True):
    score: float = 0.0
    engine: str = ""
    chunks: list[str] = []
    """The passages a backend quoted from the page (Brave's LLM context); none from SearXNG."""


class Found(msgspec.Struct, kw_only=True):
    """What every backend found, merged: one hit per canonical URL, in rank order."""

    hits: list[FoundHit]
    engines: list[str]
    warnings: list[str]
    raw_bytes: int


class SearxAnswer(msgspec.Struct):
    results: list[dict[str, Any]] = []
    unresponsive_engines: list[Any] = []
    engines: list[str] = []
    raw_bytes: int = 0


async def search(arguments: SearchArguments, context: steward.InvocationContext) -> SearchResult:
    found = await find(arguments.query, arguments.time_range, context, count=MAX_RESULTS)
    return SearchResult(
        query=arguments.query,
        results=[SearchHit(hit.title, hit.url, hit.snippet, hit.found_by) for hit in found.hits[:MAX_RESULTS]],
        result_count=len(found.hits),
        retrieved_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        unresponsive_engines=found.engines,
        warnings=found.warnings,
    )


async def find(query: str, time_range: str | None, context: steward.InvocationContext, *, count: int) -> Found:
    """Search SearXNG, and Brave too when a key is set: merged, deduplicated by canonical URL.

    With both, one failing is a warning and both failing is ``UPSTREAM_UNAVAILABLE``.
    """
    settings = context.settings
    key = BRAVE_KEY.read(context.data_dir)
    if not key:
        answer = await ask_searxng(settings.searxng_url, query, time_range, context)
        return Found(
            hits=merged([_searx_hits(answer)]), engines=answer.engines, warnings=[], raw_bytes=answer.raw_bytes
        )
    searx, brave = await asyncio.gather(
        ask_searxng(settings.searxng_url, query, time_range, context),
        ask_brave(settings.brave_url, key, query, count, time_range, context),
        return_exceptions=True,
    )
    for outcome in (searx, brave):
        if isinstance(outcome, BaseException) and not isinstance(outcome, steward.CapabilityError):
            raise outcome
    if isinstance(searx, steward.CapabilityError) and isinstance(brave, steward.CapabilityError):
        raise steward.CapabilityError(
            steward.Code.UPSTREAM_UNAVAILABLE, f"both search backends failed: {searx.message}; {brave.message}"
        )
    warnings = [
        f"one search backend failed: {failed.message}" for failed in (searx, brave) if isinstance(failed, Exception)
    ]
    ranked: list[list[FoundHit]] = []
    engines: list[str] = []
    raw_bytes = 0
    if isinstance(searx, SearxAnswer):
        ranked.append(_searx_hits(searx))
        engines, raw_bytes = searx.engines, searx.raw_bytes
    if isinstance(brave, list):
        ranked.append([hit for hit in (_brave_hit(item) for item in brave) if hit is not None])
    return Found(hits=merged(ranked), engines=engines, warnings=warnings, raw_bytes=raw_bytes)


def _searx_hits(answer: SearxAnswer) -> list[FoundHit]:
    hits = []
    for item in answer.results:
        hit = parse_hit(item)
        if hit is None:
            continue
        score = item.get("score")
        engine = str(item.get("engine") or ", ".join(map(str, item.get("engines") or [])) or "searxng")
        hits.append(
            FoundHit(
                hit.title,
                hit.url,
                hit.snippet,
                ["searxng"],
                score=round(float(score), 4) if isinstance(score, int | float) else 0.0,
                engine=engine,
            )
        )
    return hits


def _brave_hit(item: BraveHit) -> FoundHit | None:
    texts = [
        snippet if isinstance(snippet, str) else msgspec.json.encode(snippet).decode() for snippet in item.snippets
    ]
    hit = parse_hit({"url": item.url, "title": item.title, "content": " ".join(texts)})
    if hit is None:
        return None
    chunks = [" ".join(text.split())[:MAX_CHUNK_CHARS] for text in texts[:MAX_CHUNKS] if text.strip()]
    return FoundHit(hit.title, hit.url, hit.snippet, ["brave"], engine="brave", chunks=chunks)


def merged(ranked: list[list[FoundHit]]) -> list[FoundHit]:
    """Every list's hits interleaved by rank; a URL found again only adds its finder to the first."""
    by_url: dict[str, FoundHit] = {}
    order: list[FoundHit] = []
    for position in range(max((len(hits) for hits in ranked), default=0)):
        for hits in ranked:
            if position >= len(hits):
                continue
            hit = hits[position]
            key = canonical_url(hit.url)
            first = by_url.get(key)
            if first is None:
                by_url[key] = hit
                order.append(hit)
            else:
                first.found_by = sorted({*first.found_by, *hit.found_by})
    return order


_TRACKING = frozenset({"gclid", "fbclid", "msclkid", "dclid", "yclid", "igshid", "mc_cid", "mc_eid", "ref_src", "_ga"})


def canonical_url(url: str) -> str:
    """The URL as a page's identity: no scheme, no ``www.``, no trailing slash, no tracking parameters."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    if parts.port and parts.port not in (80, 443):
        host = f"{host}:{parts.port}"
    query = sorted(
        (name, value)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
        if not name.lower().startswith("utm_") and name.lower() not in _TRACKING
    )
    return f"{host}{parts.path.rstrip('/')}" + (f"?{urlencode(query)}" if query else "")


async def ask_searxng(
    searxng_url: str, query: str, time_range: str | None, context: steward.InvocationContext
) -> SearxAnswer:
    """SearXNG's answer, or :class:`steward.CapabilityError` for each way it fails (never "no results")."""
    base = searxng_url.rstrip("/")
    parameters = {"q": as_text(query), "format": "json"}
    if time_range:
        parameters["time_range"] = time_range
    async with context.http_client(timeout=httpx.Timeout(8.0, connect=3.0)) as client:
        try:
            response = await client.get(f"{base}/search", params=parameters)
        except httpx.TimeoutException:
            raise steward.CapabilityError(
                steward.Code.UPSTREAM_UNAVAILABLE, f"SearXNG at {base} did not answer in time"
            ) from None
        except httpx.HTTPError as error:
            raise steward.CapabilityError(
                steward.Code.UPSTREAM_UNAVAILABLE, f"SearXNG at {base} cannot be reached ({type(error).__name__})"
            ) from None
        answer = _answer(response, base)
        answer.engines = sorted({_engine_name(item) for item in answer.unresponsive_engines})
        answer.raw_bytes = len(response.content)
        if not answer.results and answer.engines:
            await _refuse_unless_some_engine_answered(client, base, answer.engines)
    return answer


def as_text(query: str) -> str:
    """``query`` with every word SearXNG would read as a command quoted, so it is searched as text."""
    return " ".join(f'"{word}"' if word.startswith(_SEARXNG_COMMAND_PREFIXES) else word for word in query.split())


async def _refuse_unless_some_engine_answered(client: httpx.AsyncClient, base: str, failed: list[str]) -> None:
    """No results and failed engines: an outage only if no enabled engine is left that answered.

    SearXNG's ``/config`` lists the enabled engines and their categories; a search without a
    category asks the ``general`` ones. Without ``/config`` nobody can tell, and the failure says so.
    """
    enabled = await _enabled_engines(client, base)
    if enabled is None:
        raise steward.CapabilityError(
            steward.Code.UPSTREAM_UNAVAILABLE,
            f"no results, and these engines failed: {', '.join(failed)}; SearXNG's /config did not say "
            "whether any other engine answered",
        )
    if not enabled - set(failed):
        raise steward.CapabilityError(
            steward.Code.UPSTREAM_UNAVAILABLE,
            f"every search engine failed ({', '.join(failed)}); this is not an empty result",
        )


async def _enabled_engines(client: httpx.AsyncClient, base: str) -> set[str] | None:
    try:
        response = await client.get(f"{base}/config")
        engines = (
            msgspec.json.decode(response.content, type=_SearxConfig).engines if response.status_code == 200 else None
        )
    except (httpx.HTTPError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    if engines is None:
        return None
    return {engine.name for engine in engines if engine.enabled and DEFAULT_CATEGORY in engine.categories}


class _SearxEngine(msgspec.Struct):
    name: str
    enabled: bool = True
    categories: list[str] = []


class _SearxConfig(msgspec.Struct):
    engines: list[_SearxEngine]


def _answer(response: httpx.Response, base: str) -> SearxAnswer:
    if response.status_code == 403:
        raise steward.CapabilityError(
            steward.Code.UPSTREAM_UNAVAILABLE,
            f"SearXNG at {base} refuses JSON: add json to search.formats in its settings.yml",
        )
    if response.status_code == 429:
        raise steward.CapabilityError(
            steward.Code.UPSTREAM_UNAVAILABLE,
            f"SearXNG at {base} rate-limited the request: its limiter is on "
            "(server.limiter: false suits a private instance)",
        )
    if response.status_code == 400:
        try:
            reason = response.json().get("error", "bad request")
        except ValueError:
            reason = "bad request"
        raise steward.CapabilityError(
            steward.Code.UPSTREAM_UNAVAILABLE, f"SearXNG refused the query: {str(reason)[:200]}"
        )
    if response.status_code != 200:
        raise steward.CapabilityError(
            steward.Code.UPSTREAM_UNAVAILABLE, f"SearXNG at {base} answered HTTP {response.status_code}"
        )
    try:
        return msgspec.json.decode(response.content, type=SearxAnswer)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise steward.CapabilityError(
            steward.Code.UPSTREAM_UNAVAILABLE, f"SearXNG at {base} did not answer with search JSON"
        ) from None


def _engine_name(item: Any) -> str:
    name = item[0] if isinstance(item, list | tuple) and item else item
    return str(name)[:60]


def parse_hit(item: dict[str, Any]) -> SearchHit | None:
    """A result as a reader can use it; ``None`` for one whose URL is no web address to follow."""
    url = item.get("url")
    if not isinstance(url, str) or not _is_web_url(url):
        return None
    title = plain_text(str(item.get("title") or "")) or url
    snippet = plain_text(str(item.get("content") or ""))
    if len(snippet) > SNIPPET_CHARS:
        snippet = snippet[: SNIPPET_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return SearchHit(title=title[:300], url=url, snippet=snippet)


def _is_web_url(url: str) -> bool:
    """An http(s) URL with a host and a usable port (``http://[name]/`` and ``:port`` have neither)."""
    if not url.lower().startswith(("http://", "https://")):
        return False
    try:
        parts = urlsplit(url)
        return bool(parts.hostname) and (parts.port is None or parts.port > 0)
    except ValueError:
        return False


class _TextOnly(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def plain_text(fragment: str) -> str:
    """SearXNG's ``content`` may hold HTML (``<b>``, entities): text only, whitespace collapsed."""
    parser = _TextOnly()
    parser.feed(fragment)
    parser.close()
    return " ".join("".join(parser.parts).split())


def citations(result: SearchResult) -> list[steward.Citation]:
    return [steward.Citation(hit.title, hit.url) for hit in result.results]


async def searxng_health(settings: Any) -> str:
    base = settings.searxng_url.rstrip("/")
    async with steward.http_client(timeout=3) as client:
        try:
            response = await client.get(f"{base}/healthz")
        except httpx.HTTPError as error:
            raise RuntimeError(
                f"cannot be reached at {base} ({type(error).__name__}); web.search needs a SearXNG there "
                "([plugins.websearch] searxng_url; contrib/searxng/settings.yml configures one)"
            ) from None
    if response.status_code != 200:
        raise RuntimeError(f"SearXNG at {base} answered HTTP {response.status_code}")
    return f"answers at {base}"


def search_capability() -> steward.Capability:
    return steward.Capability(
        name="web.search",
        version=1,
        title="Search the web",
        action="Search the web for {query}",
        description="Search the web (through the household's SearXNG) and return up to 5 results "
        "with title, URL and snippet.",
        arguments=SearchArguments,
        result=SearchResult,
        side_effect=steward.SideEffect.READ_ONLY,
        network=steward.Network.EXTERNAL,
        handler=search,
        policy_key="web_search_enabled",
        bounds=steward.Bounds(timeout_seconds=10),
        citations=citations,
        surfaces=frozenset(steward.Surface) - {steward.Surface.SERVICE},
    )
