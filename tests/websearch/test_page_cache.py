"""The fetch service's page cache: lifetimes from caching headers, URL keys, bounds, and several
processes writing one file at once."""

import asyncio
import multiprocessing
import os
import signal
import time
from pathlib import Path

import pytest
from steward_websearch.extract import Document
from steward_websearch.service.page_cache import CachedPage, PageCache, SharedPageCache, lifetime, normalise_url

from steward._state import RedisState
from steward.testing import FakeClock

DAY, WEEK = 24 * 3600, 7 * 24 * 3600


def page(url: str, body: bytes = b"<p>kettles</p>", markdown: str = "kettles") -> CachedPage:
    document = Document(
        title="Kettles",
        markdown=markdown,
        text=markdown,
        metadata={"title": "Kettles"},
        content_type="text/html",
        raw_tokens=4,
        clean_tokens=2,
        links=[f"{url}#more"],
    )
    return CachedPage(
        final_url=url,
        status=200,
        content_type="text/html",
        fetched_at="2026-11-30T10:00:00+00:00",
        body=body,
        document=document,
    )


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({}, DAY),
        ({"cache-control": "max-age=60"}, 60),
        ({"cache-control": "public, s-maxage=30, max-age=60"}, 30),
        ({"cache-control": "max-age=99999999"}, WEEK),
        ({"cache-control": "no-store"}, 0),
        ({"cache-control": "private, max-age=600"}, 0),
        ({"cache-control": "no-cache"}, 0),
        ({"cache-control": "max-age=0"}, 0),
        ({"cache-control": "max-age=soon"}, 0),
        ({"expires": "Thu, 01 Jan 1970 00:00:00 GMT"}, 0),
        ({"expires": "not a date"}, 0),
        ({"expires": "Mon, 30 Nov 2026 11:00:00 GMT"}, 3600),
        ({"expires": "Mon, 30 Nov 2026 11:00:00 GMT", "cache-control": "max-age=5"}, 5),
    ],
)
def test_lifetime_comes_from_the_response(headers, seconds):
    now = 1796032800.0  # Mon, 30 Nov 2026 10:00:00 GMT
    assert lifetime(headers, default=DAY, maximum=WEEK, now=now) == seconds


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("HTTP://Example.ORG", "http://example.org/"),
        ("https://example.org:443/a?b=2&a=1#top", "https://example.org/a?b=2&a=1"),
        ("http://example.org:8080/x", "http://example.org:8080/x"),
    ],
)
def test_urls_are_normalised(url, key):
    assert normalise_url(url) == key


def test_hits_expire_and_honour_max_age(tmp_path):
    clock = FakeClock()
    cache = PageCache(tmp_path / "pages.sqlite3", max_bytes=1 << 20, clock=clock)
    cache.put("http://example.org/old", page("http://example.org/new"), ttl=60)
    hit = cache.get("http://EXAMPLE.org/old#x")
    assert hit is not None
    assert hit.final_url == "http://example.org/new"
    assert hit.document.links == ["http://example.org/new#more"]
    assert hit.body == b"<p>kettles</p>"
    assert cache.get("http://example.org/new") is not None
    clock.advance(30)
    assert cache.get("http://example.org/new", max_age=10) is None
    assert cache.get("http://example.org/new", max_age=40) is not None
    clock.advance(31)
    assert cache.get("http://example.org/old") is None
    cache.put("http://example.org/gone", page("http://example.org/gone"), ttl=0)
    assert cache.get("http://example.org/gone") is None
    assert oct((tmp_path / "pages.sqlite3").stat().st_mode & 0o777) == "0o600"


def test_the_file_stays_under_its_bound_dropping_the_least_recently_used(tmp_path):
    clock = FakeClock()
    body = os.urandom(40_000)  # incompressible
    cache = PageCache(tmp_path / "pages.sqlite3", max_bytes=100_000, clock=clock)
    for name in ("a", "b"):
        cache.put(f"http://example.org/{name}", page(f"http://example.org/{name}", body), ttl=600)
        clock.advance(1)
    assert cache.get("http://example.org/a") is not None  # a is now more recent than b
    clock.advance(1)
    cache.put("http://example.org/c", page("http://example.org/c", body), ttl=600)
    assert cache.size() <= 100_000
    assert cache.get("http://example.org/b") is None
    assert cache.get("http://example.org/a") is not None
    assert cache.get("http://example.org/c") is not None
    cache.put("http://example.org/huge", page("http://example.org/huge", os.urandom(200_000)), ttl=600)
    assert cache.get("http://example.org/huge") is None, "a page larger than the whole cache is not kept"


