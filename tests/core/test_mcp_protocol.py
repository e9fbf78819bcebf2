"""The /mcp endpoint byte by byte: what no well-behaved SDK client sends, and what none may see.

Hand-written JSON-RPC over real HTTP: refusals (key, scope, Origin, versions, headers, sessions),
the one-time ``requestState`` handle under tampering, replay and concurrency, and that the
confirmation token never appears in anything the client receives, in either era.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from mcp_raw import call_answering, initialize_message, open_session, session_headers
from sample_plugin import SamplePlugin

import steward
from steward.testing import ServedHost, serve_host

STATELESS = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": STATELESS, "io.modelcontextprotocol/clientCapabilities": {}}
ELICITING = {**META, "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}
YES = {"confirm": {"action": "accept", "content": {"approve": True}}}


@pytest.fixture
def served(sample: SamplePlugin, tmp_path) -> Iterator[ServedHost]:
    config = {"mcp": {"allowed_origins": ["https://console.example"]}}
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path / "data", config=config) as server:
        yield server


@pytest.fixture
def tokens(served) -> list[str]:
    """Every confirmation token the host issues during the test."""
    issued: list[str] = []
    store = served.host.confirmations
    original = store.issue

    async def issue(request):
        token = await original(request)
        issued.append(token)
        return token

    store.issue = issue
    return issued


def post(served: ServedHost, message: Any, key: str | None, **headers: str) -> httpx.Response:
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    headers.setdefault("Accept", "application/json, text/event-stream")
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return httpx.post(
        served.base_url + "/mcp", content=body, headers={"Content-Type": "application/json", **headers}, timeout=30
    )


def stateless_call(name: str, arguments: dict[str, Any], request_id: int = 1, meta=ELICITING, **extra: Any) -> dict:
    params = {"name": name, "arguments": arguments, "_meta": meta, **extra}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def headers_for(message: dict) -> dict[str, str]:
    return {"MCP-Protocol-Version": STATELESS, "Mcp-Method": message["method"]}


def test_without_a_key_or_the_invoke_scope_or_from_a_foreign_origin_nothing_is_answered(served):
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
    anonymous = post(served, listing, None)
    assert anonymous.status_code == 401
    assert anonymous.headers["www-authenticate"] == "Bearer"
    assert anonymous.json()["error"]["data"] == {"code": "UNAUTHORIZED"}
    assert post(served, listing, served.key(["conversation"])).status_code == 403
    key = served.key(["invoke"])
    foreign = post(served, listing, key, Origin="https://evil.example")
    assert foreign.status_code == 403
    assert "evil.example" in foreign.json()["error"]["message"]
    assert post(served, listing, key, Origin=served.base_url).status_code == 200
    assert post(served, listing, key, Origin="https://console.example").status_code == 200


def test_stateless_requests_are_checked_against_their_headers_and_versions(served):
    key = served.key(["invoke"])
    listing = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": META}}
    answer = post(served, listing, key, **headers_for(listing))
    assert answer.status_code == 200
    result = answer.json()["result"]
    assert result["resultType"] == "complete"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "steward"
    assert (result["ttlMs"], result["cacheScope"]) == (5000, "private")

    mismatch = post(served, listing, key, **{**headers_for(listing), "Mcp-Method": "tools/call"})
    assert (mismatch.status_code, mismatch.json()["error"]["code"]) == (400, -32020)
    old = {**listing, "params": {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "1999-01-01"}}}
    unsupported = post(served, old, key)
    assert (unsupported.status_code, unsupported.json()["error"]["code"]) == (400, -32022)
    assert set(unsupported.json()["error"]["data"]["supported"]) >= {"2026-07-28", "2025-11-25", "2025-06-18"}
    unknown = post(served, {**listing, "method": "prompts/list"}, key)
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, -32601)
    discover = post(served, {**listing, "method": "server/discover"}, key).json()["result"]
    assert STATELESS in discover["supportedVersions"]
    assert discover["capabilities"] == {"tools": {"listChanged": True}}


def test_malformed_bodies_are_refused_in_the_json_rpc_shape(served):
    key = served.key(["invoke"])
    assert post(served, b"{not json", key).json()["error"]["code"] == -32700
    batch = post(served, [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}], key)
    assert (batch.status_code, batch.json()["error"]["code"]) == (400, -32600)
    huge = post(served, b'{"x": "' + b"a" * (2 * 1024 * 1024) + b'"}', key)
    assert huge.status_code == 413
    assert huge.json()["jsonrpc"] == "2.0"
    notification = post(served, {"jsonrpc": "2.0", "method": "notifications/initialized"}, key)
    assert (notification.status_code, notification.content) == (202, b"")


def test_handshake_sessions_belong_to_their_key_and_end_on_delete(served):
    key, other = served.key(["invoke"]), served.key(["invoke"])
    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    opened = post(served, initialize, key)
    assert opened.json()["result"]["protocolVersion"] == "2025-06-18"
    session = opened.headers["mcp-session-id"]
    future = {**initialize, "params": {**initialize["params"], "protocolVersion": "2099-01-01"}}
    assert post(served, future, key).json()["result"]["protocolVersion"] == "2025-11-25"

    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert post(served, ping, key, **{"Mcp-Session-Id": session}).json()["result"] == {}
    assert post(served, ping, key).status_code == 400
    assert post(served, ping, other, **{"Mcp-Session-Id": session}).status_code == 404
    assert post(served, ping, key, **{"Mcp-Session-Id": "made-up"}).status_code == 404
    ended = httpx.delete(
        served.base_url + "/mcp", headers={"Authorization": f"Bearer {key}", "Mcp-Session-Id": session}
    )
    assert ended.status_code == 200
    assert post(served, ping, key, **{"Mcp-Session-Id": session}).status_code == 404


def ask(served: ServedHost, key: str, text: str = "kitchen") -> dict[str, Any]:
    first = post(served, stateless_call("sample.room", {"text": text}), key).json()["result"]
    assert first["resultType"] == "input_required"
    return first


def test_the_request_state_is_one_time_bound_to_its_key_and_proof_against_tampering(served, sample):
    key, other = served.key(["invoke"]), served.key(["invoke"])
    state = ask(served, key)["requestState"]

    def retry(with_key: str, request_state: str, responses=YES) -> dict[str, Any]:
        message = stateless_call(
            "sample.room", {"text": "kitchen"}, 2, requestState=request_state, inputResponses=responses
        )
        return post(served, message, with_key).json()["result"]

    tampered = retry(key, state[:-2] + ("AA" if not state.endswith("AA") else "BB"))
    assert tampered["isError"] is True
    assert tampered["_meta"]["dev.steward/outcome"]["code"] == "INVALID_CONFIRMATION"
    assert retry(other, state)["isError"] is True
    assert sample.runs == {}
    again = retry(key, state, responses={})
    assert again["resultType"] == "input_required"
    assert again["requestState"] == state
    approved = retry(key, state)
    assert (approved["isError"], approved["structuredContent"]) == (False, {"text": "kitchen"})
    assert approved["resultType"] == "complete"
    assert sample.runs == {"room": 1}
    assert retry(key, state)["isError"] is True
    assert sample.runs == {"room": 1}


def test_fifty_concurrent_approvals_of_one_request_state_run_it_once(served, sample):
    key = served.key(["invoke"])
    state = ask(served, key, "hall")["requestState"]
    message = stateless_call("sample.room", {"text": "hall"}, 3, requestState=state, inputResponses=YES)

    async def approve_all() -> list[dict[str, Any]]:
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30) as client:
            answers = await asyncio.gather(*(client.post(served.base_url + "/mcp", json=message) for _ in range(50)))
        return [answer.json()["result"] for answer in answers]

    results = asyncio.run(approve_all())
    assert sum(not result["isError"] for result in results) == 1
    assert sample.runs == {"room": 1}


def test_the_token_never_reaches_the_client_in_either_era(served, tokens):
    key = served.key(["invoke"])
    received: list[bytes] = []

    first = post(served, stateless_call("sample.room", {"text": "kitchen"}), key)
    received.append(first.content)
    state = first.json()["result"]["requestState"]
    retried = post(
        served, stateless_call("sample.room", {"text": "kitchen"}, 2, requestState=state, inputResponses=YES), key
    )
    received.append(retried.content)
    received.append(post(served, stateless_call("sample.room", {"text": "hall"}, 3, meta=META), key).content)

    received.extend(asyncio.run(_handshake_call_with_elicitation(served, key)))
    assert len(tokens) == 3
    assert any(b"elicitation/create" in chunk for chunk in received)
    everything = b"".join(received).decode()
    assert not any(token in everything for token in tokens)


async def _handshake_call_with_elicitation(served: ServedHost, key: str) -> list[bytes]:
    """initialize, then a tools/call whose event stream asks; the answer is POSTed while it waits."""
    received: list[bytes] = []

    async def accept(request: dict) -> dict:
        assert request["params"]["mode"] == "form"
        return {"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": {"approve": True}}}

    auth = {"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(base_url=served.base_url, headers=auth, timeout=30) as client:
        initialized = await client.post("/mcp", json=initialize_message())
        received.append(initialized.content)
        session = session_headers(initialized)
        result = await call_answering(client, session, "sample.room", {"text": "hall"}, accept, received)
    assert result["structuredContent"] == {"text": "hall"}
    return received


def test_pending_reference_is_not_the_token(tokens, served):
    key = served.key(["invoke"])
    result = post(served, stateless_call("sample.room", {"text": "hall"}, meta=META), key).json()["result"]
    reference = result["_meta"]["dev.steward/outcome"]["confirmation"]
    (token,) = tokens
    assert reference == "c-" + hashlib.sha256(token.encode()).hexdigest()[:16]
    assert re.fullmatch(r"c-[0-9a-f]{16}", reference)


def test_tool_calls_over_the_concurrency_limit_are_busy(sample, tmp_path):
    config = {"server": {"max_concurrent_invocations": 1}}
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path / "data", config=config) as served:
        key = served.key(["invoke"])

        async def two_slow_calls() -> list[httpx.Response]:
            async with httpx.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30) as client:
                slow = [stateless_call("sample.slow", {}, number, meta=META) for number in (1, 2)]
                return await asyncio.gather(*(client.post(served.base_url + "/mcp", json=call) for call in slow))

        answers = sorted(asyncio.run(two_slow_calls()), key=lambda answer: answer.status_code)
    assert [answer.status_code for answer in answers] == [200, 429]
    assert answers[0].json()["result"]["_meta"]["dev.steward/outcome"]["code"] == "TIMEOUT"
    assert answers[1].json()["error"]["data"] == {"code": "BUSY"}


def test_a_confirmation_an_mcp_client_could_not_ask_for_is_answered_in_the_console(served, sample):
    result = post(served, stateless_call("sample.room", {"text": "hall"}, meta=META), served.key(["invoke"])).json()
    reference = result["result"]["_meta"]["dev.steward/outcome"]["confirmation"]
    console = served.client(["settings"])
    (pending,) = console.get("/api/v1/confirmations").json()["confirmations"]
    assert (pending["reference"], pending["surface"]) == (reference, "mcp")
    answered = console.post(f"/api/v1/confirmations/{pending['id']}", json={"approve": True}).json()
    assert answered["outcome"]["result"] == {"text": "hall"}
    assert sample.runs == {"room": 1}
    assert [record["surface"] for record in served.audit_records() if record["status"] == "ok"] == ["mcp"]


def test_only_an_object_declares_elicitation():
    from steward._mcp.protocol import elicitation_modes

    assert elicitation_modes({"elicitation": {}}) == {"form"}
    assert elicitation_modes({"elicitation": {"form": {}, "url": {}}}) == {"form", "url"}
    assert elicitation_modes({"elicitation": {"url": {}}}) == {"url"}
    assert elicitation_modes({"sampling": {}}) == frozenset()
    assert elicitation_modes(["elicitation"]) == frozenset()
    assert elicitation_modes(None) == frozenset()


def test_a_new_key_under_a_revoked_keys_name_inherits_nothing(served, sample):
    """Session, requestState handle and pending invoke token belong to the key, not to its name."""
    old = served.key(["invoke"], name="inv3")
    session = post(served, initialize_message(elicitation=False), old).headers["mcp-session-id"]
    handle = ask(served, old)["requestState"]
    pending = httpx.post(
        served.base_url + "/api/v1/capabilities/sample.room/invoke",
        json={"arguments": {"text": "hall"}},
        headers={"Authorization": f"Bearer {old}"},
    ).json()["pending_confirmation"]
    assert served.host.keys.revoke("inv3")
    new = served.key(["invoke"], name="inv3")

    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert post(served, ping, new, **{"Mcp-Session-Id": session}).status_code == 404
    retry = stateless_call("sample.room", {"text": "kitchen"}, 2, requestState=handle, inputResponses=YES)
    assert post(served, retry, new).json()["result"]["isError"] is True
    answered = httpx.post(
        served.base_url + "/api/v1/capabilities/sample.room/invoke",
        json={"confirmation": {"token": pending["token"], "approve": True}},
        headers={"Authorization": f"Bearer {new}"},
    )
    assert (answered.status_code, answered.json()["code"]) == (400, "INVALID_CONFIRMATION")
    assert sample.runs == {}


def test_a_rebound_name_is_not_steward_s_own_origin_and_never_becomes_the_console_link(served):
    """DNS rebinding: a page on http://rebind.evil:PORT, its name rebound to 127.0.0.1, sends its own Host."""
    port = served.base_url.rsplit(":", 1)[1]
    key = served.key(["invoke"])
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
    rebound = post(served, listing, key, Origin=f"http://rebind.evil:{port}", Host=f"rebind.evil:{port}")
    assert rebound.status_code == 403
    for own in (served.base_url, f"http://localhost:{port}"):
        assert post(served, listing, key, Origin=own).status_code == 200, own
    call = stateless_call("sample.room", {"text": "hall"}, meta=META)
    told = post(served, call, key, Host=f"rebind.evil:{port}").json()["result"]
    shown = json.dumps(told)
    assert "rebind.evil" not in shown
    assert f"{served.base_url}/console" in shown


