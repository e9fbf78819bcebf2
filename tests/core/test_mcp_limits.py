"""What one key can hold open on /mcp: notification streams, sessions; and what a failing policy
read costs the log. Real HTTP on loopback."""

from __future__ import annotations

import asyncio
import errno
import logging

import httpx
import pytest
from mcp_raw import initialize_message
from sample_plugin import SamplePlugin

import steward
from steward._mcp.server import PolicyWatch
from steward.testing import ServedHost, serve_host


def initialize(served: ServedHost, key: str) -> str:
    answer = httpx.post(
        served.base_url + "/mcp",
        json=initialize_message(elicitation=False),
        headers={"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream"},
    )
    return answer.headers["mcp-session-id"]


def ping(served: ServedHost, key: str, session: str) -> int:
    return httpx.post(
        served.base_url + "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={"Authorization": f"Bearer {key}", "Mcp-Session-Id": session, "Accept": "application/json"},
    ).status_code


@pytest.fixture
def limited(sample: SamplePlugin, tmp_path):
    config = {"mcp": {"max_streams_per_key": 2, "max_streams": 3, "stream_idle_seconds": 2, "max_sessions_per_key": 3}}
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=config) as served:
        yield served


async def _open_stream(client: httpx.AsyncClient, key: str, session: str):
    request = client.build_request(
        "GET",
        "/mcp",
        headers={"Authorization": f"Bearer {key}", "Mcp-Session-Id": session, "Accept": "text/event-stream"},
    )
    return await client.send(request, stream=True)


def test_notification_streams_are_capped_per_key_and_in_all_and_freed_on_close(limited):
    one, two = limited.key(["invoke"]), limited.key(["invoke"])
    first, second = initialize(limited, one), initialize(limited, two)

    async def scenario() -> list[int]:
        async with httpx.AsyncClient(base_url=limited.base_url, timeout=10) as client:
            held = [await _open_stream(client, one, first) for _ in range(2)]
            statuses = [answer.status_code for answer in held]
            over_key = await _open_stream(client, one, first)
            statuses.append(over_key.status_code)
            assert "BUSY" in (await over_key.aread()).decode()
            held.append(await _open_stream(client, two, second))
            statuses.append(held[-1].status_code)
            over_all = await _open_stream(client, two, second)
            statuses.append(over_all.status_code)
            await held[0].aclose()
            await asyncio.sleep(0.3)
            again = await _open_stream(client, one, first)
            statuses.append(again.status_code)
            for stream in [*held[1:], again]:
                await stream.aclose()
            return statuses

    assert asyncio.run(scenario()) == [200, 200, 429, 200, 429, 200]


def test_an_idle_stream_is_closed_by_the_server(limited):
    key = limited.key(["invoke"])
    session = initialize(limited, key)

    async def scenario() -> float:
        async with httpx.AsyncClient(base_url=limited.base_url, timeout=10) as client:
            started = asyncio.get_running_loop().time()
            stream = await _open_stream(client, key, session)
            await stream.aread()
            return asyncio.get_running_loop().time() - started

    assert 1.5 < asyncio.run(scenario()) < 6, "closed after stream_idle_seconds, not held forever"


def test_initialize_floods_end_the_keys_own_oldest_sessions_only(limited):
    flooder, other = limited.key(["invoke"]), limited.key(["invoke"])
    kept = initialize(limited, other)
    sessions = [initialize(limited, flooder) for _ in range(5)]
    assert [ping(limited, flooder, session) for session in sessions] == [404, 404, 200, 200, 200]
    assert ping(limited, other, kept) == 200


def test_a_policy_that_cannot_be_read_is_logged_once_not_per_stream_per_second(caplog):
    class Unreadable:
        async def current(self) -> dict[str, bool]:
            raise OSError(errno.EMFILE, "Too many open files")

    async def listen_awhile() -> None:
        watch = PolicyWatch(Unreadable(), every_seconds=0.005)

        async def listener() -> None:
            async for _ in watch.changes():
                pass

        listeners = [asyncio.ensure_future(listener()) for _ in range(200)]
        await asyncio.sleep(0.5)
        for each in listeners:
            each.cancel()
        await asyncio.gather(*listeners, return_exceptions=True)
        assert watch.listeners == 0

    with caplog.at_level(logging.INFO, logger="steward.mcp"):
        asyncio.run(listen_awhile())
    assert len(caplog.records) == 1
    assert "Too many open files" in caplog.records[0].getMessage()


def test_a_full_store_leaves_no_orphan_card_and_health_says_so(limited):
    """The in-process store full: the stateless call that asked is refused, its token withdrawn."""
    admin = limited.client(["admin"])
    keys = [limited.key(["invoke"]) for _ in range(2)]
    store = limited.host.state._store
    store.max_entries = len(store._values) + 4
    for key in keys:
        initialize(limited, key)
    eliciting = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    }
    call = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "sample.room", "arguments": {"text": "hall"}, "_meta": eliciting},
    }
    refused = httpx.post(
        limited.base_url + "/mcp",
        json=call,
        headers={"Authorization": f"Bearer {keys[0]}", "Accept": "application/json, text/event-stream"},
    )
    assert refused.status_code == 503
    assert refused.json()["error"]["data"] == {"code": "STATE_UNAVAILABLE"}
    assert admin.get("/api/v1/confirmations").json() == {"confirmations": []}, "no card that nobody can answer"
    health = admin.get("/healthz").json()
    assert health["status"] == "degraded"
    assert any("in-process state store" in problem for problem in health["problems"])


def test_a_session_in_use_lives_on_and_one_left_idle_is_forgotten(sample: SamplePlugin, tmp_path):
    import time

    config = {"mcp": {"session_idle_seconds": 2}}
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=config) as served:
        key = served.key(["invoke"])
        session = initialize(served, key)
        statuses = []
        for _ in range(6):
            statuses.append(ping(served, key, session))
            time.sleep(0.5)
        assert statuses == [200] * 6, "used for 3 s, past its 2 s idle lifetime, and still there"
        time.sleep(2.5)
        assert ping(served, key, session) == 404


def test_a_busy_session_costs_the_store_a_read_per_request_not_a_write(sample: SamplePlugin, tmp_path):
    """Its idle lifetime starts again only once a tenth of it has passed since it last did."""
    config = {"mcp": {"session_idle_seconds": 60}}
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=config) as served:
        key = served.key(["invoke"])
        session = initialize(served, key)
        store = served.host.core_state("mcp")
        writes: list[str] = []
        original = store.set

        async def counting_set(name, value, **options):
            writes.append(name)
            return await original(name, value, **options)

        store.set = counting_set
        assert [ping(served, key, session) for _ in range(30)] == [200] * 30
    assert writes == []
