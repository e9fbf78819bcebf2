"""More real MCP clients on Steward: stdio (``steward mcp``), the SDK's last 1.x, fastmcp, and two hosts on Redis."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fastmcp
import httpx
import mcp_types as types
import pytest
from fastmcp.client.auth import BearerAuth
from mcp import Client, StdioServerParameters
from sample_plugin import SamplePlugin

import steward
from steward.testing import ServedHost, serve_host

ROOT = Path(__file__).parents[2]
STEWARD = Path(sys.executable).parent / "steward"
MCP1_PYTHON = ROOT / ".venv-mcp1" / "bin" / "python"
YES = {"confirm": {"action": "accept", "content": {"approve": True}}}


@pytest.fixture
def served(sample: SamplePlugin, tmp_path) -> Iterator[ServedHost]:
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path / "data") as server:
        yield server


class Person:
    def __init__(self, approve: bool) -> None:
        self.approve = approve
        self.asked: list[str] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params.message)
        if self.approve:
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="decline")


def stdio(args: list[str], env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(command=str(STEWARD), args=args, env={"PATH": os.environ["PATH"], **env})


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_stdio_bridge_carries_elicitation_to_the_running_server(served, sample, mode, tmp_path):
    env = {"HOME": str(tmp_path), "STEWARD_URL": served.base_url, "STEWARD_KEY": served.key(["invoke"])}
    yes, no = Person(approve=True), Person(approve=False)
    async with Client(stdio(["mcp"], env), mode=mode, elicitation_callback=yes) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        ran = await client.call_tool("sample.room", {"text": "hall"})
    async with Client(stdio(["mcp"], env), mode=mode, elicitation_callback=no) as client:
        declined = await client.call_tool("sample.room", {"text": "kitchen"})
    assert "sample.room" in tools
    assert ran.structured_content == {"text": "hall"}
    assert declined.is_error is True
    assert declined.content[0].text.startswith("Declined")
    assert sample.runs == {"room": 1}
    assert len(yes.asked) == len(no.asked) == 1
    assert {record["surface"] for record in served.audit_records()} == {"mcp"}


@pytest.mark.anyio
async def test_the_stdio_bridge_says_why_when_the_key_is_wrong(served, tmp_path):
    env = {"HOME": str(tmp_path), "STEWARD_URL": served.base_url, "STEWARD_KEY": "stw_wrong"}
    with pytest.raises(Exception) as raised:  # noqa: PT011 - the SDK wraps it in an ExceptionGroup
        async with Client(stdio(["mcp"], env), mode="legacy") as client:
            await client.list_tools()
    assert "UNAUTHORIZED: a valid key is required" in " ".join(messages(raised.value))


def messages(error: BaseException) -> list[str]:
    if isinstance(error, BaseExceptionGroup):
        return [text for inner in error.exceptions for text in messages(inner)]
    return [str(error)]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_steward_mcp_local_hosts_the_installed_plugins_in_process(mode, tmp_path):
    data = tmp_path / "data"
    env = {"HOME": str(tmp_path), "STEWARD_DATA_DIR": str(data)}
    switched = subprocess.run(
        [str(STEWARD), "policy", "set", "web_search_enabled", "true"], env={**os.environ, **env}, capture_output=True
    )
    assert switched.returncode == 0, switched.stderr
    person = Person(approve=False)
    async with Client(stdio(["mcp", "--local"], env), mode=mode, elicitation_callback=person) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        health = await client.call_tool("system.health", {})
        fetch = await client.call_tool("web.fetch", {"url": "http://127.0.0.1:9/never"})
    assert {"system.health", "web.fetch", "web.search"} <= set(tools)
    assert tools["web.fetch"].annotations.open_world_hint is True
    assert health.is_error is False
    assert "system" in health.structured_content["plugins"]
    assert fetch.is_error is True
    assert fetch.content[0].text.startswith("Declined")
    assert "http://127.0.0.1:9/never" in person.asked[0]
    audit = [json.loads(line) for line in (data / "capabilities" / "audit.jsonl").read_text().splitlines()]
    assert [(record["capability"], record["status"]) for record in audit if record["capability"] == "web.fetch"] == [
        ("web.fetch", "pending"),
        ("web.fetch", "denied"),
    ]


@pytest.mark.requires("mcp1")
@pytest.mark.parametrize("answer", ["yes", "no", "none"])
def test_the_last_1x_sdk_client_lists_calls_and_confirms(served, sample, answer):
    run = subprocess.run(
        [
            str(MCP1_PYTHON),
            str(Path(__file__).with_name("mcp1_client.py")),
            served.base_url,
            served.key(["invoke"]),
            answer,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["protocol"] == "2025-11-25"
    assert seen["annotations"]["sample.room"] == {
        "title": "Sample capability room",
        "readOnlyHint": True,
        "destructiveHint": False,
        "openWorldHint": True,
    }
    assert seen["echo"] == {"text": "hi"}
    if answer == "yes":
        assert seen["room"] == {"isError": False, "text": '{"text":"hall"}', "structured": {"text": "hall"}}
        assert sample.runs == {"echo": 1, "room": 1}
    else:
        assert seen["room"]["isError"] is True
        expected = "Declined" if answer == "no" else "CONFIRMATION_REQUIRED"
        assert seen["room"]["text"].startswith(expected)
        assert sample.runs == {"echo": 1}
    assert len(seen["asked"]) == (0 if answer == "none" else 1)


@pytest.mark.anyio
async def test_fastmcp_client_lists_calls_and_confirms(served, sample):
    asked: list[str] = []

    async def person(message: str, response_type: Any, params: Any, context: Any) -> dict[str, Any]:
        asked.append(message)
        return {"approve": True}

    client = fastmcp.Client(
        served.base_url + "/mcp", auth=BearerAuth(served.key(["invoke"])), elicitation_handler=person
    )
    async with client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        health = await client.call_tool("sample.echo", {"text": "hi"})
        room = await client.call_tool("sample.room", {"text": "kitchen"})
    assert tools["sample.room"].annotations.open_world_hint is True
    assert health.structured_content == {"text": "hi"}
    assert room.structured_content == {"text": "kitchen"}
    assert len(asked) == 1
    assert sample.runs == {"echo": 1, "room": 1}


@pytest.fixture
def two_hosts(sample: SamplePlugin, redis_url: str, tmp_path) -> Iterator[tuple[ServedHost, ServedHost]]:
    config = {"state": {"backend": "redis", "url": redis_url}}
    plugins = [steward.Plugin("sample", sample)]
    with (
        serve_host(plugins, data_dir=tmp_path / "a", config=config) as first,
        serve_host(plugins, data_dir=tmp_path / "b", config=config) as second,
    ):
        yield first, second


def test_on_redis_a_stateless_retry_may_reach_another_host_and_runs_once(two_hosts, sample):
    first = two_hosts[0]
    key = first.key(["invoke"])
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    }
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    params = {"name": "sample.room", "arguments": {"text": "hall"}, "_meta": meta}
    headers = {"Authorization": f"Bearer {key}"}
    asked = httpx.post(first.base_url + "/mcp", json={**call, "params": params}, headers=headers).json()["result"]
    retry = {**call, "id": 2, "params": {**params, "requestState": asked["requestState"], "inputResponses": YES}}

    async def approve_on_both() -> list[dict[str, Any]]:
        async with httpx.AsyncClient(headers=headers, timeout=30) as client:
            answers = await asyncio.gather(
                *(client.post(host.base_url + "/mcp", json=retry) for _ in range(25) for host in two_hosts)
            )
        return [answer.json()["result"] for answer in answers]

    results = asyncio.run(approve_on_both())
    assert sum(not result["isError"] for result in results) == 1
    assert sample.runs == {"room": 1}


@pytest.mark.anyio
async def test_on_redis_a_handshake_session_and_its_elicitation_answer_may_reach_another_host(two_hosts, sample):
    first, second = two_hosts
    auth = {"Authorization": f"Bearer {first.key(['invoke'])}", "Accept": "application/json, text/event-stream"}
    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "sample.room", "arguments": {"text": "hall"}},
    }
    async with httpx.AsyncClient(headers=auth, timeout=30) as client:
        opened = await client.post(first.base_url + "/mcp", json=initialize)
        session = {"Mcp-Session-Id": opened.headers["mcp-session-id"]}
        listed = await client.post(
            second.base_url + "/mcp", json={"jsonrpc": "2.0", "id": 9, "method": "tools/list"}, headers=session
        )
        assert "sample.room" in {tool["name"] for tool in listed.json()["result"]["tools"]}
        final = None
        async with client.stream("POST", first.base_url + "/mcp", json=call, headers=session) as stream:
            async for line in stream.aiter_lines():
                if not line.startswith("data:"):
                    continue
                event = json.loads(line[5:])
                if event.get("method") == "elicitation/create":
                    answer = {
                        "jsonrpc": "2.0",
                        "id": event["id"],
                        "result": {"action": "accept", "content": {"approve": True}},
                    }
                    assert (
                        await client.post(second.base_url + "/mcp", json=answer, headers=session)
                    ).status_code == 202
                elif event.get("id") == 1:
                    final = event["result"]
    assert final["structuredContent"] == {"text": "hall"}
    assert sample.runs == {"room": 1}


@pytest.mark.anyio
@pytest.mark.parametrize("how", ["bridge", "local"])
async def test_a_policy_change_reaches_a_stdio_client_as_tools_list_changed(served, how, tmp_path):
    if how == "bridge":
        env = {"HOME": str(tmp_path), "STEWARD_URL": served.base_url, "STEWARD_KEY": served.key(["invoke"])}
        args = ["mcp"]

        def switch(value: bool) -> None:
            served.set_policy("sample_enabled", value)
    else:
        env = {"HOME": str(tmp_path), "STEWARD_DATA_DIR": str(tmp_path / "local")}
        args = ["mcp", "--local"]

        def switch(value: bool) -> None:
            command = [str(STEWARD), "policy", "set", "web_search_enabled", str(value).lower()]
            assert subprocess.run(command, env={**os.environ, **env}, capture_output=True).returncode == 0

    changed = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with Client(stdio(args, env), mode="legacy", message_handler=on_message) as client:
        await client.list_tools()
        for flip in range(20):  # the listening stream may open just after list_tools: flip until one is seen
            switch(flip % 2 == 0)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), 1.5)
                break
    assert changed.is_set()
