"""Steward against a real model server: llama.cpp's llama-server serving SmolLM2-135M-Instruct.

What a scripted model cannot show: that llama-server's own answers (its tool-call parsing
included) go through the conversation loop, the digest and the reranker as the scripted ones do,
and what Steward does when the server dies in the middle of a turn. The 135M model is too small
to choose a tool by itself, so one test puts a loopback proxy between Steward and the server that
prefills the model's first reply of a turn with a call (see :func:`requiring_a_tool`): the proxy
is the test's, and what Steward sends any server is unchanged.
"""

from __future__ import annotations

import json
import math

import httpx
import msgspec
import pytest
import steward_websearch
from llama import chat_options, start
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import steward
from steward.testing import serve_app, serve_host

pytestmark = pytest.mark.requires("llama-server")

MESSAGE = "/api/v1/conversation/message"
SERVICE_KEY = {"scopes": ["service"], "preapproved": ["web.fetch", "web.search"]}


class Nothing(msgspec.Struct, forbid_unknown_fields=True):
    pass


class Boiled(msgspec.Struct):
    status: str


class Kitchen:
    """One capability that changes something (so a person must approve it) and takes no arguments."""

    def __init__(self) -> None:
        self.boiled = 0

    @steward.hookimpl
    def register_capabilities(self) -> list[steward.Capability]:
        async def boil(arguments: Nothing, context: steward.InvocationContext) -> Boiled:
            self.boiled += 1
            return Boiled(status="the kettle is boiling")

        return [
            steward.Capability(
                name="kitchen.boil_kettle",
                version=1,
                description="Switch the kettle on to boil water.",
                arguments=Nothing,
                result=Boiled,
                side_effect=steward.SideEffect.MUTATING,
                network=steward.Network.LOCAL,
                handler=boil,
            )
        ]


CALL_OPENING = '<tool_call>\n{"name": "kitchen-boil_kettle", "arguments": {}}\n</tool_call>'
"""A call as the tools template has a model write it (Hermes/Qwen ``<tool_call>`` JSON)."""


def requiring_a_tool(upstream: str, seen: list[dict]) -> Starlette:
    """A proxy to ``upstream`` that has the model call a tool at the first request of a turn.

    The 135M model does not choose tools, and llama-server (this build) did not enforce
    ``tool_choice: "required"`` here; so for a request that ends with the person's message, the
    proxy prefills the assistant's reply with the call's text and asks for one more token. What
    comes back is llama-server's own parse of that reply into ``tool_calls``. Every other request
    passes unchanged."""

    async def forward(request: Request) -> Response:
        body = await request.body()
        if request.method == "POST" and request.url.path.endswith("/chat/completions"):
            sent = json.loads(body)
            seen.append(sent)
            if sent.get("tools") and sent["messages"][-1]["role"] == "user":
                prefilled = [*sent["messages"], {"role": "assistant", "content": CALL_OPENING}]
                body = json.dumps({**sent, "messages": prefilled, "max_tokens": 1}).encode()
        async with httpx.AsyncClient(timeout=120) as client:
            answer = await client.request(
                request.method,
                f"{upstream}{request.url.path}",
                content=body,
                headers={"content-type": "application/json"},
            )
        seen.append({"reply": answer.json()} if answer.status_code == 200 else {"status": answer.status_code})
        return Response(answer.content, status_code=answer.status_code, media_type="application/json")

    return Starlette(routes=[Route("/{path:path}", forward, methods=["GET", "POST"])])


def test_a_conversation_turn_is_answered_by_the_real_model(chat_server, tmp_path):
    config = {"model": {"base_url": f"{chat_server.url}/v1", "max_tokens": 48}}
    with serve_host([], data_dir=tmp_path, config=config) as served:
        answer = served.client(["conversation"]).post(
            MESSAGE, json={"messages": [{"role": "user", "content": "Say hello in one short sentence."}]}
        )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["text"].strip()
    assert body["invocations"] == []
    assert "pending_confirmation" not in body or body["pending_confirmation"] is None


def test_a_tool_call_parsed_by_llama_server_goes_through_confirmation_and_back_to_the_model(chat_server, tmp_path):
    kitchen, seen = Kitchen(), []
    with serve_app(requiring_a_tool(chat_server.url, seen)) as proxy:
        config = {"model": {"base_url": f"{proxy}/v1", "max_tokens": 64, "temperature": 0}}
        with serve_host([steward.Plugin("kitchen", kitchen)], data_dir=tmp_path, config=config) as served:
            person = served.client(["conversation"])
            paused = person.post(MESSAGE, json={"messages": [{"role": "user", "content": "Boil the kettle, please."}]})
            assert paused.status_code == 200, paused.text
            pending = paused.json()["pending_confirmation"]
            assert pending["capability"] == "kitchen.boil_kettle"
            assert pending["arguments"] == {}
            assert kitchen.boiled == 0, "nothing runs before a person says yes"
            resumed = person.post(MESSAGE, json={"confirmation": {"token": pending["token"], "approve": True}})
    assert resumed.status_code == 200, resumed.text
    body = resumed.json()
    assert kitchen.boiled == 1
    assert [(item["capability"], item["status"]) for item in body["invocations"]] == [("kitchen.boil_kettle", "ok")]
    first_reply = next(item["reply"] for item in seen if "reply" in item)
    calls = first_reply["choices"][0]["message"]["tool_calls"]
    assert [call["function"]["name"] for call in calls] == ["kitchen-boil_kettle"], "llama-server parsed the call"
    last_request = [item for item in seen if "messages" in item][-1]
    tool_results = [message for message in last_request["messages"] if message["role"] == "tool"]
    assert len(tool_results) == 1
    assert "the kettle is boiling" in tool_results[0]["content"]
    assert all("tool_choice" not in item for item in seen if "messages" in item), "Steward sends no tool_choice"
    assert all(item.get("temperature") == 0 for item in seen if "messages" in item), (
        "greedy: what the model says after the tool's result is the same every run"
    )


