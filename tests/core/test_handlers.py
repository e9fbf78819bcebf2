"""Handlers that block: a plain def runs in a thread and is answered at its deadline; an async
handler that blocks the loop is named in the log, the metrics and /healthz."""

import concurrent.futures
import logging
import threading
import time

import httpx
import msgspec

import steward
from steward.testing import serve_host


class Nothing(msgspec.Struct):
    pass


class Done(msgspec.Struct):
    text: str


class Blockers:
    def __init__(self) -> None:
        self.finished = threading.Event()

    @steward.hookimpl
    def register_capabilities(self) -> list[steward.Capability]:
        def sleepy(arguments: Nothing, context: steward.InvocationContext) -> Done:
            time.sleep(2)
            self.finished.set()
            return Done("slept")

        def quick(arguments: Nothing, context: steward.InvocationContext) -> Done:
            return Done(threading.current_thread().name)

        async def rude(arguments: Nothing, context: steward.InvocationContext) -> Done:
            time.sleep(0.3)
            return Done("blocked the loop")

        def declare(name, handler, timeout=10.0):
            return steward.Capability(
                name=f"blocking.{name}",
                version=1,
                description=f"{name}.",
                arguments=Nothing,
                result=Done,
                side_effect="read_only",
                network="local",
                handler=handler,
                bounds=steward.Bounds(timeout_seconds=timeout),
            )

        return [declare("sleepy", sleepy, timeout=0.5), declare("quick", quick), declare("rude", rude)]


def invoke(client, name):
    return client.post(f"/api/v1/capabilities/blocking.{name}/invoke", json={"arguments": {}})


def test_a_plain_def_runs_in_a_thread_and_is_answered_at_its_deadline(tmp_path):
    plugin = Blockers()
    with serve_host([steward.Plugin("blocking", plugin)], data_dir=tmp_path) as served:
        client = served.client(["invoke"])
        assert invoke(client, "quick").json()["result"]["text"].startswith("steward-blocking")
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pending = pool.submit(invoke, client, "sleepy")
            health = []
            while not pending.done():
                health.append(httpx.get(f"{served.base_url}/healthz").status_code)
            answer = pending.result()
        assert answer.json()["code"] == "TIMEOUT"
        assert not plugin.finished.is_set(), "the answer came at the deadline, before the sleep ended"
        assert len(health) >= 2, "the server answered /healthz while the handler slept"
        assert plugin.finished.wait(5), "the thread finished on its own"


def test_an_async_handler_that_blocks_the_loop_is_named(tmp_path, caplog):
    with serve_host([steward.Plugin("blocking", Blockers())], data_dir=tmp_path) as served:
        client = served.client(["admin"])
        with caplog.at_level(logging.WARNING, logger="steward.handlers"):
            assert invoke(client, "rude").json()["status"] == "ok"
        assert "blocking.rude blocked the event loop" in caplog.text
        assert 'steward_loop_blocked_total{capability="blocking.rude"} 1.0' in client.get("/metrics").text
        health = client.get("/healthz").json()
        assert health["status"] == "degraded"
        assert any("blocking.rude blocked the event loop" in problem for problem in health["problems"])
        assert invoke(client, "quick").json()["status"] == "ok"
        assert not any("blocking.quick" in problem for problem in client.get("/healthz").json()["problems"])
