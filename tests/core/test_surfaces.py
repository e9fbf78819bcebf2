"""Capabilities offered on some surfaces only, and one name declared per surface by one plugin."""

import msgspec
import pytest
from starlette.requests import Request
from starlette.routing import Route

import steward
from steward.testing import ScriptedModel, make_host, serve_app, serve_host

SERVICE = frozenset({steward.Surface.SERVICE})
NOT_SERVICE = frozenset(steward.Surface) - SERVICE


class Text(msgspec.Struct, forbid_unknown_fields=True):
    text: str


class Detailed(msgspec.Struct, forbid_unknown_fields=True):
    text: str
    loud: bool = False


async def echo(arguments, context):
    return Text(f"{context.surface}: {arguments.text}")


async def echo_detailed(arguments, context):
    return Text(f"{context.surface}: {arguments.text.upper() if arguments.loud else arguments.text}")


def declare(surfaces, arguments=Text, handler=echo, network="local") -> steward.Capability:
    return steward.Capability(
        "demo.echo", 1, "Echo.", arguments, Text, "read_only", network, handler, surfaces=surfaces
    )


class TwoFaced:
    """demo.echo for models and people, a richer demo.echo for a route of the plugin's own."""

    @steward.hookimpl
    def register_capabilities(self):
        return [declare(NOT_SERVICE), declare(SERVICE, Detailed, echo_detailed, network="external")]

    @steward.hookimpl
    def register_routes(self):
        @steward.require_scope("service")
        async def shout(request: Request):
            body = await steward.read_body(request)
            return steward.json_response(await steward.invoke_capability(request, "demo.echo", body))

        return [Route("/demo/echo", shout, methods=["POST"])]


def test_declarations_must_name_real_and_some_surfaces():
    with pytest.raises(steward.InvalidCapability, match="surfaces"):
        declare({"telepathy"})
    with pytest.raises(steward.InvalidCapability, match="at least one"):
        declare(frozenset())
    assert declare(["service"]).surfaces == SERVICE


def test_one_plugin_may_declare_a_name_once_per_surface(tmp_path):
    class Overlapping:
        @steward.hookimpl
        def register_capabilities(self):
            return [declare(NOT_SERVICE), declare({"invoke", "service"})]

    with pytest.raises(
        steward.PluginLoadFailed, match=r"declares capability 'demo\.echo' twice for the invoke surface"
    ):
        make_host([steward.Plugin("demo", Overlapping())], data_dir=tmp_path)

    class ForPeople:
        @steward.hookimpl
        def register_capabilities(self):
            return [declare(NOT_SERVICE)]

    class ForService:
        @steward.hookimpl
        def register_capabilities(self):
            return [declare(SERVICE)]

    plugins = [steward.Plugin("demo", ForPeople()), steward.Plugin("other", ForService())]
    with pytest.raises(steward.PluginLoadFailed, match="declared by both plugin 'demo' and plugin 'other'"):
        make_host(plugins, data_dir=tmp_path)


@pytest.fixture
def served(tmp_path):
    with serve_host([steward.Plugin("demo", TwoFaced())], data_dir=tmp_path) as server:
        yield server


def test_each_surface_reaches_its_own_declaration(served):
    invoke = served.client(["invoke"]).post("/api/v1/capabilities/demo.echo/invoke", json={"arguments": {"text": "hi"}})
    assert invoke.json()["result"] == {"text": "invoke: hi"}
    loud = served.client(["invoke"]).post(
        "/api/v1/capabilities/demo.echo/invoke", json={"arguments": {"text": "hi", "loud": True}}
    )
    assert loud.status_code == 400
    assert "loud" in loud.json()["error"]["message"]
    service = served.client(["service"], preapproved=["demo.echo"]).post(
        "/demo/echo", json={"text": "hi", "loud": True}
    )
    assert service.json()["result"] == {"text": "service: HI"}
    assert service.json()["classification"]["confirmation"] == "preapproved"
    pending = served.client(["service"]).post("/demo/echo", json={"text": "hi"})
    assert pending.json()["status"] == "pending", "the service variant is external: a person or a pre-approval"
    audit = [(record["capability"], record["surface"], record["status"]) for record in served.audit_records()]
    assert audit == [
        ("demo.echo", "invoke", "ok"),
        ("demo.echo", "invoke", "rejected"),
        ("demo.echo", "service", "started"),
        ("demo.echo", "service", "ok"),
        ("demo.echo", "service", "pending"),
    ]


def test_listings_show_one_entry_with_both_and_models_see_only_theirs(served, tmp_path):
    (listed,) = served.client().get("/api/v1/capabilities").json()["capabilities"]
    assert listed["surfaces"] == ["cli", "conversation", "invoke", "mcp", "service"]
    assert [variant["surfaces"] for variant in listed["variants"]] == [["service"]]
    assert listed["arguments_schema"] != listed["variants"][0]["arguments_schema"]
    schemas = served.client().get("/openapi.json").json()["components"]["schemas"]
    assert "demo.echo[cli,conversation,invoke,mcp].arguments" in schemas
    assert "demo.echo[service].arguments" in schemas
    model = ScriptedModel()
    with serve_app(model.app()) as url:
        config = {"model": {"base_url": f"{url}/v1"}}
        with serve_host([steward.Plugin("demo", TwoFaced())], data_dir=tmp_path / "m", config=config) as server:
            server.client(["conversation"]).post(
                "/api/v1/conversation/message", json={"messages": [{"role": "user", "content": "hello"}]}
            )
    tools = model.requests[0]["tools"]
    assert [tool["function"]["name"] for tool in tools] == ["demo-echo"]
    assert "loud" not in tools[0]["function"]["parameters"]["properties"]


def test_a_surface_without_a_declaration_is_told_so(tmp_path):
    class ServiceOnly:
        @steward.hookimpl
        def register_capabilities(self):
            return [declare(SERVICE)]

    with serve_host([steward.Plugin("demo", ServiceOnly())], data_dir=tmp_path) as server:
        response = server.client(["invoke"]).post(
            "/api/v1/capabilities/demo.echo/invoke", json={"arguments": {"text": "hi"}}
        )
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "demo.echo is not offered on the invoke surface"


def test_the_console_answers_confirmations_and_offers_no_capability(tmp_path):
    """``frozenset(steward.Surface)`` (what plugins write for "everywhere but …") keeps working:
    the console is dropped from a capability's surfaces, never offered, never resolvable."""
    everywhere = declare(frozenset(steward.Surface))
    assert everywhere.surfaces == frozenset(steward.Surface) - {steward.Surface.CONSOLE}
    with pytest.raises(steward.InvalidCapability, match="at least one"):
        declare({"console"})

    class Everywhere:
        @steward.hookimpl
        def register_capabilities(self):
            return [everywhere]

    host = make_host([steward.Plugin("demo", Everywhere())], data_dir=tmp_path)
    try:
        assert host.registry.get("demo.echo", steward.Surface.CONSOLE) is None
        assert host.registry.offered_on(steward.Surface.CONSOLE) == []
    finally:
        host.close()
