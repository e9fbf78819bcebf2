"""The fetch service's ``web.fetch`` and ``web.search``: the same capabilities, for agent fleets.

They are declared for the ``service`` surface only, so to the household's policy flag, to a
key's pre-approval and to the audit log they are simply web.fetch and web.search; what differs is
what they take and give. A model's web.fetch gets one URL and reports redirects; the service's
follows up to five (each hop through the whole guard), answers in ``clean``, ``raw`` or ``digest``
mode, applies jq to JSON, recovers refused pages from archives, and reads through the page cache.
"""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import re
from typing import Annotated, Literal

import msgspec

import steward
from steward_websearch.codes import WebsearchCode
from steward_websearch.extraction import (
    Document,
    InvalidContent,
    estimate_tokens,
    is_json,
    json_text,
    media_type,
    text_body,
)
from steward_websearch.net.fetch import FetchedPage, fetcher_for
from steward_websearch.service.archives import NoSnapshot, Snapshot, recover
from steward_websearch.service.digest import DigestUnavailable, digest
from steward_websearch.service.fetch_capability import HttpUrl, extract_isolated, reported_as_failures
from steward_websearch.service.jq_program import check_program, refuse_module_access, run_program
from steward_websearch.service.memory import MemoryItem, key_terms, page_terms, recall_context
from steward_websearch.service.page_cache import CachedPage, PageCache, SharedPageCache, lifetime
from steward_websearch.service.rerank import RerankUnavailable, similarities
from steward_websearch.service.search import TimeRange, find
from steward_websearch.settings import WebsearchSettings

JQ_CHECK_SECONDS = 5.0
"""How long compiling a caller's jq program may take in a worker before it is refused."""

MAX_RESULT_BYTES = 8 * 1024 * 1024
BLOCKED_STATUSES = frozenset({403, 429})


Question = Annotated[
    str,
    msgspec.Meta(min_length=1, max_length=2000, description="What the caller wants; focuses a digest or a ranking."),
]


