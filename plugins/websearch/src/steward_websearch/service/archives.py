"""Archived copies of a page that refuses us: the Wayback Machine first, then other archives.

Every request here is an ordinary guarded fetch (the archive's address and every redirect hop
are checked like any other), so an archive cannot be used to reach the household's network.
The Wayback Machine is asked through its availability API and the snapshot is fetched in its
``id_`` form, the page as archived without the archive's toolbar around it.
"""

from __future__ import annotations

import datetime
import email.utils
import re
from urllib.parse import quote

import httpx
import msgspec

from steward_websearch.net.fetch import FetchedPage, Fetcher, FetchFailed
from steward_websearch.net.guard import TargetRejected
from steward_websearch.settings import RecoverSettings

_WAYBACK_SNAPSHOT = re.compile(r"^(?P<base>.*?/web/)(?P<stamp>\d{14})(?:[a-z]{2}_)?/(?P<url>.+)$")


class Snapshot(msgspec.Struct, kw_only=True):
    """Where a recovered copy came from, and when it was archived (ISO 8601, or empty if unknown)."""

    archive: str
    url: str
    captured_at: str


class _Closest(msgspec.Struct):
    available: bool = False
    url: str = ""
    timestamp: str = ""
    status: str = ""


class _Snapshots(msgspec.Struct):
    closest: _Closest | None = None


class _Availability(msgspec.Struct):
    archived_snapshots: _Snapshots = msgspec.field(default_factory=_Snapshots)


class NoSnapshot(Exception):
    """No archive had a copy; the message says what each one answered."""


async def recover(fetcher: Fetcher, url: str, settings: RecoverSettings) -> tuple[FetchedPage, Snapshot]:
    """The first archived copy of ``url`` that answers 200; :class:`NoSnapshot` when none has one."""
    misses: list[str] = []
    found = await _wayback(fetcher, url, settings.wayback_url, misses)
    if found is not None:
        return found
    for template in settings.archives:
        page = await _get(fetcher, template.replace("{url}", url), misses)
        if page is not None:
            captured = _memento_datetime(page.headers.get("memento-datetime", ""))
            return page, Snapshot(archive=_site(page.final_url), url=page.final_url, captured_at=captured)
    raise NoSnapshot("; ".join(misses) or "no archive is configured")


async def _wayback(fetcher: Fetcher, url: str, base: str, misses: list[str]) -> tuple[FetchedPage, Snapshot] | None:
    if not base:
        return None
    answer = await _get(fetcher, f"{base.rstrip('/')}/wayback/available?url={quote(url, safe='')}", misses)
    if answer is None:
        return None
    try:
        closest = msgspec.json.decode(answer.body, type=_Availability).archived_snapshots.closest
    except (msgspec.DecodeError, msgspec.ValidationError):
        misses.append("wayback: the availability API did not answer with its JSON")
        return None
    if closest is None or not closest.available or closest.status not in ("", "200"):
        misses.append("wayback: no snapshot")
        return None
    match = _WAYBACK_SNAPSHOT.match(closest.url)
    snapshot_url = f"{match['base']}{match['stamp']}id_/{match['url']}" if match else closest.url
    page = await _get(fetcher, snapshot_url, misses)
    if page is None:
        return None
    captured = _wayback_timestamp(closest.timestamp)
    return page, Snapshot(archive="wayback", url=snapshot_url, captured_at=captured)


async def _get(fetcher: Fetcher, url: str, misses: list[str]) -> FetchedPage | None:
    host = _site(url)
    try:
        page = await fetcher.follow(url)
    except TargetRejected as error:
        misses.append(f"{host}: {error}")
        return None
    except FetchFailed as error:
        misses.append(f"{host}: {error.message}")
        return None
    if page.status != 200:
        misses.append(f"{host}: HTTP {page.status}")
        return None
    return page


def _site(url: str) -> str:
    """``host[:port]`` of an archive URL, to name the archive."""
    try:
        return httpx.URL(url).netloc.decode("ascii")
    except (httpx.InvalidURL, UnicodeDecodeError):
        return url[:100]


def _wayback_timestamp(stamp: str) -> str:
    try:
        moment = datetime.datetime.strptime(stamp, "%Y%m%d%H%M%S").replace(tzinfo=datetime.UTC)
    except ValueError:
        return ""
    return moment.isoformat(timespec="seconds")


def _memento_datetime(value: str) -> str:
    try:
        return email.utils.parsedate_to_datetime(value).astimezone(datetime.UTC).isoformat(timespec="seconds")
    except (TypeError, ValueError):
        return ""
