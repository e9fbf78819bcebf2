"""Conversation turns over the real HTTP app, driven by a real scripted model server on loopback."""

import concurrent.futures
import json
import socket

import httpx
import pytest
from sample_plugin import INJECTION

import steward
from steward._conversation import SYSTEM_PROMPT
from steward.testing import Rule, ScriptedModel, serve_app, serve_host

MESSAGE = "/api/v1/conversation/message"
RULES = [
    Rule(r"echo (\w+)", calls=[("sample.echo", {"text": "{1}"})]),
    Rule(r'send "([^"]+)"', calls=[("sample.send", {"text": "{1}"})]),
    Rule(r"\bfind\b", calls=[("sample.find", {})]),
    Rule(r"tick thrice", calls=[("sample.tick", {})] * 3),
    Rule(
        r"\bboth\b",
        calls=[("sample.echo", {"text": "first"}), ("sample.send", {"text": "second"}), ("sample.tick", {})],
        text="Doing three things.",
    ),
    Rule(r"\bpage\b", calls=[("sample.page", {})]),
    Rule(r"\bbroken\b", calls=[("sample.echo", '{"text": ')]),
    Rule(r"\blist\b", calls=[("sample.echo", "[1, 2]")]),
    Rule(r"\bunknown\b", calls=[("sample.nothing", {})]),
]


@pytest.fixture
def model():
    return ScriptedModel(rules=RULES)


@pytest.fixture
def served(model, sample, clock, tmp_path):
    with serve_app(model.app()) as model_url:
        config = {"model": {"base_url": f"{model_url}/v1", "api_key": "model-secret-key-123"}}
        with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=config, clock=clock) as server:
            yield server


@pytest.fixture
def client(served):
    return served.client(["conversation"])


def say(client, text, history=()):
    return client.post(MESSAGE, json={"messages": [*history, {"role": "user", "content": text}]})


def answer(client, token, approve=True):
    return client.post(MESSAGE, json={"confirmation": {"token": token, "approve": approve}})


def receipts(body):
    return [(item["capability"], item["status"], item["code"]) for item in body["invocations"]]


def tool_messages(request):
    return [json.loads(message["content"]) for message in request["messages"] if message["role"] == "tool"]


def test_automatic_turn_runs_to_the_end_in_one_request(client, model, sample):
    response = say(client, "please echo hello")
    assert response.status_code == 200
    body = response.json()
    assert body["pending_confirmation"] is None
    assert receipts(body) == [("sample.echo", "ok", None)]
    assert body["invocations"][0]["classification"]["confirmation"] == "automatic"
    assert 'sample.echo ok: {"text": "hello"}' in body["text"]
    assert body["rounds"] == 2
    assert sample.runs == {"echo": 1}
    tools = {tool["function"]["name"]: tool["function"] for tool in model.requests[0]["tools"]}
    assert tools["sample-echo"]["parameters"]["properties"]["text"]["maxLength"] == 100
    assert "$ref" not in tools["sample-echo"]["parameters"]
    assert "Server-Timing" in response.headers


def test_policy_off_rejects_at_stage_3_and_the_model_is_told(client, model, served, sample):
    body = say(client, 'send "the exact query"').json()
    assert receipts(body) == [("sample.send", "rejected", "CAPABILITY_DISABLED")]
    assert body["pending_confirmation"] is None
    assert len(served.host.confirmations) == 0
    told = tool_messages(model.requests[-1])[0]
    assert (told["code"], told["untrusted"]) == ("CAPABILITY_DISABLED", True)
    (served.host.data_dir / "capabilities" / "policy.json").write_text('{"sample_enabled": true}')
    assert say(client, 'send "the exact query"').json()["pending_confirmation"] is not None
    assert sample.runs == {}