def test_the_server_killed_mid_turn_is_a_clear_error_and_nothing_runs_twice(llama_binary, tmp_path):
    own = start(llama_binary, *chat_options(llama_binary))
    kitchen, seen = Kitchen(), []
    try:
        with serve_app(requiring_a_tool(own.url, seen)) as proxy:
            config = {"model": {"base_url": f"{proxy}/v1", "max_tokens": 64, "timeout": 10}}
            with serve_host([steward.Plugin("kitchen", kitchen)], data_dir=tmp_path, config=config) as served:
                person = served.client(["conversation"])
                paused = person.post(MESSAGE, json={"messages": [{"role": "user", "content": "Boil the kettle."}]})
                token = paused.json()["pending_confirmation"]["token"]
                own.stop()
                resumed = person.post(MESSAGE, json={"confirmation": {"token": token, "approve": True}})
                health = served.client(["admin"]).get("/healthz").json()
    finally:
        own.stop()
    assert resumed.status_code == 503, resumed.text
    assert resumed.json()["error"]["code"] == "MODEL_UNAVAILABLE"
    assert "cannot be reached" in resumed.json()["error"]["message"] or "HTTP 5" in resumed.json()["error"]["message"]
    assert kitchen.boiled == 1, "the approved call ran once; the model that would read its result is gone"
    model_check = next(check for check in health["checks"] if check["name"] == "model")
    assert model_check["ok"] is False


def test_real_embeddings_have_576_dimensions_and_rerank_a_search(embedding_server, tmp_path):
    from upstreams import SearxShaped

    answer = httpx.post(f"{embedding_server.url}/v1/embeddings", json={"input": ["kettle", "a kettle boils"]}).json()
    vectors = [item["embedding"] for item in answer["data"]]
    assert [len(vector) for vector in vectors] == [576, 576]
    assert all(math.isfinite(value) for vector in vectors for value in vector)
    searx = SearxShaped()
    with serve_app(searx.app()) as searx_url:
        settings = {
            "searxng_url": searx_url,
            "rerank": {"base_url": f"{embedding_server.url}/v1", "timeout": 30},
        }
        with serve_host([steward_websearch], data_dir=tmp_path, config={"plugins": {"websearch": settings}}) as served:
            served.set_policy("web_search_enabled", True)
            body = (
                served.client(**SERVICE_KEY)
                .post("/v1/search", json={"query": "kettles", "question": "number 6", "k": 8, "rerank": True})
                .json()
            )
    assert body["warnings"] == []
    scores = [hit["score"] for hit in body["results"]]
    assert scores == sorted(scores, reverse=True)
    assert all(-1 <= score <= 1 for score in scores)
    assert len(set(scores)) > 1, "real vectors tell the results apart"


DIGEST_WAIT = 150
"""Seconds the test's client waits for a digest: longer than the model's own timeout (120 s), so
that a slow model fails as the service reports it, not as the client giving up first (at its
default 30 s, on a 2-core machine busy with more than the test)."""


def test_a_digest_is_written_by_the_real_model(chat_server, tmp_path):
    from loopback import TEST_ADDRESS
    from upstreams import SearxShaped, Site

    site, searx = Site(), SearxShaped()
    with serve_app(site.app(), host=TEST_ADDRESS) as site_url, serve_app(searx.app()) as searx_url:
        port = int(site_url.rsplit(":", 1)[1])
        settings = {
            "searxng_url": searx_url,
            "allowed_networks": [f"{TEST_ADDRESS}/32"],
            "allowed_ports": [port],
            "digest": {"base_url": f"{chat_server.url}/v1", "timeout": 120, "max_tokens": 80, "thinking": "off"},
        }
        with serve_host([steward_websearch], data_dir=tmp_path, config={"plugins": {"websearch": settings}}) as served:
            served.set_policy("web_search_enabled", True)
            fetched = served.client(**SERVICE_KEY, timeout=DIGEST_WAIT).post(
                "/v1/fetch", json={"url": f"{site_url}/article", "mode": "digest", "question": "What do kettles do?"}
            )
    assert fetched.status_code == 200, fetched.text
    body = fetched.json()
    assert body["mode"] == "digest", body["warnings"]
    assert body["warnings"] == []
    assert body["content"].strip()
    assert "<think>" not in body["content"]
    assert "untrusted-page" not in body["content"]