def test_the_console_link_and_an_own_origin_come_from_public_url(sample, tmp_path):
    config = {"server": {"public_url": "https://steward.home.example/"}}
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=config) as served:
        key = served.key(["invoke"])
        listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
        assert post(served, listing, key, Origin="https://steward.home.example").status_code == 200
        call = stateless_call("sample.room", {"text": "hall"}, meta=META)
        told = json.dumps(post(served, call, key).json()["result"])
        assert "https://steward.home.example/console" in told


def test_the_elicitation_shows_bidi_and_invisible_characters_escaped(served):
    served.set_policy("sample_enabled", True)
    key = served.key(["invoke"])
    text = "invoice\u202egpj.exe\u200b"
    first = post(served, stateless_call("sample.send", {"text": text}), key).json()["result"]
    message = first["inputRequests"]["confirm"]["params"]["message"]
    assert "\u202e" not in message
    assert "\u200b" not in message
    assert '"text": "invoice\\u202egpj.exe\\u200b"' in message


@pytest.mark.parametrize("request_id", [None, {"a": 1}, [1], 1.5, True])
def test_a_request_id_must_be_a_string_or_an_integer(served, request_id):
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": {"_meta": META}}
    answer = post(served, message, served.key(["invoke"]))
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == -32600
    assert answer.json()["id"] is None


