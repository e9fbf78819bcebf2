"""The Redis state backend when Redis misbehaves: answers of the wrong shape, a password in the URL,
a restart under pooled connections. Real redis-servers on loopback, and a proxy that lies."""

from __future__ import annotations

import json

import httpx
import pytest
import redis
from redis_proxy import LIES, LyingRedisProxy

import steward
from steward._state import StateUnavailable, redact
from steward.testing import RedisServer, make_host, serve_host

INVOKE = "/api/v1/capabilities/{}/invoke"


def redis_config(url: str) -> dict:
    return {"state": {"backend": "redis", "url": url, "prefix": "test:"}, "server": {"health_cache_seconds": 0}}


def mcp_tools_list(served, key: str) -> httpx.Response:
    return httpx.post(
        f"{served.base_url}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        headers={"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream"},
    )


@pytest.fixture
def proxy(redis_server, redis_url):
    liar = LyingRedisProxy(redis_server.port)
    yield liar
    liar.close()


@pytest.mark.parametrize("lie", sorted(LIES))
def test_a_redis_that_answers_wrong_at_start_up_is_one_clear_refusal(proxy, tmp_path, lie):
    proxy.lie = LIES[lie]
    with pytest.raises(StateUnavailable, match="answers what no Redis would") as refused:
        make_host([], data_dir=tmp_path, config=redis_config(proxy.url))
    assert "\n" not in str(refused.value), "one line for the operator starting it"


@pytest.mark.parametrize("lie", sorted(LIES))
def test_a_redis_that_starts_answering_wrong_is_state_unavailable_for_everyone(proxy, sample, tmp_path, lie):
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=redis_config(proxy.url)) as served:
        key = served.key(["invoke"])
        client = httpx.Client(base_url=served.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=30)
        assert client.post(INVOKE.format("sample.echo"), json={"arguments": {"text": "hi"}}).status_code == 200
        proxy.lie = LIES[lie]
        answers = [
            client.post(INVOKE.format("sample.echo"), json={"arguments": {"text": "hi"}}),
            httpx.get(f"{served.base_url}/api/v1/capabilities", headers={"Authorization": "Bearer stw_wrong"}),
            mcp_tools_list(served, key),
        ]
        for answer in answers:
            assert answer.status_code == 503, answer.text
            assert "STATE_UNAVAILABLE" in answer.text
            assert str(proxy.port) not in answer.text
        health = httpx.get(f"{served.base_url}/healthz")
        assert (health.status_code, health.json()) == (503, {"status": "unavailable"})
        proxy.lie = None
        assert client.post(INVOKE.format("sample.echo"), json={"arguments": {"text": "hi"}}).status_code == 200
        assert httpx.get(f"{served.base_url}/healthz").status_code == 200
        assert sample.runs == {"echo": 2}


def test_a_password_in_the_url_is_never_shown(sample, tmp_path, caplog):
    with RedisServer() as server:
        redis.Redis(port=server.port).config_set("requirepass", "s3cret-pw")
        url = f"redis://127.0.0.1:{server.port}/0?password=s3cret-pw"
        assert redact(url) == f"redis://127.0.0.1:{server.port}/0?password=***"
        with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=redis_config(url)) as served:
            key = served.key(["admin"])
            assert (
                "s3cret-pw"
                not in httpx.get(f"{served.base_url}/healthz", headers={"Authorization": f"Bearer {key}"}).text
            )
            server.stop()
            seen = [
                httpx.get(f"{served.base_url}/healthz"),
                httpx.get(f"{served.base_url}/healthz", headers={"Authorization": f"Bearer {key}"}),
                httpx.get(f"{served.base_url}/api/v1/capabilities", headers={"Authorization": "Bearer stw_wrong"}),
                mcp_tools_list(served, key),
            ]
            for answer in seen:
                assert answer.status_code == 503
                assert "s3cret-pw" not in answer.text
                assert str(server.port) not in answer.text, "where Redis lives is not for a stranger"
            assert seen[0].json() == {"status": "unavailable"}
            problems = served.host.shared.problem
            assert problems is not None
            assert "password=***" in problems
            assert "s3cret-pw" not in caplog.text


def test_a_redis_restart_under_pooled_connections_is_not_a_failed_request(sample, tmp_path):
    with RedisServer() as server:
        config = redis_config(server.url)
        with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=config) as served:
            client = served.client(["invoke"])
            for _ in range(3):
                assert client.post(INVOKE.format("sample.echo"), json={"arguments": {"text": "a"}}).status_code == 200
            server.stop()
            server.start()
            answer = client.post(INVOKE.format("sample.echo"), json={"arguments": {"text": "b"}})
            assert answer.status_code == 200, json.dumps(answer.json())
