"""Steward's MCP surface driven by the official MCP SDK client (2.x) over Streamable HTTP.

Every behaviour is checked in both protocol eras the SDK speaks: ``auto`` settles on the
stateless 2026-07-28 revision (input asked for with ``input_required`` and a retry), ``legacy``
on the 2025-11-25 handshake (input asked for with a request on the call's event stream).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import httpx2
import mcp_types as types
import msgspec
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sample_plugin import SamplePlugin

import steward
import steward_system
from steward.testing import ServedHost, serve_host

pytestmark = pytest.mark.anyio
MODES = {"auto": "2026-07-28", "legacy": "2025-11-25"}


class Level(msgspec.Struct):
    level: int


class HousePlugin:
    """A mutating, idempotent capability next to the sample ones: the annotation table's last row."""

    def __init__(self) -> None:
        self.levels: list[int] = []

    @steward.hookimpl
    def register_capabilities(self) -> list[steward.Capability]:
        async def dim(arguments: Level, context: steward.InvocationContext) -> Level:
            self.levels.append(arguments.level)
            return arguments

        return [
            steward.Capability(
                name="house.dim",
                version=1,
                description="Dims the hall light to a level. It stays there until changed.",
                arguments=Level,
                result=Level,
                side_effect="mutating",
                network="local",
                handler=dim,
                idempotent=True,
            )
        ]


@pytest.fixture
def house() -> HousePlugin:
    return HousePlugin()


@pytest.fixture
def served(sample: SamplePlugin, house: HousePlugin, tmp_path) -> Iterator[ServedHost]:
    plugins = [
        steward.Plugin("sample", sample),
        steward.Plugin("house", house),
        steward.Plugin("system", steward_system),
    ]
    with serve_host(plugins, data_dir=tmp_path / "data") as server:
        yield server


class Person:
    """The elicitation handler: answers as told and remembers what it was shown."""

    def __init__(self, action: str = "accept", approve: bool = True) -> None:
        self.action, self.approve = action, approve
        self.asked: list[types.ElicitRequestParams] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params)
        content = {"approve": self.approve} if self.action == "accept" else None
        return types.ElicitResult(action=self.action, content=content)


@contextlib.asynccontextmanager
async def connect(
    served: ServedHost, key: str, mode: str, person: Person | None = None, **options: Any
) -> AsyncIterator[Client]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30)
    transport = streamable_http_client(served.base_url + "/mcp", http_client=http)
    async with Client(transport, mode=mode, elicitation_callback=person, **options) as client:
        assert client.protocol_version == MODES[mode]
        yield client


def surfaced(served: ServedHost, capability: str) -> list[dict[str, Any]]:
    return [record for record in served.audit_records() if record["capability"] == capability]


@pytest.fixture(params=sorted(MODES))
def mode(request) -> str:
    return request.param


