"""The state backends (memory, and a real redis-server on loopback): what several hosts must share."""

import asyncio
import concurrent.futures
import contextlib
import socket

import httpx
import pytest
from sample_plugin import SamplePlugin

import steward
from steward._auth import KeyStore, KeyStoreError
from steward._confirmation import (
    ConfirmationRequest,
    ConfirmationStore,
    InvalidConfirmation,
    TooManyPending,
    token_digest,
)
from steward._conversation import PausedTurn, PausedTurns
from steward._policy import Policy, PolicyFlag, UnknownFlag, locations
from steward._state import MemoryBackend, MemoryStore, Namespaced, RedisState, ShelfLimits, StateUnavailable, redact
from steward._state.keys import RedisKeyTable
from steward.testing import Rule, ScriptedModel, make_host, serve_app, serve_host

pytestmark = pytest.mark.anyio
INVOKE = "/api/v1/capabilities/{}/invoke"
MESSAGE = "/api/v1/conversation/message"


def request(caller="fleet", arguments=b'{"text":"x"}'):
    return ConfirmationRequest(
        capability="sample.send", version=1, arguments=arguments, caller=caller, surface="invoke"
    )


def shared(url, **options):
    return RedisState(url, prefix=options.pop("prefix", "test:"), **options)


def redis_config(url, **state):
    return {"state": {"backend": "redis", "url": url, "prefix": "test:", **state}}


@pytest.fixture(params=["memory", "redis"])
def backends(request, redis_server):
    """Two hosts' views of one backend: on memory, one process's; on Redis, two connections to one server."""
    if request.param == "memory":
        backend = MemoryBackend()
        return lambda: (backend, backend)
    redis_server.flush()
    return lambda: (shared(redis_server.url), shared(redis_server.url))


def confirmation_stores(backends, *, max_per_caller=32, max_pending=4096, **lifetimes):
    limits = ShelfLimits(max_per_caller, max_items=max_pending)
    return [ConfirmationStore(backend.shelf("confirmations", limits), **lifetimes) for backend in backends()]


def paused_turn_stores(backends, *, name="turns", max_per_caller=8, max_bytes=1 << 20):
    limits = ShelfLimits(max_per_caller, max_bytes=max_bytes)
    return [PausedTurns(backend.shelf(name, limits), 60) for backend in backends()]


async def test_fifty_concurrent_approvals_over_two_hosts_spend_one_token_once(backends):
    hosts = confirmation_stores(backends)
    for _ in range(5):
        token = await hosts[0].issue(request())

        async def approve(index, token=token):
            try:
                await hosts[index % 2].consume(token_digest(token), lambda _: True)
            except InvalidConfirmation:
                return False
            return True

        won = await asyncio.gather(*(approve(index) for index in range(50)))
        assert sum(won) == 1


async def test_a_foreign_answer_does_not_spend_the_token(backends):
    store, _ = confirmation_stores(backends)
    token = await store.issue(request("fleet"))
    with pytest.raises(InvalidConfirmation):
        await store.consume(token_digest(token), lambda kept: kept.caller == "intruder")
    consumed = await store.consume(token_digest(token), lambda kept: kept.caller == "fleet")
    assert (consumed.request, consumed.expired) == (request("fleet"), False)
    with pytest.raises(InvalidConfirmation):
        await store.consume(token_digest(token), lambda _: True)


async def test_expiry_is_truthful_through_the_grace_period_then_the_token_is_forgotten(backends):
    store, other = confirmation_stores(backends, lifetime_seconds=0.3, expired_grace_seconds=0.6)
    late, forgotten = await store.issue(request()), await store.issue(request())
    assert [item.request for item in await other.pending()] == [request(), request()]
    await asyncio.sleep(0.45)
    assert await other.pending() == [], "an expired confirmation is no longer listed"
    assert (await store.consume(token_digest(late), lambda _: True)).expired is True
    await asyncio.sleep(0.6)
    with pytest.raises(InvalidConfirmation):
        await store.consume(token_digest(forgotten), lambda _: True)


