"""The example plugin's own tests: a real Steward server and a real quote server, both on loopback."""

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

import steward_example
from steward.testing import serve_app, serve_host


@pytest.fixture
def quote_service():
    seen = []

    async def quote(request):
        seen.append(dict(request.query_params))
        return PlainTextResponse(f"A quote about {request.query_params['topic']}.")

    with serve_app(Starlette(routes=[Route("/quote", quote)])) as base_url:
        yield f"{base_url}/quote", seen


@pytest.fixture
def server(tmp_path, quote_service):
    url, _ = quote_service
    with serve_host(
        [steward_example], data_dir=tmp_path, config={"plugins": {"example": {"quote_url": url}}}
    ) as served:
        yield served


def invoke(client, name, body):
    return client.post(f"/api/v1/capabilities/{name}/invoke", json=body)


def test_greet_runs_without_confirmation(server):
    response = invoke(server.client(["invoke"]), "example.greet", {"arguments": {"name": "Ada"}})
    assert response.json()["result"] == {"text": "Hello, Ada!"}


def test_quote_needs_the_flag_then_a_person(server, quote_service):
    _, seen = quote_service
    client = server.client(["invoke"])
    assert invoke(client, "example.quote", {"arguments": {"topic": "tea"}}).json()["code"] == "CAPABILITY_DISABLED"
    server.set_policy("example_quotes_enabled", True)
    pending = invoke(client, "example.quote", {"arguments": {"topic": "tea"}}).json()["pending_confirmation"]
    assert pending["arguments"] == {"topic": "tea", "style": "short"}
    assert seen == []
    approved = invoke(client, "example.quote", {"confirmation": {"token": pending["token"], "approve": True}})
    assert approved.json()["result"] == {"topic": "tea", "quote": "A quote about tea."}
    assert seen == [{"topic": "tea", "style": "short"}]


def test_quote_refused_before_confirmation_when_not_configured(tmp_path):
    with serve_host([steward_example], data_dir=tmp_path) as served:
        served.set_policy("example_quotes_enabled", True)
        response = invoke(served.client(["invoke"]), "example.quote", {"arguments": {"topic": "tea"}})
    assert (response.status_code, response.json()["code"]) == (409, "CAPABILITY_NOT_CONFIGURED")


def test_health_check_reaches_the_quote_service(server):
    checks = server.client().get("/healthz").json()["checks"]
    mine = [check for check in checks if check["plugin"] == "example"]
    assert mine == [{"name": "quote service", "plugin": "example", "ok": True, "detail": "answers"}]