async def test_tools_carry_schemas_and_annotations_from_the_classification(served, mode):
    async with connect(served, served.key(["invoke"]), mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    offered = {entry.capability.name for entry in served.host.registry.offered_on(steward.Surface.MCP)}
    assert set(tools) == offered
    echo, room, dim = tools["sample.echo"], tools["sample.room"], tools["house.dim"]
    assert echo.input_schema["properties"]["text"]["maxLength"] == 100
    assert echo.input_schema["required"] == ["text"]
    assert echo.output_schema["properties"] == {"text": {"type": "string"}}
    assert (echo.annotations.read_only_hint, echo.annotations.destructive_hint) == (True, False)
    assert (echo.annotations.open_world_hint, echo.annotations.idempotent_hint) == (False, None)
    assert (room.annotations.read_only_hint, room.annotations.open_world_hint) == (True, True)
    assert (dim.annotations.read_only_hint, dim.annotations.destructive_hint) == (False, True)
    assert (dim.annotations.open_world_hint, dim.annotations.idempotent_hint) == (False, True)
    assert dim.title == "Dims the hall light to a level"


async def test_system_health_runs_at_once_with_structured_content(served, mode):
    async with connect(served, served.key(["invoke"]), mode) as client:
        result = await client.call_tool("system.health", {})
    assert result.is_error is False
    assert sorted(result.structured_content["plugins"]) == ["house", "sample", "system"]
    assert json.loads(result.content[0].text) == result.structured_content
    (record,) = surfaced(served, "system.health")
    assert (record["surface"], record["status"]) == ("mcp", "ok")


async def test_a_yes_through_elicitation_runs_it_once_with_the_arguments_shown(served, sample, mode):
    person = Person()
    async with connect(served, served.key(["invoke"]), mode, person) as client:
        result = await client.call_tool("sample.room", {"text": "kitchen"})
    assert (result.is_error, result.structured_content) == (False, {"text": "kitchen"})
    assert sample.runs == {"room": 1}
    (asked,) = person.asked
    assert "sample.room" in asked.message
    assert '"text": "kitchen"' in asked.message
    assert "leaves this device" in asked.message
    assert asked.requested_schema["required"] == ["approve"]
    statuses = [(record["status"], record["surface"]) for record in surfaced(served, "sample.room")]
    assert statuses == [("pending", "mcp"), ("started", "mcp"), ("ok", "mcp")]


@pytest.mark.parametrize(
    ("action", "approve"),
    [("decline", False), ("cancel", False), ("accept", False)],
    ids=["decline", "cancel", "unticked"],
)
async def test_no_cancel_or_an_unticked_form_never_runs_it(served, sample, mode, action, approve):
    async with connect(served, served.key(["invoke"]), mode, Person(action, approve)) as client:
        result = await client.call_tool("house.dim", {"level": 30})
    assert result.is_error is True
    assert result.content[0].text.startswith("Declined")
    assert result.meta["dev.steward/outcome"]["code"] == "CONFIRMATION_DENIED"
    assert sample.runs == {}
    assert [record["status"] for record in surfaced(served, "house.dim")] == ["pending", "denied"]


async def test_a_client_without_elicitation_gets_an_error_naming_the_pending_confirmation(served, house, mode):
    async with connect(served, served.key(["invoke"]), mode) as client:
        result = await client.call_tool("house.dim", {"level": 30})
    assert result.is_error is True
    text = result.content[0].text
    facts = result.meta["dev.steward/outcome"]
    assert facts["code"] == "CONFIRMATION_REQUIRED"
    assert facts["status"] == "pending"
    assert re.fullmatch(r"c-[0-9a-f]{16}", facts["confirmation"])
    assert facts["confirmation"] in text
    assert f"{served.base_url}/console" in text
    assert '"level": 30' in text
    assert "Nothing ran" in text
    assert house.levels == []
    assert [record["status"] for record in surfaced(served, "house.dim")] == ["pending"]


async def test_a_preapproved_key_runs_at_once_audited_as_preapproved(served, house, mode):
    key = served.key(["invoke"], preapproved=["house.dim"])
    person = Person()
    async with connect(served, key, mode, person) as client:
        result = await client.call_tool("house.dim", {"level": 10})
    assert result.structured_content == {"level": 10}
    assert person.asked == []
    assert house.levels == [10]
    (started, finished) = surfaced(served, "house.dim")
    assert started["classification"]["confirmation"] == "preapproved"
    assert (finished["status"], finished["surface"]) == ("ok", "mcp")


async def test_a_policy_disabled_tool_is_listed_as_off_and_refused(served, sample, mode):
    served.set_policy("sample_enabled", False)
    person = Person()
    async with connect(served, served.key(["invoke"]), mode, person) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("sample.send", {"text": "hi"})
    assert "policy flag sample_enabled is off" in tools["sample.send"].description
    assert "is off" not in tools["sample.echo"].description
    assert result.is_error is True
    assert result.content[0].text.startswith("CAPABILITY_DISABLED")
    assert person.asked == []
    assert sample.runs == {}


async def test_invalid_arguments_and_failures_are_tool_errors_unknown_tools_protocol_errors(served, mode):
    async with connect(served, served.key(["invoke"]), mode) as client:
        invalid = await client.call_tool("sample.echo", {"text": ""})
        failed = await client.call_tool("sample.boom", {})
        with pytest.raises(Exception, match="Unknown tool") as unknown:
            await client.call_tool("sample.nothing", {})
    assert invalid.is_error
    assert invalid.content[0].text.startswith("INVALID_ARGUMENTS")
    assert failed.is_error
    assert "hunter2" not in failed.content[0].text
    assert unknown.value.error.code == -32602


async def test_a_policy_change_is_announced_as_tools_list_changed(served, mode):
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    served.set_policy("sample_enabled", False)
    async with connect(served, served.key(["invoke"]), mode, message_handler=on_message) as client:
        before = {tool.name: tool for tool in (await client.list_tools()).tools}
        if mode == "auto":
            async with client.listen(tools_list_changed=True) as subscription:
                served.set_policy("sample_enabled", True)
                with anyio.fail_after(10):
                    await anext(aiter(subscription))
        else:
            await client.list_tools()
            served.set_policy("sample_enabled", True)
            with anyio.fail_after(10):
                await changed.wait()
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert "is off" in before["sample.send"].description
    assert "is off" not in tools["sample.send"].description
