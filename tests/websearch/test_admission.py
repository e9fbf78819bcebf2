"""The fetch service's admission: global and per-host caps, and a token bucket per key, on both backends."""

import contextlib

import pytest
from steward_websearch.service.admission import Admission, Busy
from steward_websearch.settings import ServiceSettings

from steward._state import MemoryStore, Namespaced, RedisState
from steward.testing import FakeClock

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "redis"])
def stores(request, redis_server):
    """Two hosts' views of one store: the same object on memory, two Redis connections on redis."""
    if request.param == "memory":
        store = Namespaced(MemoryStore(), "plugins:websearch:")
        return store, store
    redis_server.flush()
    return tuple(RedisState(redis_server.url).store("plugins:websearch") for _ in range(2))


async def admitted(admission: Admission, store, key: str, host: str | None) -> bool:
    """Whether one more request would get in now (its slot is given back at once)."""
    try:
        async with admission.admit(store, key, host):
            return True
    except Busy:
        return False


async def test_caps_count_requests_in_flight_on_every_host_and_free_their_slots(stores):
    admission = Admission(ServiceSettings(max_concurrent=3, max_per_host=2, requests_per_minute=100))
    first, second = stores
    async with contextlib.AsyncExitStack() as held:
        await held.enter_async_context(admission.admit(first, "a", "one.example"))
        await held.enter_async_context(admission.admit(second, "b", "one.example"))
        with pytest.raises(Busy, match=r"already 2 requests in flight to one\.example") as busy:
            await held.enter_async_context(admission.admit(first, "c", "one.example"))
        assert busy.value.retry_after == 1
        await held.enter_async_context(admission.admit(second, "c", "two.example"))
        assert not await admitted(admission, first, "d", None), "three in flight is the global cap"
    assert await admitted(admission, first, "a", "one.example")
    assert [await admitted(admission, second, "a", None) for _ in range(3)] == [True] * 3


async def test_a_slot_is_freed_when_the_request_fails(stores):
    admission = Admission(ServiceSettings(max_concurrent=1))
    with pytest.raises(RuntimeError):
        async with admission.admit(stores[0], "a", "one.example"):
            raise RuntimeError("upstream broke")
    assert await admitted(admission, stores[1], "a", "one.example")


async def test_each_key_has_its_own_bucket_shared_by_every_host(stores):
    admission = Admission(ServiceSettings(requests_per_minute=2))
    first, second = stores
    assert [await admitted(admission, store, "fleet", None) for store in (first, second, first)] == [True, True, False]
    with pytest.raises(Busy, match="2 requests per minute") as busy:
        async with admission.admit(second, "fleet", None):
            pass
    assert 29 <= busy.value.retry_after <= 30
    assert await admitted(admission, second, "other", None)


async def test_a_bucket_refills_over_time():
    clock = FakeClock()
    store = Namespaced(MemoryStore(clock), "plugins:websearch:")
    admission = Admission(ServiceSettings(requests_per_minute=2))
    assert [await admitted(admission, store, "fleet", None) for _ in range(3)] == [True, True, False]
    clock.advance(30)
    assert [await admitted(admission, store, "fleet", None) for _ in range(2)] == [True, False]