def test_a_retry_with_other_arguments_runs_nothing_and_says_so(served, sample):
    key = served.key(["invoke"])
    state = ask(served, key)["requestState"]
    swapped = stateless_call("sample.room", {"text": "hall"}, 2, requestState=state, inputResponses=YES)
    refused = post(served, swapped, key).json()["result"]
    assert refused["isError"] is True
    assert "not the ones the person was asked about" in refused["content"][0]["text"]
    assert sample.runs == {}
    same = stateless_call("sample.room", {"text": "kitchen"}, 3, requestState=state, inputResponses=YES)
    assert post(served, same, key).json()["result"]["structuredContent"] == {"text": "kitchen"}
    assert sample.runs == {"room": 1}


def test_an_elicitation_reply_with_both_result_and_error_is_no_yes(served, sample):
    key = served.key(["invoke"])

    async def accept_with_an_error(request: dict) -> dict:
        return {
            "jsonrpc": "2.0",
            "id": request["id"],
            "result": {"action": "accept", "content": {"approve": True}},
            "error": {"code": -1, "message": "no"},
        }

    async def answer_both() -> dict:
        auth = {"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream"}
        async with httpx.AsyncClient(base_url=served.base_url, headers=auth, timeout=30) as client:
            session = await open_session(client)
            return await call_answering(client, session, "sample.room", {"text": "hall"}, accept_with_an_error)

    result = asyncio.run(answer_both())
    assert result["_meta"]["dev.steward/outcome"]["code"] == "CONFIRMATION_DENIED"
    assert sample.runs == {}


def test_a_stateless_retry_collects_what_the_console_decided(served, sample):
    key = served.key(["invoke"])
    state = ask(served, key)["requestState"]
    console = served.client(["settings"])
    (pending,) = console.get("/api/v1/confirmations").json()["confirmations"]
    assert console.post(f"/api/v1/confirmations/{pending['id']}", json={"approve": True}).status_code == 200
    retry = stateless_call("sample.room", {"text": "kitchen"}, 2, requestState=state, inputResponses=YES)
    result = post(served, retry, key).json()["result"]
    assert result["structuredContent"] == {"text": "kitchen"}, "the client gets the answer the console gave"
    assert sample.runs == {"room": 1}
