"""Isolated workers: real child processes, their limits, and what happens when a job overruns them.

The job functions live in this module: a worker imports them by name, as it would a plugin's.
"""

import asyncio
import os
import threading
import time

import msgspec
import pytest

from steward import IsolatedJobFailed, IsolatedWorkers
from steward import _isolation as isolation


class Refused(ValueError):
    """A job's own exception, rebuilt on the parent's side."""


class Measured(msgspec.Struct):
    pid: int
    environment: dict[str, str]


def describe_worker() -> Measured:
    return Measured(pid=os.getpid(), environment=dict(os.environ))


def spin_forever() -> None:
    while True:
        pass


def allocate(megabytes: int) -> int:
    return len(bytearray(megabytes * 1024 * 1024))


def read_file(path: str) -> str:
    with open(path) as handle:
        return handle.read()


def refuse(reason: str) -> None:
    raise Refused(reason)


def chatter_then_answer(answer: str) -> str:
    print("this must not reach the reply pipe")
    os.write(1, b"nor this\n")
    return answer


def big_reply(size: int) -> bytes:
    return b"x" * size


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture
def workers():
    pool = IsolatedWorkers(1, memory_bytes=512 * 1024 * 1024, cpu_seconds=2)
    yield pool
    pool.close()


def run(coroutine):
    return asyncio.run(coroutine)


def test_a_job_sees_no_environment(workers, monkeypatch):
    monkeypatch.setenv("STEWARD_MODEL__API_KEY", "sk-secret-value")
    measured = run(workers.run(describe_worker, result_type=Measured))
    assert measured.pid != os.getpid()
    assert not any("secret" in value for value in measured.environment.values())
    assert "STEWARD_MODEL__API_KEY" not in measured.environment


def test_a_job_past_its_deadline_is_killed_with_its_worker_and_the_next_job_runs(workers):
    first = run(workers.run(describe_worker, result_type=Measured)).pid

    async def overrun() -> None:
        await workers.run(spin_forever, result_type=type(None), timeout=0.5)

    with pytest.raises(TimeoutError):
        run(overrun())
    deadline = time.monotonic() + 5
    while alive(first) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(first), "the worker that ran the job was killed"
    assert run(workers.run(describe_worker, result_type=Measured)).pid != first


def test_a_cancelled_caller_kills_the_job(workers):
    pid = run(workers.run(describe_worker, result_type=Measured)).pid

    async def cancel_soon() -> None:
        task = asyncio.ensure_future(workers.run(spin_forever, result_type=type(None)))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(cancel_soon())
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(pid)


def test_a_caller_cancelled_while_its_worker_starts_leaves_at_once_and_the_worker_is_kept(monkeypatch):
    """The event loop never waits for a worker process to start: the cancellation returns while
    the start is still held back (were the loop blocked, the hold would run out), and the worker
    that started then serves the next job."""
    starting, release = threading.Event(), threading.Event()
    held_back_to_the_end: list[bool] = []
    pids: list[int] = []

    class SlowToStart(isolation._Worker):
        def __init__(self, memory_bytes: int) -> None:
            starting.set()
            held_back_to_the_end.append(not release.wait(5))
            super().__init__(memory_bytes)
            pids.append(self.process.pid)

    monkeypatch.setattr(isolation, "_Worker", SlowToStart)
    pool = IsolatedWorkers(1, memory_bytes=512 * 1024 * 1024, cpu_seconds=2)

    async def cancel_while_starting() -> None:
        task = asyncio.ensure_future(pool.run(describe_worker, result_type=Measured))
        while not starting.is_set():
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        release.set()

    try:
        run(cancel_while_starting())
        measured = run(pool.run(describe_worker, result_type=Measured))
    finally:
        release.set()
        pool.close()
    assert held_back_to_the_end == [False], "the cancelled caller waited for the worker to start"
    assert pool.killed == 0, "no worker was running the job, so none was killed"
    assert pids == [measured.pid], "the worker started for the cancelled job served the next one"


def test_cpu_time_is_limited_even_without_a_deadline(workers):
    with pytest.raises(IsolatedJobFailed, match="CPU time"):
        run(workers.run(spin_forever, result_type=type(None)))


def test_memory_is_limited(workers):
    assert run(workers.run(allocate, 16, result_type=int)) == 16 * 1024 * 1024
    with pytest.raises((IsolatedJobFailed, MemoryError)):
        run(workers.run(allocate, 2048, result_type=int))
    assert run(workers.run(allocate, 1, result_type=int)) == 1024 * 1024


def test_no_file_can_be_opened_unless_asked_for(workers, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the household's token")
    with pytest.raises(IsolatedJobFailed, match="Too many open files"):
        run(workers.run(read_file, str(secret), result_type=str))
    assert run(workers.run(read_file, str(secret), result_type=str, file_access=True)) == "the household's token"


def test_the_jobs_own_exception_comes_back_as_itself(workers):
    with pytest.raises(Refused, match="not today"):
        run(workers.run(refuse, "not today", result_type=type(None)))


def test_output_on_stdout_does_not_corrupt_the_reply(workers):
    assert run(workers.run(chatter_then_answer, "clean", result_type=str)) == "clean"


def test_results_are_capped_and_typed():
    pool = IsolatedWorkers(1, max_result_bytes=1024)
    try:
        assert run(pool.run(big_reply, 100, result_type=bytes)) == b"x" * 100
        with pytest.raises(IsolatedJobFailed, match="cap"):
            run(pool.run(big_reply, 4096, result_type=bytes))
        with pytest.raises(IsolatedJobFailed, match="unexpected"):
            run(pool.run(big_reply, 10, result_type=int))
    finally:
        pool.close()


def test_a_closed_pool_refuses_jobs_and_leaves_no_worker():
    pool = IsolatedWorkers(1)
    pid = run(pool.run(describe_worker, result_type=Measured)).pid
    pool.close()
    assert not alive(pid)
    with pytest.raises((IsolatedJobFailed, RuntimeError)):
        run(pool.run(describe_worker, result_type=Measured))
