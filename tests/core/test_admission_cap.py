"""server.max_concurrent_invocations is one cap for the whole host, whichever surface asks, and a
call that waits for a person's answer holds no slot."""

from __future__ import annotations

import asyncio

import httpx
import msgspec
import pytest
from mcp_raw import call_answering, open_session
from sample_plugin import SamplePlugin

import steward
from steward.testing import serve_host

STATELESS = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


class Nap(msgspec.Struct):
    seconds: float


class Napped(msgspec.Struct):
    seconds: float


class Sleeper:
    @steward.hookimpl
    def register_capabilities(self) -> list[steward.Capability]:
        async def nap(arguments: Nap, context: steward.InvocationContext) -> Napped:
            await asyncio.sleep(arguments.seconds)
            return Napped(arguments.seconds)

        return [
            steward.Capability(
                name="sleeper.nap",
                version=1,
                description="Sleeps.",
                arguments=Nap,
                result=Napped,
                side_effect="read_only",
                network="local",
                handler=nap,
                bounds=steward.Bounds(timeout_seconds=10),
            )
        ]


def rest(client: httpx.AsyncClient, seconds: float):
    return client.post("/api/v1/capabilities/sleeper.nap/invoke", json={"arguments": {"seconds": seconds}})


def mcp(client: httpx.AsyncClient, seconds: float, number: int = 1):
    call = {
        "jsonrpc": "2.0",
        "id": number,
        "method": "tools/call",
        "params": {"name": "sleeper.nap", "arguments": {"seconds": seconds}, "_meta": STATELESS},
    }
    return client.post("/mcp", json=call)


@pytest.mark.parametrize(("slow", "third"), [(rest, mcp), (mcp, rest)], ids=["rest-then-mcp", "mcp-then-rest"])
def test_two_slow_calls_on_one_surface_make_a_third_on_another_busy(tmp_path, slow, third):
    config = {"server": {"max_concurrent_invocations": 2}}
    with serve_host([steward.Plugin("sleeper", Sleeper())], data_dir=tmp_path, config=config) as served:
        key = served.key(["invoke"])

        async def race() -> tuple[list[httpx.Response], httpx.Response]:
            headers = {"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream"}
            async with httpx.AsyncClient(base_url=served.base_url, headers=headers, timeout=30) as client:
                running = [asyncio.ensure_future(slow(client, 1.5)) for _ in range(2)]
                await asyncio.sleep(0.5)
                refused = await third(client, 0)
                return list(await asyncio.gather(*running)), refused

        finished, refused = asyncio.run(race())
    assert [answer.status_code for answer in finished] == [200, 200]
    assert refused.status_code == 429
    assert "BUSY" in refused.text


def test_a_call_waiting_for_a_persons_answer_holds_no_slot(sample: SamplePlugin, tmp_path):
    config = {"server": {"max_concurrent_invocations": 1}}
    plugins = [steward.Plugin("sample", sample), steward.Plugin("sleeper", Sleeper())]
    with serve_host(plugins, data_dir=tmp_path, config=config) as served:
        key = served.key(["invoke"])

        async def ask_and_meanwhile_run() -> list[int]:
            auth = {"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream"}
            statuses: list[int] = []

            async def meanwhile_run_then_decline(request: dict) -> dict:
                statuses.append((await rest(client, 0)).status_code)
                statuses.append((await mcp(client, 0, 7)).status_code)
                return {"jsonrpc": "2.0", "id": request["id"], "result": {"action": "decline"}}

            async with httpx.AsyncClient(base_url=served.base_url, headers=auth, timeout=30) as client:
                session = await open_session(client)
                await call_answering(client, session, "sample.room", {"text": "hall"}, meanwhile_run_then_decline)
            return statuses

        assert asyncio.run(ask_and_meanwhile_run()) == [200, 200], "the waiting call held no slot"
    assert sample.runs == {}