def test_pause_approve_once_and_continue(client, model, served, sample):
    served.set_policy("sample_enabled", True)
    paused = say(client, 'send "the exact query"').json()
    pending = paused["pending_confirmation"]
    assert (pending["capability"], pending["arguments"]) == ("sample.send", {"text": "the exact query", "shout": False})
    assert receipts(paused) == [("sample.send", "pending", None)]
    assert paused["invocations"][0]["classification"]["confirmation"] == "required"
    resumed = answer(client, pending["token"])
    assert resumed.status_code == 200
    assert receipts(resumed.json()) == [("sample.send", "ok", None)]
    assert "sent the exact query" in resumed.json()["text"]
    assert sample.runs == {"send": 1}
    again = answer(client, pending["token"])
    assert (again.status_code, again.json()["error"]["code"]) == (400, "INVALID_CONFIRMATION")
    assert sample.runs == {"send": 1}
    for request in model.requests:
        assert pending["token"] not in json.dumps(request)


def test_twenty_concurrent_approvals_execute_once(served, sample):
    served.set_policy("sample_enabled", True)
    key = served.key(["conversation"])
    headers = {"Authorization": f"Bearer {key}"}
    token = say(httpx.Client(base_url=served.base_url, headers=headers), 'send "x"').json()["pending_confirmation"][
        "token"
    ]

    def approve(_: int) -> int:
        with httpx.Client(base_url=served.base_url, headers=headers, timeout=30) as own:
            return answer(own, token).status_code

    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        statuses = sorted(pool.map(approve, range(20)))
    assert statuses == [200] + [400] * 19
    assert sample.runs == {"send": 1}


def test_denial_is_told_as_a_normal_outcome_and_the_turn_continues(client, model, served, sample):
    served.set_policy("sample_enabled", True)
    token = say(client, 'send "x"').json()["pending_confirmation"]["token"]
    body = answer(client, token, approve=False).json()
    assert receipts(body) == [("sample.send", "denied", "CONFIRMATION_DENIED")]
    told = tool_messages(model.requests[-1])[-1]
    assert told["status"] == "denied"
    assert told["message"].startswith("Declined: the person said no"), "the words an MCP client reads too"
    assert "Do not retry" in told["message"]
    assert "code" not in told
    assert "Tool results" in body["text"]
    assert sample.runs == {}


def test_expiry_is_appended_like_a_denial(client, model, served, sample, clock):
    served.set_policy("sample_enabled", True)
    token = say(client, 'send "x"').json()["pending_confirmation"]["token"]
    clock.advance(150)
    body = answer(client, token).json()
    assert receipts(body) == [("sample.send", "denied", "CONFIRMATION_EXPIRED")]
    assert "did not answer in time" in tool_messages(model.requests[-1])[-1]["message"]
    assert sample.runs == {}


def test_approval_reruns_policy(client, served, sample):
    served.set_policy("sample_enabled", True)
    token = say(client, 'send "x"').json()["pending_confirmation"]["token"]
    served.set_policy("sample_enabled", False)
    body = answer(client, token).json()
    assert receipts(body) == [("sample.send", "rejected", "CAPABILITY_DISABLED")]
    assert sample.runs == {}


def test_budget_per_turn(client, sample):
    body = say(client, "tick thrice").json()
    assert receipts(body) == [
        ("sample.tick", "ok", None),
        ("sample.tick", "ok", None),
        ("sample.tick", "rejected", "INVOCATION_LIMIT_EXCEEDED"),
    ]
    assert sample.runs == {"tick": 2}


def test_several_calls_run_in_order_and_every_id_is_answered(client, model, served, sample):
    served.set_policy("sample_enabled", True)
    paused = say(client, "do both").json()
    assert paused["text"] == "Doing three things."
    assert receipts(paused) == [("sample.echo", "ok", None), ("sample.send", "pending", None)]
    assert sample.runs == {"echo": 1}
    body = answer(client, paused["pending_confirmation"]["token"]).json()
    assert receipts(body) == [("sample.echo", "ok", None), ("sample.send", "ok", None)]
    last = model.requests[-1]["messages"]
    assistant = next(message for message in last if message.get("tool_calls"))
    ids = [call["id"] for call in assistant["tool_calls"]]
    assert len(set(ids)) == 3
    answered = [message["tool_call_id"] for message in last if message["role"] == "tool"]
    assert answered == ids
    assert [told["status"] for told in tool_messages(model.requests[-1])] == ["ok", "ok", "not_executed"]
    assert sample.runs == {"echo": 1, "send": 1}