class ServiceFetchArguments(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    url: HttpUrl
    question: Question | None = None
    mode: Annotated[
        Literal["clean", "raw", "digest"], msgspec.Meta(description="clean Markdown, the raw text, or a digest")
    ] = "clean"
    jq: Annotated[str, msgspec.Meta(min_length=1, max_length=2000, description="jq for a JSON response.")] | None = None
    recover: Annotated[bool, msgspec.Meta(description="Try archived copies when the site refuses.")] = False
    max_tokens: (
        Annotated[int, msgspec.Meta(ge=1, le=1_000_000, description="Cut to about this many tokens.")] | None
    ) = None
    include: Annotated[
        list[Literal["html", "raw_html", "links"]], msgspec.Meta(description="Extra forms of the page to return.")
    ] = []
    main_content_only: Annotated[
        bool, msgspec.Meta(description="false: the whole page, navigation and footers included.")
    ] = True
    max_age: Annotated[float, msgspec.Meta(ge=0, description="Seconds a cached copy may be old; 0 fetches.")] | None = (
        None
    )
    store: Annotated[bool, msgspec.Meta(description="false keeps this page out of the cache.")] = True
    error_pages: Annotated[
        bool,
        msgspec.Meta(
            description="true: a page the site answered with an error status (404, 500, …) is returned as "
            "content, its status in source.status, instead of failing (bot walls still fail)."
        ),
    ] = False
    timeout: Annotated[float, msgspec.Meta(gt=0, le=120, description="Seconds the request may take.")] | None = None
    context: Annotated[
        bool, msgspec.Meta(description="Add what the household's memory store holds about the page (read only).")
    ] = False


class FetchSource(msgspec.Struct, kw_only=True, omit_defaults=True):
    url: str
    final_url: str
    status: int
    content_type: str
    fetched_at: str
    hash: str
    bytes: int
    cached: bool
    redirects: int = 0
    snapshot: Snapshot | None = None


class Sizes(msgspec.Struct, kw_only=True):
    raw_tokens: int
    clean_tokens: int
    returned_tokens: int


class ServiceFetchResult(msgspec.Struct, kw_only=True, omit_defaults=True):
    content: str
    mode: str
    untrusted: bool
    source: FetchSource
    sizes: Sizes
    warnings: list[str]
    metadata: dict[str, str] = {}
    truncated: bool = False
    html: str | None = None
    raw_html: str | None = None
    links: list[str] | None = None
    context: list[MemoryItem] | None = None


class ServiceSearchArguments(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    query: Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
    k: Annotated[int, msgspec.Meta(ge=1, le=20)] = 5
    question: Question | None = None
    time_range: TimeRange | None = None
    rerank: Annotated[
        bool, msgspec.Meta(description="Order by meaning: cosine similarity of embeddings to the question or query.")
    ] = False
    digest: Annotated[bool, msgspec.Meta(description="Add one model-written digest of the top results.")] = False


class ServiceSearchHit(msgspec.Struct, kw_only=True):
    url: str
    title: str
    snippet: str
    chunks: list[str]
    score: float
    source: Literal["searxng", "brave_llm"]
    engine: str = ""
    found_by: list[str] = []


class ServiceSearchResult(msgspec.Struct, kw_only=True, omit_defaults=True):
    results: list[ServiceSearchHit]
    sizes: Sizes
    warnings: list[str]
    digest: str | None = None


class _Page(CachedPage, kw_only=True):
    """A page ready for any mode: fetched (or recovered) now, or read from the cache."""

    cached: bool = False
    redirects: int = 0
    snapshot: Snapshot | None = None


async def serve_fetch(arguments: ServiceFetchArguments, context: steward.InvocationContext) -> ServiceFetchResult:
    if arguments.timeout is None:
        return await _serve_fetch(arguments, context)
    try:
        async with asyncio.timeout(arguments.timeout):
            return await _serve_fetch(arguments, context)
    except TimeoutError:
        raise steward.CapabilityError(
            steward.Code.TIMEOUT, f"the fetch took longer than the {arguments.timeout:g} s asked for"
        ) from None


async def _serve_fetch(arguments: ServiceFetchArguments, context: steward.InvocationContext) -> ServiceFetchResult:
    settings: WebsearchSettings = context.settings
    warnings: list[str] = []
    page = await _page(arguments, context)
    document = page.document
    if "html" in arguments.include or not arguments.main_content_only:
        document = await extract_isolated(
            context,
            page.body,
            url=page.final_url,
            content_type=page.content_type,
            main_content_only=arguments.main_content_only,
            with_html="html" in arguments.include,
        )
    content, mode = await _content(page, document, arguments, context, warnings)
    limit = arguments.max_tokens or settings.service.max_tokens
    content, truncated = fit_tokens(content, limit)
    if truncated:
        warnings.append(f"content cut to about {limit} tokens")
    memory = None
    if arguments.context:
        terms = key_terms(content) if mode == "digest" else page_terms(document.title, document.markdown)
        memory = await recall_context(terms, context.caller, settings.context, context.data_dir, warnings)
    if page.snapshot is not None:
        warnings.append(
            f"the site refused; this is an archived copy from {page.snapshot.captured_at or 'an unknown date'}"
        )
    result = ServiceFetchResult(
        content=content,
        mode=mode,
        untrusted=True,
        source=FetchSource(
            url=arguments.url,
            final_url=page.final_url,
            status=page.status,
            content_type=media_type(page.content_type)[0],
            fetched_at=page.fetched_at,
            hash="sha256:" + hashlib.sha256(page.body).hexdigest(),
            bytes=len(page.body),
            cached=page.cached,
            redirects=page.redirects,
            snapshot=page.snapshot,
        ),
        sizes=Sizes(
            raw_tokens=document.raw_tokens,
            clean_tokens=document.clean_tokens,
            returned_tokens=estimate_tokens(content) + sum(estimate_tokens(item.content) for item in memory or []),
        ),
        warnings=warnings,
        metadata=document.metadata,
        truncated=truncated,
        context=memory,
    )
    if "links" in arguments.include:
        result.links = document.links
    if "html" in arguments.include:
        result.html, cut = fit_tokens(document.html, limit)
        result.truncated = result.truncated or cut
    if "raw_html" in arguments.include:
        result.raw_html, cut = fit_tokens(_raw(page), limit)
        result.truncated = result.truncated or cut
    return result


async def _content(
    page: _Page,
    document: Document,
    arguments: ServiceFetchArguments,
    context: steward.InvocationContext,
    warnings: list[str],
) -> tuple[str, str]:
    """(content, the mode it is in): jq or raw or clean, then a digest of it if asked."""
    settings: WebsearchSettings = context.settings
    mode = arguments.mode
    if arguments.jq:
        content = await _jq(page, arguments.jq, context)
    elif mode == "raw":
        content = _raw(page)
    else:
        content = document.markdown
    if mode == "digest":
        try:
            content = await digest(content, arguments.question, settings.digest, title=document.title)
        except DigestUnavailable as error:
            warnings.append(f"digest unavailable ({error}); returned clean content instead")
            mode = "clean"
    return content, mode


async def _page(arguments: ServiceFetchArguments, context: steward.InvocationContext) -> _Page:
    settings: WebsearchSettings = context.settings
    with reported_as_failures():
        settings.guard().check_url(arguments.url)
    cache = page_cache(context) if settings.cache.enabled else None
    if cache is not None and arguments.max_age != 0:
        hit = await cache.aget(arguments.url, max_age=arguments.max_age)
        if hit is not None:
            return _Page(**msgspec.structs.asdict(hit), cached=True)
    fetched, snapshot = await _fetch(arguments, settings, context.resources)
    page = _Page(
        final_url=fetched.final_url,
        status=fetched.status,
        content_type=fetched.content_type,
        fetched_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        body=fetched.body,
        document=await extract_isolated(
            context, fetched.body, url=fetched.final_url, content_type=fetched.content_type
        ),
        redirects=fetched.redirects,
        snapshot=snapshot,
    )
    if cache is not None and arguments.store and snapshot is None and not fetched.truncated and fetched.status < 300:
        ttl = lifetime(
            fetched.headers, default=settings.cache.default_ttl_seconds, maximum=settings.cache.max_ttl_seconds
        )
        await cache.aput(arguments.url, page, ttl)
    return page


async def _fetch(
    arguments: ServiceFetchArguments, settings: WebsearchSettings, resources: steward.Resources
) -> tuple[FetchedPage, Snapshot | None]:
    fetcher = await fetcher_for(resources, settings.guard(), settings.limits(), settings.ca_bundle)
    with reported_as_failures():
        page = await fetcher.follow(arguments.url)
    if 200 <= page.status < 300:
        return page, None
    if not looks_blocked(page) and arguments.error_pages:
        return page, None
    if not looks_blocked(page):
        code = steward.Code.UPSTREAM_UNAVAILABLE if page.status >= 500 else WebsearchCode.FETCH_HTTP_ERROR
        raise steward.CapabilityError(code, f"upstream {page.status}", details={"upstream_status": page.status})
    refusal = f"upstream {page.status} (likely bot-blocked)"
    upstream = {"upstream_status": page.status}
    if not arguments.recover:
        raise steward.CapabilityError(WebsearchCode.UPSTREAM_BLOCKED, refusal, details=upstream)
    try:
        return await recover(fetcher, page.final_url, settings.recover)
    except NoSnapshot as error:
        raise steward.CapabilityError(
            WebsearchCode.UPSTREAM_BLOCKED, f"{refusal}; no archived copy either ({error})", details=upstream
        ) from None


def looks_blocked(page: FetchedPage) -> bool:
    """403 and 429, and the 503 challenge pages bot walls answer with."""
    if page.status in BLOCKED_STATUSES:
        return True
    return page.status == 503 and (
        page.headers.get("cf-mitigated") == "challenge" or b"Just a moment..." in page.body[:4096]
    )


def _raw(page: _Page) -> str:
    with reported_as_failures():
        return text_body(page.body, page.content_type)


async def _jq(page: _Page, program: str, context: steward.InvocationContext) -> str:
    """The caller's program over the page, in an isolated worker: no environment, no files, limits."""
    kind, charset = media_type(page.content_type)
    if not is_json(kind):
        raise steward.CapabilityError(
            WebsearchCode.JQ_NOT_APPLICABLE, f"jq applies to JSON, and this is {page.content_type!r}"
        )
    try:
        return await context.isolated.run(run_program, program, json_text(page.body, charset), result_type=str)
    except InvalidContent as error:
        raise steward.CapabilityError(WebsearchCode.JQ_FAILED, str(error)) from None
    except steward.IsolatedJobFailed as error:
        raise steward.CapabilityError(WebsearchCode.JQ_FAILED, f"jq: the program was stopped: {error}") from None


def fit_tokens(text: str, max_tokens: int) -> tuple[str, bool]:
    """``text`` cut at a word boundary to about ``max_tokens`` tokens (four characters each)."""
    limit = max_tokens * 4
    if len(text) <= limit:
        return text, False
    cut = text[:limit]
    boundary = max(cut.rfind(" "), cut.rfind("\n"))
    return (cut[:boundary] if boundary > limit // 2 else cut).rstrip(), True


async def check_jq(arguments: ServiceFetchArguments, context: steward.InvocationContext) -> steward.Rejection | None:
    """Stage 3: a jq program that does not compile is the caller's mistake, refused before any fetch.

    Compiled in an isolated worker, never in the server: compiling may try to read files.
    """
    if arguments.jq:
        try:
            refuse_module_access(arguments.jq)
            await context.isolated.run(check_program, arguments.jq, result_type=type(None), timeout=JQ_CHECK_SECONDS)
        except InvalidContent as error:
            return steward.Rejection(steward.Code.INVALID_ARGUMENTS, str(error))
        except (steward.IsolatedJobFailed, TimeoutError) as error:
            return steward.Rejection(steward.Code.INVALID_ARGUMENTS, f"jq: the program could not be checked: {error}")
    return None


def page_cache(context: steward.InvocationContext) -> PageCache | SharedPageCache:
    """This host's page cache: in the shared store when there is one, else one SQLite file."""
    max_bytes = context.settings.cache.max_bytes
    if context.state.shared:
        return SharedPageCache(context.state, max_bytes=max_bytes)
    path = context.data_dir / "websearch" / "pages.sqlite3"
    return context.resources.get(("page-cache", path), lambda: PageCache(path, max_bytes=max_bytes))


async def serve_search(arguments: ServiceSearchArguments, context: steward.InvocationContext) -> ServiceSearchResult:
    found = await find(arguments.query, arguments.time_range, context, count=arguments.k)
    hits = [
        ServiceSearchHit(
            url=hit.url,
            title=hit.title,
            snippet=hit.snippet,
            chunks=hit.chunks or ([hit.snippet] if hit.snippet else []),
            score=hit.score,
            source="brave_llm" if hit.engine == "brave" else "searxng",
            engine=hit.engine,
            found_by=hit.found_by,
        )
        for hit in found.hits
    ]
    warnings = list(found.warnings)
    if arguments.rerank and hits:
        try:
            hits = await reranked(hits, arguments.question or arguments.query, context)
        except RerankUnavailable as error:
            warnings.append(f"not reranked, in the engines' order: {error}")
    elif arguments.question:
        hits = rank_by_question(hits, arguments.question)
    hits = hits[: arguments.k]
    if found.engines:
        warnings.append(f"engines that did not answer: {', '.join(found.engines)}")
        if not hits:
            warnings.append("no results from the engines that answered")
    summary = None
    if arguments.digest and hits:
        try:
            summary = await digest(
                results_as_page(hits), arguments.question or arguments.query, context.settings.digest
            )
        except DigestUnavailable as error:
            warnings.append(f"no digest, the results alone: {error}")
    returned = sum(estimate_tokens(f"{hit.title} {hit.url} {' '.join(hit.chunks)}") for hit in hits)
    returned += estimate_tokens(summary or "")
    return ServiceSearchResult(
        results=hits,
        sizes=Sizes(raw_tokens=(found.raw_bytes + 3) // 4, clean_tokens=returned, returned_tokens=returned),
        warnings=warnings,
        digest=summary,
    )


async def reranked(
    hits: list[ServiceSearchHit], query: str, context: steward.InvocationContext
) -> list[ServiceSearchHit]:
    """``hits`` by cosine similarity to ``query`` (ties keep the engines' order); ``score`` is that similarity."""
    texts = [f"{hit.title}\n{' '.join(hit.chunks) or hit.snippet}" for hit in hits]
    for hit, score in zip(hits, await similarities(query, texts, context.settings.rerank, context), strict=True):
        hit.score = score
    return sorted(hits, key=lambda hit: hit.score, reverse=True)


def results_as_page(hits: list[ServiceSearchHit]) -> str:
    """The top results as one quoted page for the digest: numbered, each with its URL and passages."""
    return "\n\n".join(
        f"[{number}] {hit.title}\n{hit.url}\n{' '.join(hit.chunks) or hit.snippet}"
        for number, hit in enumerate(hits, start=1)
    )


_WORD = re.compile(r"\w+")


def rank_by_question(hits: list[ServiceSearchHit], question: str) -> list[ServiceSearchHit]:
    """Results that share more words with the question first; SearXNG's order breaks ties."""
    wanted = {word.lower() for word in _WORD.findall(question)}

    def overlap(hit: ServiceSearchHit) -> int:
        return len(wanted & {word.lower() for word in _WORD.findall(f"{hit.title} {hit.snippet}")})

    return sorted(hits, key=overlap, reverse=True)


def service_capabilities() -> list[steward.Capability]:
    only_service = frozenset({steward.Surface.SERVICE})
    return [
        steward.Capability(
            name="web.fetch",
            version=1,
            title="Read a web page",
            action="Read the page {url} for an agent",
            description="The fetch service: one page through the guard, redirects followed, as clean Markdown, "
            "raw text, a jq selection or a question-focused digest.",
            arguments=ServiceFetchArguments,
            result=ServiceFetchResult,
            side_effect=steward.SideEffect.READ_ONLY,
            network=steward.Network.EXTERNAL,
            handler=serve_fetch,
            policy_key="web_search_enabled",
            policy_check=check_jq,
            bounds=steward.Bounds(timeout_seconds=120, max_result_bytes=MAX_RESULT_BYTES),
            surfaces=only_service,
        ),
        steward.Capability(
            name="web.search",
            version=1,
            title="Search the web",
            action="Search the web for {query} for an agent",
            description="The fetch service: up to 20 results from the household's SearXNG (and Brave), "
            "optionally reranked by meaning and digested by the model.",
            arguments=ServiceSearchArguments,
            result=ServiceSearchResult,
            side_effect=steward.SideEffect.READ_ONLY,
            network=steward.Network.EXTERNAL,
            handler=serve_search,
            policy_key="web_search_enabled",
            bounds=steward.Bounds(timeout_seconds=60),
            surfaces=only_service,
        ),
    ]
