"""Memory context for ``/v1/fetch {"context": true}``: what the household's memory store already
holds about the page's subject, retrieved, never written.

A few key terms are drawn from the page (from its digest when there is one, else its title and
headings), the memory backend is asked once, and what it returns is trimmed to a cap. The
workspace is the caller's: ``[plugins.websearch.context] workspaces`` maps key names to
workspaces (``default_workspace`` for the others), and no request can name one, so one agent
cannot read another household member's memory by asking. A memory store that is down, slow or
answers wrongly costs a warning, never the fetch.

The first backend is Honcho (``POST /v3/workspaces/{workspace}/search {query, limit}``, which
answers with messages). Another store is a :class:`MemoryBackend` a plugin package declares under
the entry-point group ``steward_websearch.memory`` (``name = "module:factory"``, the factory
taking the ``[plugins.websearch.context]`` settings and the data directory), chosen with
``backend = "name"``.
"""

from __future__ import annotations

import collections
import functools
import importlib.metadata
import re
from collections.abc import Callable
from pathlib import Path
from typing import Protocol
from urllib.parse import quote

import httpx
import msgspec

import steward
from steward_websearch.service.secret_files import HONCHO_KEY
from steward_websearch.service.upstream import UpstreamFailed, post_json
from steward_websearch.settings import ContextSettings

ENTRY_POINT_GROUP = "steward_websearch.memory"
MAX_ANSWER_BYTES = 1024 * 1024
MAX_ITEM_CHARS = 1000
MAX_TERMS = 6


class MemoryItem(msgspec.Struct, kw_only=True):
    """One thing the memory store holds: a message, a conclusion, a summary (``kind``), whose (``peer``)."""

    kind: str
    peer: str
    content: str
    created_at: str


class MemoryUnavailable(Exception):
    """No context this time; the message says why (for the warning)."""


class MemoryBackend(Protocol):
    """A memory store the fetch service can ask: retrieval only, one workspace at a time."""

    async def recall(self, query: str, workspace: str, limit: int) -> list[MemoryItem]:
        """At most ``limit`` items about ``query`` in ``workspace``; :class:`MemoryUnavailable` when it cannot."""
        ...

    async def check(self) -> str:
        """For ``/healthz``: where the store answers; :class:`MemoryUnavailable` when it does not."""
        ...


class _HonchoMessage(msgspec.Struct):
    content: str
    peer_id: str = ""
    created_at: str = ""


class HonchoMemory:
    """Honcho's workspace search: its matching messages, as items of kind ``message``."""

    def __init__(self, settings: ContextSettings, data_dir: Path) -> None:
        self.base = settings.honcho_url.rstrip("/")
        self.timeout = settings.timeout
        self.data_dir = data_dir

    async def recall(self, query: str, workspace: str, limit: int) -> list[MemoryItem]:
        try:
            raw = await post_json(
                steward.http_client,
                f"{self.base}/v3/workspaces/{quote(workspace, safe='')}/search",
                {"query": query, "limit": limit},
                what=f"Honcho at {self.base}",
                timeout=self.timeout,
                max_bytes=MAX_ANSWER_BYTES,
                api_key=HONCHO_KEY.read(self.data_dir),
            )
        except UpstreamFailed as error:
            raise MemoryUnavailable(str(error)) from None
        try:
            messages = msgspec.json.decode(raw, type=list[_HonchoMessage])
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            raise MemoryUnavailable(f"Honcho at {self.base} did not answer with messages ({error})") from None
        return [
            MemoryItem(kind="message", peer=message.peer_id, content=message.content, created_at=message.created_at)
            for message in messages[:limit]
        ]

    async def check(self) -> str:
        try:
            async with steward.http_client(timeout=httpx.Timeout(self.timeout)) as client:
                response = await client.get(f"{self.base}/health")
        except httpx.HTTPError as error:
            raise MemoryUnavailable(f"Honcho cannot be reached at {self.base} ({type(error).__name__})") from None
        if response.status_code != 200:
            raise MemoryUnavailable(f"Honcho at {self.base} answered HTTP {response.status_code}")
        return f"Honcho answers at {self.base}"