@pytest.mark.parametrize(
    "dialect",
    [
        {"arguments_as": "object"},
        {"call_ids": "missing"},
        {"call_ids": "duplicate"},
        {"finish_reason": "stop"},
        {"finish_reason": "function_call"},
    ],
)
def test_dialects(dialect, sample, tmp_path):
    model = ScriptedModel(rules=RULES, **dialect)
    with serve_app(model.app()) as model_url:
        config = {"model": {"base_url": f"{model_url}/v1"}}
        with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=config) as server:
            body = say(server.client(["conversation"]), "do both, echo x").json()
    assert receipts(body)[0] == ("sample.echo", "ok", None)
    sent = model.requests[-1]["messages"]
    calls = next(message for message in sent if message.get("tool_calls"))["tool_calls"]
    assert all(isinstance(call["function"]["arguments"], str) for call in calls)
    assert len({call["id"] for call in calls}) == len(calls)


def test_malformed_and_non_object_arguments_are_refused_not_crashed(client, model):
    for text in ("broken", "list"):
        body = say(client, text).json()
        assert receipts(body) == [("sample.echo", "rejected", "INVALID_ARGUMENTS")]
        assert tool_messages(model.requests[-1])[0]["code"] == "INVALID_ARGUMENTS"
        echoed = next(m for m in model.requests[-1]["messages"] if m.get("tool_calls"))
        assert echoed["tool_calls"][0]["function"]["arguments"] == "{}"


def test_unknown_capability_is_refused_and_told(client, model):
    body = say(client, "unknown").json()
    assert receipts(body) == [("sample.nothing", "rejected", "CAPABILITY_NOT_FOUND")]


def test_tool_content_can_never_become_a_system_or_user_message(client, model):
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    say(client, "read the page", history)
    sent = model.requests[-1]["messages"]
    assert [message["role"] for message in sent] == ["system", "user", "assistant", "user", "assistant", "tool"]
    assert sent[0]["content"] == SYSTEM_PROMPT
    assert "untrusted" in sent[0]["content"]
    carrying = [message for message in sent if INJECTION in (message.get("content") or "")]
    assert carrying == []
    tool = sent[-1]
    assert tool["role"] == "tool"
    data = json.loads(tool["content"])
    assert data["untrusted"] is True
    assert data["result"]["text"] == INJECTION
    assert [message["content"] for message in sent if message["role"] == "user"] == ["hi", "read the page"]


def test_clients_cannot_send_system_or_tool_messages(client):
    for role in ("system", "tool"):
        response = client.post(MESSAGE, json={"messages": [{"role": role, "content": "obey"}]})
        assert response.status_code == 400
        assert "$.messages[0].role" in response.json()["error"]["message"]
    last_assistant = client.post(MESSAGE, json={"messages": [{"role": "assistant", "content": "x"}]})
    assert last_assistant.status_code == 400
    neither = client.post(MESSAGE, json={})
    assert neither.status_code == 400


def test_citations_are_separate_and_deduplicated(client):
    body = say(client, "find things").json()
    assert body["citations"] == [
        {"title": "One", "url": "http://127.0.0.1/one"},
        {"title": "Two", "url": "http://127.0.0.1/two"},
    ]


def test_audit_has_one_record_per_outcome_and_none_of_the_text(client, served):
    served.set_policy("sample_enabled", True)
    say(client, "echo zanzibar71")
    token = say(client, 'send "quokka-secret-88"').json()["pending_confirmation"]["token"]
    answer(client, token)
    records = served.audit_records()
    assert [(r["capability"], r["status"], r["surface"]) for r in records] == [
        ("sample.echo", "ok", "conversation"),
        ("sample.send", "pending", "conversation"),
        ("sample.send", "started", "conversation"),
        ("sample.send", "ok", "conversation"),
    ]
    log = served.host.audit.path.read_text()
    for text in ("zanzibar71", "quokka-secret-88", "Tool results", token):
        assert text not in log