async def test_pending_caps_count_every_host(backends):
    first, second = confirmation_stores(backends, max_per_caller=2, max_pending=3)
    token = await first.issue(request("fleet"))
    await second.issue(request("fleet"))
    with pytest.raises(TooManyPending, match="fleet has 2"):
        await first.issue(request("fleet"))
    await second.issue(request("other"))
    with pytest.raises(TooManyPending, match="3 confirmations are waiting"):
        await second.issue(request("third"))
    await second.consume(token_digest(token), lambda _: True)
    await first.issue(request("fleet"))


def paused(caller="name:fleet", text="hello"):
    return PausedTurn(
        caller=caller,
        messages=[{"role": "user", "content": text}],
        call_id="c1",
        later=[],
        rounds=1,
        counts={},
        invocations=[],
        citations=[],
        texts=[],
    )


async def test_a_paused_turn_is_taken_once_by_whichever_host_asks(backends):
    first, second = paused_turn_stores(backends, max_per_caller=2)
    await first.put("turn-1", paused())
    assert await second.take("turn-1", steward.Principal("intruder", frozenset())) is None
    fleet = steward.Principal("fleet", frozenset())
    taken = await asyncio.gather(*(store.take("turn-1", fleet) for store in (first, second) * 10))
    assert [turn for turn in taken if turn is not None] == [paused()]
    await first.put("turn-2", paused())
    await second.put("turn-3", paused())
    with pytest.raises(TooManyPending, match="this key has 2"):
        await first.put("turn-4", paused())
    small, _ = paused_turn_stores(backends, name="small-turns", max_bytes=400)
    await small.put("turn-5", paused("someone"))
    with pytest.raises(TooManyPending, match="too many paused"):
        await small.put("turn-6", paused("someone", "x" * 400))


async def test_keys_added_through_one_host_are_found_and_revoked_through_the_other(backends, tmp_path):
    first, second = (KeyStore(backend.key_table(tmp_path)) for backend in backends())
    key = first.add("fleet", ["invoke"], ["sample.send"])
    with pytest.raises(KeyStoreError, match="already exists"):
        second.add("fleet", ["admin"])
    second.refresh()
    found = await second.find(key)
    assert (found.name, found.scopes, found.preapproved) == ("fleet", frozenset({"invoke"}), frozenset({"sample.send"}))
    assert second.lookup(key) == found == first.lookup(key)
    assert await second.find(key + "x") is None
    assert [record.name for record in second.records()] == ["fleet"]
    assert second.revoke("fleet")
    assert not first.revoke("fleet")
    first.refresh()
    assert await first.find(key) is None, "a key remembered by one host is refused once another revoked it"
    assert first.lookup(key) is None


async def test_a_flag_set_through_one_host_is_read_by_the_other(backends, tmp_path):
    flags = [PolicyFlag("web_search_enabled", "d"), PolicyFlag("ha", "d", file="home-assistant.json", key="enabled")]
    first, second = (Policy(flags, backend.flag_table(tmp_path, locations(flags))) for backend in backends())
    assert await second.current() == {"ha": False, "web_search_enabled": False}
    first.set("ha", True)
    assert await second.enabled("ha")
    assert second.is_enabled("ha")
    assert not await second.enabled("web_search_enabled")
    assert second.snapshot() == {"ha": True, "web_search_enabled": False}
    first.set("ha", False)
    assert await second.current() == {"ha": False, "web_search_enabled": False}
    assert not await second.enabled("not_registered")
    with pytest.raises(UnknownFlag):
        second.set("not_registered", True)
    assert second.problems() == []


@pytest.fixture(params=["memory", "redis"])
def plugin_store(request, redis_server):
    if request.param == "memory":
        return Namespaced(MemoryStore(), "plugins:sample:")
    redis_server.flush()
    return shared(redis_server.url).store("plugins:sample")