def memory_backend(settings: ContextSettings, data_dir: Path) -> MemoryBackend | None:
    """The configured backend; ``None`` when memory context is off (no ``honcho_url``, no other backend)."""
    if settings.backend == "honcho":
        return HonchoMemory(settings, data_dir) if settings.honcho_url else None
    factory = _declared_backends().get(settings.backend)
    if factory is None:
        return _Missing(f"no memory backend named {settings.backend!r} is installed ({ENTRY_POINT_GROUP})")
    return factory(settings, data_dir)


class _Missing:
    """A backend the settings name but no installed package declares: every use says so."""

    def __init__(self, problem: str) -> None:
        self.problem = problem

    async def recall(self, query: str, workspace: str, limit: int) -> list[MemoryItem]:
        raise MemoryUnavailable(self.problem)

    async def check(self) -> str:
        raise MemoryUnavailable(self.problem)


@functools.cache
def _declared_backends() -> dict[str, Callable[[ContextSettings, Path], MemoryBackend]]:
    return {entry.name: entry.load() for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


async def recall_context(
    terms: list[str], caller: str, settings: ContextSettings, data_dir: Path, warnings: list[str]
) -> list[MemoryItem]:
    """What memory holds about ``terms``, for ``caller``'s workspace; problems become ``warnings``."""
    workspace = settings.workspaces.get(caller) or settings.default_workspace
    if not workspace:
        warnings.append("no memory context: this key has no memory workspace ([plugins.websearch.context])")
        return []
    if not terms:
        warnings.append("no memory context: the page gave no key terms to ask with")
        return []
    try:
        backend = memory_backend(settings, data_dir)
        if backend is None:
            warnings.append("no memory context: no memory store is configured ([plugins.websearch.context])")
            return []
        items = await backend.recall(" ".join(terms), workspace, settings.limit)
    except MemoryUnavailable as error:
        warnings.append(f"no memory context: {error}")
        return []
    return trimmed(items, settings.max_chars)


def trimmed(items: list[MemoryItem], max_chars: int) -> list[MemoryItem]:
    """Each item cut to ``MAX_ITEM_CHARS``, and as many as fit ``max_chars`` in all, in the store's order."""
    kept, used = [], 0
    for item in items:
        content = item.content[:MAX_ITEM_CHARS]
        if used + len(content) > max_chars:
            break
        used += len(content)
        kept.append(
            MemoryItem(kind=item.kind[:40], peer=item.peer[:200], content=content, created_at=item.created_at[:40])
        )
    return kept


_WORD = re.compile(r"[^\W\d_][\w'-]*[^\W_]", re.UNICODE)
_COMMON = frozenset(
    """about above after again against also among another because been before being below between both
    could does doing down during each every from further have having here into itself just more most
    much must never only other ought over same should some such than that their theirs them then there
    these they this those through under until very were what when where which while whom whose will
    with within without would your yours page pages home menu search read more""".split()
)


def key_terms(text: str) -> list[str]:
    """Three to six words that say what ``text`` is about: its most frequent words of four letters or
    more that are not among the commonest, ties going to the earlier word; fewer when it has fewer."""
    counts: collections.Counter[str] = collections.Counter()
    first_seen: dict[str, int] = {}
    for position, match in enumerate(_WORD.finditer(text)):
        word = match.group().lower()
        if len(word) < 4 or word in _COMMON:
            continue
        counts[word] += 1
        first_seen.setdefault(word, position)
    ranked = sorted(counts, key=lambda word: (-counts[word], first_seen[word]))
    return ranked[:MAX_TERMS]


def page_terms(title: str, markdown: str) -> list[str]:
    """A page's key terms: those of its title and headings first, then, while fewer than six,
    the most frequent of its text's opening (a page with no headings still says what it is about)."""
    headings = [line.lstrip("#").strip() for line in markdown.splitlines() if line.startswith("#")]
    terms = key_terms("\n".join([title, *headings]))
    for term in key_terms(markdown[:4000]):
        if len(terms) >= MAX_TERMS:
            break
        if term not in terms:
            terms.append(term)
    return terms