def _writer(path: str, worker: int, count: int) -> None:
    cache = PageCache(Path(path), max_bytes=50 << 20)
    for n in range(count):
        url = f"http://example.org/{worker}/{n}"
        cache.put(url, page(url, body=f"worker {worker} page {n}".encode() * 50), ttl=600)
        if cache.get(url) is None:
            raise SystemExit(f"worker {worker} lost its own page {n}")


def test_several_processes_share_one_file(tmp_path):
    path = tmp_path / "pages.sqlite3"
    PageCache(path, max_bytes=50 << 20).close()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(str(path), worker, 100)) for worker in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(60)
    assert [process.exitcode for process in workers] == [0, 0, 0, 0]
    cache = PageCache(path, max_bytes=50 << 20)
    for worker in range(4):
        for n in (0, 57, 99):
            hit = cache.get(f"http://example.org/{worker}/{n}")
            assert hit is not None
            assert hit.body == f"worker {worker} page {n}".encode() * 50


@pytest.fixture
def shared_stores(redis_url):
    """Two hosts' views of one Redis, as the fetch service on two hosts would see it."""
    return [RedisState(redis_url).store("plugins:websearch") for _ in range(2)]


@pytest.mark.anyio
async def test_the_shared_cache_serves_a_page_fetched_on_one_host_to_another(shared_stores):
    clock = FakeClock()
    here, there = (SharedPageCache(store, max_bytes=1 << 20, clock=clock) for store in shared_stores)
    await here.aput("http://example.org/old", page("http://example.org/new"), ttl=60)
    hit = await there.aget("http://EXAMPLE.org/old#x")
    assert hit is not None
    assert (hit.final_url, hit.body, hit.document.links) == (
        "http://example.org/new",
        b"<p>kettles</p>",
        ["http://example.org/new#more"],
    )
    clock.advance(30)
    assert await there.aget("http://example.org/new", max_age=10) is None
    assert await there.aget("http://example.org/new", max_age=40) is not None
    await here.aput("http://example.org/gone", page("http://example.org/gone"), ttl=0)
    assert await there.aget("http://example.org/gone") is None


@pytest.mark.anyio
async def test_the_shared_cache_stays_under_its_bound_dropping_the_least_recently_used(shared_stores):
    body = os.urandom(40_000)
    here, there = (SharedPageCache(store, max_bytes=100_000) for store in shared_stores)
    for name in ("a", "b"):
        await here.aput(f"http://example.org/{name}", page(f"http://example.org/{name}", body), ttl=600)
    assert await there.aget("http://example.org/a") is not None
    await there.aput("http://example.org/c", page("http://example.org/c", body), ttl=600)
    assert await here.aget("http://example.org/b") is None
    assert await here.aget("http://example.org/a") is not None
    assert await here.aget("http://example.org/c") is not None
    await here.aput("http://example.org/huge", page("http://example.org/huge", os.urandom(200_000)), ttl=600)
    assert await here.aget("http://example.org/huge") is None


def _shared_writer(url: str) -> None:
    import asyncio

    cache = SharedPageCache(RedisState(url).store("plugins:websearch"), max_bytes=1 << 30)

    async def write_forever() -> None:
        for index in range(1_000_000):
            body = bytes([index % 251]) * 50_000
            await cache.aput(f"http://example.org/{index}", page(f"http://example.org/{index}", body), ttl=600)

    asyncio.run(write_forever())


@pytest.mark.anyio
async def test_a_worker_killed_during_cache_writes_leaves_no_corrupt_entry(redis_url, shared_stores):
    writer = multiprocessing.get_context("spawn").Process(target=_shared_writer, args=(redis_url,))
    writer.start()
    reader = SharedPageCache(shared_stores[0], max_bytes=1 << 30)
    deadline = time.monotonic() + 30
    while await reader.aget("http://example.org/20") is None:
        assert time.monotonic() < deadline, "the writer never wrote"
        await asyncio.sleep(0.02)
    os.kill(writer.pid, signal.SIGKILL)
    writer.join(10)
    found = 0
    for index in range(100_000):
        hit = await reader.aget(f"http://example.org/{index}")
        if hit is None:
            break
        assert hit.body == bytes([index % 251]) * 50_000
        found += 1
    assert found > 20
