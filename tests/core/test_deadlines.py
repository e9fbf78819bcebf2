import asyncio

import pytest

from steward._deadlines import Deadlines

pytestmark = pytest.mark.anyio


async def test_overrun_is_cancelled_and_becomes_timeout():
    deadlines = Deadlines(resolution=0.01)
    cancelled = asyncio.Event()

    async def slow():
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(TimeoutError), deadlines.limit(0.05):
        await slow()
    assert cancelled.is_set()
    assert loop.time() - started >= 0.05, "never before the limit"
    assert asyncio.current_task().cancelling() == 0


async def test_work_that_finishes_in_time_is_untouched():
    deadlines = Deadlines(resolution=0.01)
    for _ in range(100):
        with deadlines.limit(0.05):
            await asyncio.sleep(0)
    await asyncio.sleep(0.1)
    assert asyncio.current_task().cancelling() == 0


async def test_an_outside_cancellation_stays_a_cancellation():
    deadlines = Deadlines(resolution=0.01)

    async def guarded():
        with deadlines.limit(5):
            await asyncio.sleep(10)

    task = asyncio.create_task(guarded())
    await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_many_concurrent_deadlines_each_fire_alone():
    deadlines = Deadlines(resolution=0.01)

    async def job(seconds: float, limit: float) -> str:
        try:
            with deadlines.limit(limit):
                await asyncio.sleep(seconds)
        except TimeoutError:
            return "timeout"
        return "done"

    results = await asyncio.gather(*(job(0.01, 1) if i % 2 else job(1, 0.03) for i in range(200)))
    assert results.count("timeout") == 100
    assert results.count("done") == 100


async def test_finished_entries_do_not_pile_up():
    deadlines = Deadlines(resolution=0.01)
    for _ in range(1000):
        with deadlines.limit(0.02):
            pass
    await asyncio.sleep(0.1)
    state = deadlines._loops[asyncio.get_running_loop()]
    assert state.heap == []
    assert state.ticker is None
