"""Work on untrusted input in child processes that can be stopped.

Parsing a hostile page or running a caller's jq program can take unbounded CPU and memory, and
inside the server it would hold the GIL: the event loop, ``/healthz`` and SIGTERM would all wait
for it, and a thread cannot be stopped. So such work runs in a small pool of worker processes:

- each worker starts with an **empty environment** (a jq ``$ENV`` sees nothing) and ``/`` as its
  working directory, its standard output replaced by a private pipe;
- each job runs under a **CPU-time limit** (``RLIMIT_CPU``) and the worker under an
  **address-space limit** (``RLIMIT_AS``); unless a job asks for ``file_access``, it cannot open
  any file (``RLIMIT_NOFILE`` is lowered to the descriptors already open);
- a job past its deadline (or whose caller was cancelled) is **killed with its worker**, at once;
  a fresh worker takes the next job, so the event loop never waits past the deadline; a job given
  no deadline gets ``job_seconds`` (20 s), far inside the CPU-time limit;
- one caller's jobs use at most ``size - 1`` workers at once (:meth:`IsolatedWorkers.share`), so
  a caller who sends endless programs cannot take the pool from everyone else;
- a result is capped in size and decoded by type (msgspec), never unpickled: a worker that
  turned hostile can at worst send a wrong value of the right type.

Jobs name a module-level function; arguments and results are msgpack-able values (``bytes``,
``str``, numbers, lists, dicts, msgspec structs). The blocking pipe I/O runs in a thread of the
pool's own, one per worker, so a pool can serve any event loop and is not tied to one.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import importlib
import math
import os
import resource
import signal
import struct
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec

T = TypeVar("T")

_HEADER = struct.Struct(">I")
_WORKER_BOOT = "import sys; sys.path[:] = sys.argv[2:]; from steward._isolation import _serve; _serve(int(sys.argv[1]))"


class IsolatedJobFailed(Exception):
    """The job raised, ran out of memory or CPU time, or its worker died; the message says which."""


class _Request(msgspec.Struct, array_like=True):
    function: str
    args: list[Any]
    kwargs: dict[str, Any]
    cpu_seconds: int
    file_access: bool


class _Reply(msgspec.Struct, array_like=True):
    ok: bool
    value: bytes = b""
    error_type: str = ""
    message: str = ""


class _Worker:
    """One child process and the pipes to it."""

    def __init__(self, memory_bytes: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-c", _WORKER_BOOT, str(memory_bytes), *sys.path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={},
            cwd="/",
            close_fds=True,
            start_new_session=True,
        )

    def call(self, request: bytes, max_reply_bytes: int) -> bytes:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(_HEADER.pack(len(request)) + request)
        self.process.stdin.flush()
        header = self.process.stdout.read(_HEADER.size)
        if len(header) < _HEADER.size:
            raise EOFError
        (size,) = _HEADER.unpack(header)
        if size > max_reply_bytes:
            raise IsolatedJobFailed(f"the job's result is {size} bytes; the cap is {max_reply_bytes}")
        reply = self.process.stdout.read(size)
        if len(reply) < size:
            raise EOFError
        return reply

    def signal_kill(self) -> None:
        """SIGKILL only: safe from any thread, even while another one reads the pipe."""
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()

    def stop(self) -> str:
        """Make sure the worker is gone, and say why it went, in words an operator can act on."""
        try:
            returncode = self.process.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            self.signal_kill()
            returncode = self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]
        if returncode == -signal.SIGXCPU:
            return "it used up its CPU time"
        if returncode == -signal.SIGKILL:
            return "it was stopped"
        return "its worker died (out of memory, or a crash)"


class _Job:
    def __init__(self) -> None:
        self.worker: _Worker | None = None
        self.abandoned = False
        self.lock = threading.Lock()

    def abandon(self) -> bool:
        """The caller gave up: kill the worker the job is running on; whether it had started."""
        with self.lock:
            self.abandoned = True
            worker = self.worker
        if worker is not None:
            worker.signal_kill()
        return worker is not None


class IsolatedWorkers:
    """A pool of ``size`` worker processes for CPU-heavy work on untrusted input.

    Workers start when first needed and are reused; one that was killed (deadline, memory, CPU)
    is replaced by the next job. ``close()`` stops them all.
    """

    def __init__(
        self,
        size: int = 2,
        *,
        memory_bytes: int = 1024 * 1024 * 1024,
        cpu_seconds: float = 60.0,
        job_seconds: float = 20.0,
        max_result_bytes: int = 64 * 1024 * 1024,
    ) -> None:
        self.size = size
        self.memory_bytes = memory_bytes
        self.cpu_seconds = cpu_seconds
        self.job_seconds = job_seconds
        self.max_result_bytes = max_result_bytes
        self.jobs_per_caller = max(1, size - 1)
        self._shares: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Shares] = weakref.WeakKeyDictionary()
        self._threads = concurrent.futures.ThreadPoolExecutor(size, thread_name_prefix="steward-isolated")
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self._closed = False
        self.killed = 0
        """Workers killed with their job: deadlines passed, callers gone, limits hit."""

    async def run(
        self,
        function: Callable[..., Any],
        *args: Any,
        result_type: type[T],
        timeout: float | None = None,
        file_access: bool = False,
        **kwargs: Any,
    ) -> T:
        """``function(*args, **kwargs)`` in a worker, decoded as ``result_type``.

        Raises :class:`TimeoutError` after ``timeout`` seconds (``job_seconds`` when not given;
        waiting for a free worker included), the job's own exception when it is of a type
        importable here and built from a message (the plugin's ``InvalidContent``, say), and
        :class:`IsolatedJobFailed` otherwise.
        """
        if timeout is None:
            timeout = self.job_seconds
        cpu = min(timeout, self.cpu_seconds)
        request = msgspec.msgpack.encode(
            _Request(
                function=f"{function.__module__}:{function.__qualname__}",
                args=list(args),
                kwargs=kwargs,
                cpu_seconds=max(1, math.ceil(cpu)),
                file_access=file_access,
            )
        )
        job = _Job()
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._threads, self._call, job, request)
        try:
            async with asyncio.timeout(timeout):
                raw = await future
        except (asyncio.CancelledError, TimeoutError):
            if job.abandon():
                with self._lock:
                    self.killed += 1
            raise
        reply = msgspec.msgpack.decode(raw, type=_Reply)
        if reply.ok:
            try:
                return msgspec.msgpack.decode(reply.value, type=result_type)
            except msgspec.ValidationError as error:
                raise IsolatedJobFailed(f"the job returned something unexpected: {error}") from None
        raise _rebuilt(reply.error_type, reply.message)

    def share(self, caller: str) -> IsolatedShare:
        """The pool as ``caller`` uses it: the same :meth:`run`, with at most ``jobs_per_caller``
        of its jobs running at once (the others wait, within their deadline)."""
        return IsolatedShare(self, caller)

    def _shares_here(self) -> _Shares:
        loop = asyncio.get_running_loop()
        shares = self._shares.get(loop)
        if shares is None:
            shares = self._shares[loop] = _Shares(self.jobs_per_caller)
        return shares

    def close(self) -> None:
        """Kill every worker; jobs still running fail. Safe to call more than once."""
        with self._lock:
            self._closed = True
            workers, self._all, self._idle = list(self._all), set(), []
        for worker in workers:
            worker.signal_kill()
            worker.stop()
        self._threads.shutdown(wait=False, cancel_futures=True)

    def _call(self, job: _Job, request: bytes) -> bytes:
        if job.abandoned:
            raise asyncio.CancelledError
        worker = self._checkout()
        with job.lock:
            abandoned, job.worker = job.abandoned, worker
        if abandoned:
            self._put_back(worker, healthy=True)
            raise asyncio.CancelledError
        try:
            reply = worker.call(request, self.max_result_bytes)
        except (EOFError, OSError, ValueError):
            why = self._discard(worker, count=not job.abandoned)
            if job.abandoned:
                raise asyncio.CancelledError from None
            raise IsolatedJobFailed(f"the job was stopped: {why}") from None
        except IsolatedJobFailed:
            worker.signal_kill()
            self._discard(worker)
            raise
        self._put_back(worker, healthy=not job.abandoned)
        return reply

    def _put_back(self, worker: _Worker, *, healthy: bool) -> None:
        """Back to the idle list; one whose job was abandoned may have been signalled, so it goes."""
        with self._lock:
            keep = healthy and not self._closed
            if keep:
                self._idle.append(worker)
        if not keep:
            worker.signal_kill()
            self._discard(worker, count=False)

    def _checkout(self) -> _Worker:
        with self._lock:
            if self._closed:
                raise IsolatedJobFailed("the worker pool is closed")
            if self._idle:
                return self._idle.pop()
        worker = _Worker(self.memory_bytes)
        with self._lock:
            self._all.add(worker)
        return worker

    def _discard(self, worker: _Worker, *, count: bool = True) -> str:
        with self._lock:
            self._all.discard(worker)
            if count:
                self.killed += 1
        return worker.stop()


class IsolatedShare:
    """One caller's share of :class:`IsolatedWorkers` (``context.isolated`` in a handler)."""

    def __init__(self, pool: IsolatedWorkers, caller: str) -> None:
        self.pool, self.caller = pool, caller

    async def run(
        self,
        function: Callable[..., Any],
        *args: Any,
        result_type: type[T],
        timeout: float | None = None,
        file_access: bool = False,
        **kwargs: Any,
    ) -> T:
        """:meth:`IsolatedWorkers.run`, once one of this caller's slots is free; the wait counts
        toward the deadline."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.pool.job_seconds if timeout is None else timeout)
        shares = self.pool._shares_here()
        async with asyncio.timeout_at(deadline):
            await shares.acquire(self.caller)
        try:
            return await self.pool.run(
                function,
                *args,
                result_type=result_type,
                timeout=max(0.001, deadline - loop.time()),
                file_access=file_access,
                **kwargs,
            )
        finally:
            shares.release(self.caller)


class _Shares:
    """Jobs running per caller on one event loop, and the callers waiting for a slot of their own."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.running: collections.Counter[str] = collections.Counter()
        self._waiting: list[asyncio.Future[None]] = []

    async def acquire(self, caller: str) -> None:
        while self.running[caller] >= self.limit:
            freed = asyncio.get_running_loop().create_future()
            self._waiting.append(freed)
            try:
                await freed
            finally:
                with contextlib.suppress(ValueError):
                    self._waiting.remove(freed)
        self.running[caller] += 1

    def release(self, caller: str) -> None:
        self.running[caller] -= 1
        if not self.running[caller]:
            del self.running[caller]
        waiting, self._waiting = self._waiting, []
        for freed in waiting:
            if not freed.done():
                freed.set_result(None)


def _rebuilt(error_type: str, message: str) -> Exception:
    """The job's exception, if its class is importable and an ``Exception``; else IsolatedJobFailed."""
    module_name, _, qualname = error_type.partition(":")
    try:
        kind: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            kind = getattr(kind, part)
        if isinstance(kind, type) and issubclass(kind, Exception) and not issubclass(kind, OSError):
            return kind(message)
    except Exception:  # noqa: BLE001 - any failure to rebuild it falls back to the generic error
        pass
    return IsolatedJobFailed(f"{qualname or 'the job'}: {message}")


# the worker side
def _serve(memory_bytes: int) -> None:
    """A worker's main loop: read a job, run it under its limits, write the reply.

    The worker limits its own address space first thing (not with ``preexec_fn``, which is unsafe
    in a parent that runs threads), before it reads any job.
    """
    if memory_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    os.environ.clear()
    replies = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    requests = sys.stdin.buffer
    decode = msgspec.msgpack.Decoder(_Request).decode
    encode = msgspec.msgpack.Encoder().encode
    functions: dict[str, Callable[..., Any]] = {}
    while True:
        header = requests.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return
        request = decode(requests.read(_HEADER.unpack(header)[0]))
        try:
            function = functions.get(request.function) or _resolve(request.function)
            functions[request.function] = function
            with _limits(request.cpu_seconds, request.file_access):
                value = function(*request.args, **request.kwargs)
            reply = _Reply(ok=True, value=encode(value))
        except Exception as error:  # noqa: BLE001 - every failure goes back to the parent as a reply
            kind = type(error)
            reply = _Reply(ok=False, error_type=f"{kind.__module__}:{kind.__qualname__}", message=str(error)[:2000])
        payload = encode(reply)
        replies.write(_HEADER.pack(len(payload)) + payload)


def _resolve(reference: str) -> Callable[..., Any]:
    module_name, _, qualname = reference.partition(":")
    target: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


@contextlib.contextmanager
def _limits(cpu_seconds: int, file_access: bool):
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = math.ceil(used.ru_utime + used.ru_stime)
    _, cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (spent + cpu_seconds, cpu_hard))
    files_soft, files_hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if not file_access:
        resource.setrlimit(resource.RLIMIT_NOFILE, (_lowest_free_descriptor(), files_hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (files_soft, files_hard))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_hard, cpu_hard))


def _lowest_free_descriptor() -> int:
    """The number the next ``open`` would get: a limit there lets no new descriptor be made."""
    probe = os.dup(0)
    os.close(probe)
    return probe
