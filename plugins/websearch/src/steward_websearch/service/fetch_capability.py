"""``web.fetch``: one page, through the guard, as readable Markdown that fits the result bound.

It never follows a redirect: it reports it (``redirected: true``, ``final_url`` = the target,
empty text), so a person who approved one URL never finds that another was fetched. Extraction
runs in an isolated worker process (html5lib is pure Python: in the server it would stall the
event loop, and a hostile page could keep a thread busy long after its deadline).
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Iterator
from typing import Annotated

import msgspec

import steward
from steward_websearch.codes import WebsearchCode
from steward_websearch.extraction import (
    Document,
    InvalidContent,
    PageTooComplex,
    UnsupportedContent,
    extract,
    media_type,
)
from steward_websearch.net.fetch import FetchFailed, fetcher_for
from steward_websearch.net.guard import TargetRejected, UnresolvableHost

MAX_RESULT_BYTES = 65536
_ENVELOPE_MARGIN = 256


HttpUrl = Annotated[
    str,
    msgspec.Meta(min_length=8, max_length=2048, pattern=r"^[Hh][Tt][Tt][Pp][Ss]?://", description="An http(s) URL."),
]


class FetchArguments(msgspec.Struct, forbid_unknown_fields=True):
    url: HttpUrl


class FetchResult(msgspec.Struct, kw_only=True):
    url: str
    final_url: str
    content_type: str
    title: str
    text: str
    truncated: bool
    redirected: bool
    retrieved_at: str


async def fetch(arguments: FetchArguments, context: steward.InvocationContext) -> FetchResult:
    settings = context.settings
    fetcher = await fetcher_for(context.resources, settings.guard(), settings.limits(), settings.ca_bundle)
    with reported_as_failures():
        page = await fetcher.get(arguments.url)
    now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    kind = media_type(page.content_type)[0]
    if page.location is not None:
        return FetchResult(
            url=arguments.url,
            final_url=page.location,
            content_type=kind,
            title="",
            text="",
            truncated=False,
            redirected=True,
            retrieved_at=now,
        )
    if page.status >= 400 or page.status < 200:
        code = steward.Code.UPSTREAM_UNAVAILABLE if page.status >= 500 else WebsearchCode.FETCH_HTTP_ERROR
        raise steward.CapabilityError(
            code, f"the page answered HTTP {page.status}", details={"upstream_status": page.status}
        )
    document = await extract_isolated(context, page.body, url=arguments.url, content_type=page.content_type)
    result = FetchResult(
        url=arguments.url,
        final_url=arguments.url,
        content_type=kind,
        title=document.title[:500],
        text="",
        truncated=page.truncated,
        redirected=False,
        retrieved_at=now,
    )
    budget = MAX_RESULT_BYTES - len(msgspec.json.encode(result)) - _ENVELOPE_MARGIN
    result.text, cut = fit_text(document.markdown, budget)
    result.truncated = result.truncated or cut
    return result


async def extract_isolated(
    context: steward.InvocationContext, body: bytes, *, url: str, content_type: str, **options: bool
) -> Document:
    """:func:`extract` in one of the host's isolated workers, stopped at the invocation's deadline.

    It may open files: codecs for the page's charset load lazily. The page is data, not a program.
    The service reads a page's Markdown only, so its plain text is never rendered (``with_text``).
    """
    with reported_as_failures():
        return await context.isolated.run(
            extract,
            body,
            url=url,
            content_type=content_type,
            with_text=False,
            result_type=Document,
            file_access=True,
            **options,
        )


@contextlib.contextmanager
def reported_as_failures() -> Iterator[None]:
    """The guard's, the fetcher's and extraction's exceptions as the outcome codes web.fetch reports."""
    try:
        yield
    except UnresolvableHost as error:
        raise steward.CapabilityError(
            WebsearchCode.DNS_RESOLUTION_FAILED, str(error), details={"reason": error.reason}
        ) from None
    except TargetRejected as error:
        raise steward.CapabilityError(
            steward.Code.FETCH_TARGET_REJECTED, str(error), details={"reason": error.reason}
        ) from None
    except FetchFailed as error:
        raise steward.CapabilityError(error.code, error.message) from None
    except UnsupportedContent as error:
        raise steward.CapabilityError(steward.Code.UNSUPPORTED_CONTENT_TYPE, str(error)) from None
    except InvalidContent as error:
        raise steward.CapabilityError(WebsearchCode.INVALID_CONTENT, str(error)) from None
    except PageTooComplex as error:
        raise steward.CapabilityError(WebsearchCode.EXTRACTION_FAILED, str(error)) from None
    except steward.IsolatedJobFailed as error:
        raise steward.CapabilityError(
            WebsearchCode.EXTRACTION_FAILED, f"the content could not be processed: {error}"
        ) from None


def fit_text(text: str, budget: int) -> tuple[str, bool]:
    """``text`` cut (at a word boundary) so that its JSON encoding takes at most ``budget`` bytes."""
    size = len(msgspec.json.encode(text))
    if size <= budget:
        return text, False
    cut = int(len(text) * budget / size)
    while cut > 0 and len(msgspec.json.encode(text[:cut])) > budget:
        cut = int(cut * 0.95)
    shortened = text[:cut]
    boundary = shortened.rfind(" ", max(0, cut - 200))
    return (shortened[:boundary] if boundary > 0 else shortened).rstrip(), True


def fetch_capability() -> steward.Capability:
    return steward.Capability(
        name="web.fetch",
        version=1,
        title="Read a web page",
        action="Read the page {url}",
        description="Fetch one web page (http or https) and return its readable content as Markdown. "
        "Redirects are reported, not followed.",
        arguments=FetchArguments,
        result=FetchResult,
        side_effect=steward.SideEffect.READ_ONLY,
        network=steward.Network.EXTERNAL,
        handler=fetch,
        policy_key="web_search_enabled",
        bounds=steward.Bounds(timeout_seconds=15, max_result_bytes=MAX_RESULT_BYTES),
        surfaces=frozenset(steward.Surface) - {steward.Surface.SERVICE},
        citations=lambda result: (
            [] if result.redirected else [steward.Citation(result.title or result.url, result.url)]
        ),
    )