async def test_the_plugin_store_offers_the_same_atomic_operations_on_both_backends(plugin_store):
    assert await plugin_store.get("missing") is None
    assert await plugin_store.set("page", b"one", ttl_seconds=0.2)
    assert not await plugin_store.set("page", b"two", only_if_absent=True)
    assert await plugin_store.get("page") == b"one"
    await asyncio.sleep(0.3)
    assert await plugin_store.get("page") is None
    await plugin_store.set("once", b"value")
    taken = await asyncio.gather(*(plugin_store.take("once") for _ in range(20)))
    assert [value for value in taken if value is not None] == [b"value"]
    counts = await asyncio.gather(*(plugin_store.increment("in-flight") for _ in range(30)))
    assert sorted(counts) == list(range(1, 31))
    assert await plugin_store.increment("in-flight", -30) == 0
    waits = [await plugin_store.spend("bucket", rate_per_second=1, burst=3) for _ in range(4)]
    assert waits[:3] == [0, 0, 0]
    assert 0.9 < waits[3] <= 1.0
    await plugin_store.delete("page")


async def test_slots_are_limited_and_a_dead_holder_frees_its_slot_when_the_lease_ends(plugin_store):
    async def acquire(lease_seconds: float, **limits):
        return await plugin_store.acquire(limits, lease_seconds=lease_seconds)

    short, long = 1.0, 60.0
    leases = [await acquire(short, fetches=2) for _ in range(3)]
    assert [lease.held for lease in leases] == [True, True, False]
    assert leases[2].full == "fetches"
    await plugin_store.release(leases[0])
    assert (await acquire(short, fetches=2)).held
    assert not (await acquire(short, fetches=2)).held
    await asyncio.sleep(short + 0.1)
    both = await acquire(long, fetches=2, per_host=1)
    assert both.held, "the dead holders' leases ended"
    refused = await acquire(long, fetches=2, per_host=1)
    assert (refused.held, refused.full) == (False, "per_host")
    assert (await acquire(long, fetches=2)).held, "a refused lease held nothing: one fetches slot was still free"
    await plugin_store.release(both)
    assert (await acquire(long, per_host=1)).held


async def test_the_cache_keeps_the_most_recently_used_values_within_its_bytes(plugin_store):
    for name in "abc":
        assert await plugin_store.cache_set(name, name.encode() * 100, ttl_seconds=60, max_bytes=300)
    assert await plugin_store.cache_get("a") == b"a" * 100
    assert await plugin_store.cache_set("d", b"d" * 100, ttl_seconds=60, max_bytes=300)
    kept = {name: await plugin_store.cache_get(name) is not None for name in "abcd"}
    assert kept == {"a": True, "b": False, "c": True, "d": True}
    assert not await plugin_store.cache_set("huge", b"x" * 301, ttl_seconds=60, max_bytes=300)
    assert await plugin_store.cache_set("brief", b"x", ttl_seconds=0.1, max_bytes=300)
    await asyncio.sleep(0.15)
    assert await plugin_store.cache_get("brief") is None


def test_two_hosts_on_one_redis_share_keys_policy_and_confirmations(redis_url, tmp_path):
    samples = [SamplePlugin(), SamplePlugin()]
    with contextlib.ExitStack() as stack:
        a, b = (
            stack.enter_context(
                serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path / name, config=redis_config(redis_url))
            )
            for name, sample in zip("ab", samples, strict=True)
        )
        key = a.key(["invoke", "settings"], name="fleet")
        on_b = httpx.Client(base_url=b.base_url, headers={"Authorization": f"Bearer {key}"}, trust_env=False)
        refused = on_b.post(INVOKE.format("sample.send"), json={"arguments": {"text": "x"}})
        assert (refused.status_code, refused.json()["code"]) == (403, "CAPABILITY_DISABLED")

        a.set_policy("sample_enabled", True)
        assert on_b.get("/api/v1/conversation/policy").json()["sample_enabled"] is True
        pending = on_b.post(INVOKE.format("sample.send"), json={"arguments": {"text": "x"}}).json()
        token = pending["pending_confirmation"]["token"]

        on_a = httpx.Client(base_url=a.base_url, headers={"Authorization": f"Bearer {key}"}, trust_env=False)

        def approve(index):
            client = (on_a, on_b)[index % 2]
            return client.post(INVOKE.format("sample.send"), json={"confirmation": {"token": token, "approve": True}})

        with concurrent.futures.ThreadPoolExecutor(10) as pool:
            statuses = sorted(response.status_code for response in pool.map(approve, range(20)))
        assert statuses == [200] + [400] * 19
        assert sum(sample.runs.get("send", 0) for sample in samples) == 1

        assert a.host.keys.revoke("fleet")
        assert on_b.get("/api/v1/conversation/policy").status_code == 401
        on_a.close()
        on_b.close()