def test_invalid_and_foreign_tokens(client, served, sample):
    assert answer(client, "made-up").status_code == 400
    served.set_policy("sample_enabled", True)
    token = say(client, 'send "x"').json()["pending_confirmation"]["token"]
    stranger = served.client(["conversation"])
    response = answer(stranger, token)
    assert (response.status_code, response.json()["error"]["code"]) == (400, "INVALID_CONFIRMATION")
    assert sample.runs == {}


def test_conversation_never_uses_preapproval(served, sample):
    served.set_policy("sample_enabled", True)
    client = served.client(["conversation"], preapproved=["sample.send"])
    body = say(client, 'send "x"').json()
    assert body["pending_confirmation"] is not None
    assert sample.runs == {}


def test_round_budget_ends_with_a_clear_message(sample, tmp_path):
    class Relentless(ScriptedModel):
        def answer(self, messages):
            return {
                "choices": [
                    {
                        "message": {
                            "role": "assistant",
                            "content": None,
                            "tool_calls": [
                                {"id": "x", "type": "function", "function": {"name": "sample-tick", "arguments": "{}"}}
                            ],
                        },
                        "finish_reason": "tool_calls",
                    }
                ]
            }

    model = Relentless()
    with serve_app(model.app()) as model_url:
        config = {"model": {"base_url": f"{model_url}/v1", "max_rounds": 3}}
        with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=config) as server:
            body = say(server.client(["conversation"]), "go").json()
    assert body["rounds"] == 3
    assert len(model.requests) == 3
    assert "used all 3 model rounds" in body["text"]
    assert [status for _, status, _ in receipts(body)] == ["ok", "ok", "rejected"]


@pytest.mark.parametrize("failure", [500, 404, "garbage"])
def test_model_failures_are_503(failure, sample, tmp_path):
    model = ScriptedModel(rules=RULES, failure=failure)
    with serve_app(model.app()) as model_url:
        config = {"model": {"base_url": f"{model_url}/v1", "api_key": "model-secret-key-123"}}
        with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=config) as server:
            response = say(server.client(["conversation"]), "echo x")
    assert (response.status_code, response.json()["error"]["code"]) == (503, "MODEL_UNAVAILABLE")
    assert "model-secret-key-123" not in response.text


def test_unreachable_model_is_503_quickly(sample, tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = {"model": {"base_url": f"http://127.0.0.1:{port}/v1", "timeout": 2}}
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=config) as server:
        response = say(server.client(["conversation"]), "echo x")
        health = server.client().get("/healthz").json()
    assert response.status_code == 503
    assert "cannot be reached" in response.json()["error"]["message"]
    assert health["status"] == "degraded"
    model_check = next(check for check in health["checks"] if check["name"] == "model")
    assert model_check["ok"] is False
    assert model_check["detail"].startswith("cannot be reached at http://127.0.0.1:")


def test_the_model_gets_the_api_key_and_nothing_else_does(client, model, served):
    say(client, "echo x")
    assert model.requests
    log = served.host.audit.path.read_text()
    assert "model-secret-key-123" not in log


def test_a_slow_model_is_cut_at_the_timeout(sample, tmp_path):
    """The model would answer after 1.5 s; a 503 naming the 0.3 s limit means the limit cut it."""
    model = ScriptedModel(rules=RULES, delay_seconds=1.5)
    with serve_app(model.app()) as model_url:
        config = {"model": {"base_url": f"{model_url}/v1", "timeout": 0.3}}
        with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=config) as server:
            response = say(server.client(["conversation"]), "echo x")
    assert (response.status_code, response.json()["error"]["code"]) == (503, "MODEL_UNAVAILABLE")
    assert "did not answer within 0.3 s" in response.json()["error"]["message"]
