"""A plugin's long-lived objects belong to its host: made once, shared, closed when the host stops."""

import asyncio

import msgspec
import pytest

import steward
from steward.testing import make_host, serve_host


class Pool:
    made = 0

    def __init__(self) -> None:
        Pool.made += 1
        self.closed = False
        self.loop = asyncio.get_running_loop()

    async def aclose(self) -> None:
        self.closed = True


class File:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


class Made(msgspec.Struct):
    pools: int


class Empty(msgspec.Struct):
    pass


class PoolPlugin:
    def __init__(self) -> None:
        self.seen: list[tuple[Pool, File]] = []

    @steward.hookimpl
    def register_capabilities(self) -> list[steward.Capability]:
        async def use(arguments: Empty, context: steward.InvocationContext) -> Made:
            pool = context.resources.get("pool", Pool, per_loop=True)
            cache = context.resources.get("file", File)
            self.seen.append((pool, cache))
            return Made(Pool.made)

        return [
            steward.Capability(
                name="pools.use",
                version=1,
                description="Uses the plugin's pool.",
                arguments=Empty,
                result=Made,
                side_effect="read_only",
                network="local",
                handler=use,
            )
        ]


def test_the_server_shares_one_object_per_host_and_closes_it_at_shutdown(tmp_path):
    plugin = PoolPlugin()
    with serve_host([steward.Plugin("pools", plugin)], data_dir=tmp_path) as served:
        client = served.client(["invoke"])
        for _ in range(3):
            assert client.post("/api/v1/capabilities/pools.use/invoke", json={"arguments": {}}).status_code == 200
        (pool, file), *others = plugin.seen
        assert all(seen == (pool, file) for seen in others)
        assert not pool.closed
    assert pool.closed
    assert file.closed


def test_each_loop_gets_its_own_loop_bound_object_and_the_host_closes_the_rest(tmp_path):
    plugin = PoolPlugin()
    host = make_host([steward.Plugin("pools", plugin)], data_dir=tmp_path)
    caller = steward.Principal("cli:test", frozenset({"admin"}))
    for _ in range(2):
        outcome = asyncio.run(host.executor.invoke("pools.use", {}, caller=caller, surface="cli"))
        assert outcome.status == "ok"
    (first_pool, file), (second_pool, same_file) = plugin.seen
    assert first_pool is not second_pool
    assert first_pool.loop is not second_pool.loop
    assert file is same_file
    host.close()
    assert file.closed


def test_one_object_that_fails_to_close_does_not_keep_the_others_open(caplog):
    class Broken:
        def close(self) -> None:
            raise OSError("disk gone")

    resources = steward.Resources("pools")
    broken = resources.get("broken", Broken)
    file = resources.get("file", File)
    resources.close()
    assert broken is not None
    assert file.closed
    assert "plugin pools: closing Broken failed: disk gone" in caplog.text


@pytest.mark.anyio
async def test_objects_are_made_once_even_when_asked_for_at_once():
    resources = steward.Resources("pools")
    made = await asyncio.gather(*(asyncio.to_thread(resources.get, "file", File) for _ in range(20)))
    assert all(item is made[0] for item in made)