def test_a_turn_paused_on_one_host_resumes_on_another(redis_url, tmp_path):
    model = ScriptedModel(rules=[Rule(r'send "([^"]+)"', calls=[("sample.send", {"text": "{1}"})])])
    samples = [SamplePlugin(), SamplePlugin()]
    with serve_app(model.app()) as model_url, contextlib.ExitStack() as stack:
        config = {**redis_config(redis_url), "model": {"base_url": f"{model_url}/v1"}}
        a, b = (
            stack.enter_context(serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path / name, config=config))
            for name, sample in zip("ab", samples, strict=True)
        )
        a.set_policy("sample_enabled", True)
        key = a.key(["conversation"])
        headers = {"Authorization": f"Bearer {key}"}
        with (
            httpx.Client(base_url=a.base_url, headers=headers) as on_a,
            httpx.Client(base_url=b.base_url, headers=headers) as on_b,
        ):
            paused_turn = on_a.post(MESSAGE, json={"messages": [{"role": "user", "content": 'send "hi"'}]}).json()
            token = paused_turn["pending_confirmation"]["token"]
            resumed = on_b.post(MESSAGE, json={"confirmation": {"token": token, "approve": True}})
            assert resumed.status_code == 200
            assert "sent hi" in resumed.json()["text"]
            assert [sample.runs for sample in samples] == [{}, {"send": 1}]
            again = on_a.post(MESSAGE, json={"confirmation": {"token": token, "approve": True}})
            assert (again.status_code, again.json()["error"]["code"]) == (400, "INVALID_CONFIRMATION")


def test_redis_down_mid_run_refuses_with_503_and_service_comes_back_by_itself(redis_server, tmp_path):
    redis_server.flush()
    sample = SamplePlugin()
    config = redis_config(redis_server.url, timeout_seconds=0.5)
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=config) as served:
        served.set_policy("sample_enabled", True)
        client = served.client(["invoke"])
        token = client.post(INVOKE.format("sample.send"), json={"arguments": {"text": "x"}}).json()[
            "pending_confirmation"
        ]["token"]
        redis_server.stop()
        try:
            down = client.post(INVOKE.format("sample.send"), json={"confirmation": {"token": token, "approve": True}})
            assert down.status_code == 503
            assert down.json()["error"]["code"] == "STATE_UNAVAILABLE"
            assert "cannot be reached" in down.json()["error"]["message"]
            health = httpx.get(f"{served.base_url}/healthz")
            assert health.status_code == 503
            assert health.json() == {"status": "unavailable"}, "where Redis lives is for key holders"
            assert sample.runs == {}
        finally:
            redis_server.start()
        approved = client.post(INVOKE.format("sample.send"), json={"confirmation": {"token": token, "approve": True}})
        assert (approved.status_code, approved.json()["status"]) == (200, "ok")
        assert sample.runs == {"send": 1}
        assert httpx.get(f"{served.base_url}/healthz").status_code == 200


def test_an_unreachable_redis_at_start_up_is_one_clear_line(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"redis://user:secret-password@127.0.0.1:{port}/0"
    with pytest.raises(StateUnavailable) as refused:
        make_host([], data_dir=tmp_path, config={"state": {"backend": "redis", "url": url}})
    message = str(refused.value)
    assert "\n" not in message
    assert f"(Redis at redis://user:***@127.0.0.1:{port}/0) cannot be reached: " in message
    assert "secret-password" not in message


def test_redact_hides_every_credential_form():
    assert redact("redis://:pw@host:6379/0") == "redis://***@host:6379/0"
    assert redact("rediss://me:pw@host/1") == "rediss://me:***@host/1"
    assert redact("redis://host:6379") == "redis://host:6379"
    assert redact("unix:///run/redis.sock?db=0&password=pw") == "unix:///run/redis.sock?db=0&password=***"
    assert redact("redis://host/0?PASSWORD=pw&username=me") == "redis://host/0?PASSWORD=***&username=***"
    assert redact("redis://me:p@ss@host/0") == "redis://me:***@host/0"


def test_the_key_store_on_redis_is_the_one_the_command_line_writes(redis_url, tmp_path):
    store = KeyStore(RedisKeyTable(shared(redis_url)))
    key = store.add("fleet", ["invoke"], ["sample.send"])
    with pytest.raises(KeyStoreError, match="already"):
        store.add("fleet", ["invoke"])
    assert [record.name for record in store.records()] == ["fleet"]
    principal = store.lookup(key)
    assert (principal.name, principal.scopes, principal.preapproved) == (
        "fleet",
        frozenset({"invoke"}),
        frozenset({"sample.send"}),
    )
    assert asyncio.run(store.find(key)) == principal
    assert store.lookup(key + "x") is None
    assert store.revoke("fleet")
    assert not store.revoke("fleet")
    assert store.lookup(key) is None
    assert not (tmp_path / "keys.toml").exists()


def test_anonymous_health_requests_do_not_reach_redis(redis_url, tmp_path):
    counter = shared(redis_url).sync
    with serve_host([], data_dir=tmp_path, config=redis_config(redis_url)) as served:
        assert httpx.get(f"{served.base_url}/healthz").json()["status"] == "degraded", "no model here"
        before = counter.info("stats")["total_commands_processed"]
        for _ in range(50):
            assert httpx.get(f"{served.base_url}/healthz").status_code == 200
        after = counter.info("stats")["total_commands_processed"]
    assert after - before <= 2, "the INFO command itself, and at most one cached state check"


def test_the_first_start_on_redis_takes_the_memory_backend_keys_along(redis_url, tmp_path):
    from steward._cli import _move_keys_to_redis

    old = KeyStore.in_file(tmp_path / "keys.toml").add("console", ["settings"])
    host = make_host([], data_dir=tmp_path, config=redis_config(redis_url))
    try:
        _move_keys_to_redis(host)
        assert host.keys.lookup(old).name == "console"
        assert not (tmp_path / "keys.toml").exists()
        assert (tmp_path / "keys.toml.moved-to-redis").exists()
        assert host.keys.revoke("console")
        _move_keys_to_redis(host)
        assert host.keys.lookup(old) is None, "a revoked key never comes back from the old file"
    finally:
        host.close()


async def test_a_burst_beyond_the_connection_pool_waits_for_a_connection_instead_of_failing(redis_url, tmp_path):
    sample = SamplePlugin()
    config = redis_config(redis_url, max_connections=4)
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=config) as served:
        headers = {"Authorization": f"Bearer {served.key(['invoke'])}"}
        limits = httpx.Limits(max_connections=300)
        async with httpx.AsyncClient(base_url=served.base_url, headers=headers, limits=limits, timeout=60) as client:
            answers = await asyncio.gather(
                *(client.post(INVOKE.format("sample.echo"), json={"arguments": {"text": "x"}}) for _ in range(300))
            )
    assert {answer.status_code for answer in answers} == {200}
    assert sample.runs == {"echo": 300}
