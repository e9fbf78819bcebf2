"""The HTTP surface against a real uvicorn server on loopback."""

import concurrent.futures
import json
import re

import httpx
import pytest
from starlette.requests import Request
from starlette.routing import Route

import steward
from steward.testing import serve_host

INVOKE = "/api/v1/capabilities/{}/invoke"


def test_healthz_needs_no_key_and_tells_a_stranger_only_the_status(served):
    for headers in ({}, {"Authorization": "Bearer stw_not-a-key"}):
        response = httpx.get(f"{served.base_url}/healthz", headers=headers)
        assert response.status_code == 200
        assert response.json() == {"status": "degraded"}, "no plugin list, no upstream URLs without a key"
        assert "127.0.0.1" not in response.text


def test_healthz_with_a_key_has_the_details(served):
    response = served.client().get("/healthz")
    assert response.status_code == 200
    assert response.json()["plugins"] == ["sample"]
    assert response.json()["load_errors"] == []
    assert [check["name"] for check in response.json()["checks"]] == ["model"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/metrics"),
        ("GET", "/openapi.json"),
        ("GET", "/api/v1/plugins"),
        ("GET", "/api/v1/capabilities"),
        ("POST", INVOKE.format("sample.echo")),
        ("GET", "/api/v1/conversation/policy"),
        ("POST", "/api/v1/conversation/policy"),
    ],
)
def test_every_other_endpoint_needs_a_key(served, method, path):
    for headers in (
        {},
        {"Authorization": "Bearer stw_wrong"},
        {"Authorization": "Basic abc"},
        {"Authorization": "Bearer"},
    ):
        response = httpx.request(method, served.base_url + path, headers=headers, json={})
        assert response.status_code == 401, headers
        assert response.json()["error"]["code"] == "UNAUTHORIZED"


def test_scopes_are_enforced(served):
    settings_only = served.client(["settings"])
    response = settings_only.post(INVOKE.format("sample.echo"), json={"arguments": {"text": "x"}})
    assert (response.status_code, response.json()["error"]["code"]) == (403, "FORBIDDEN")
    conversation = served.client(["conversation"])
    assert conversation.get("/api/v1/conversation/policy").status_code == 200
    assert conversation.post("/api/v1/conversation/policy", json={"sample_enabled": True}).status_code == 403
    assert (
        served.client(["admin"]).post(INVOKE.format("sample.echo"), json={"arguments": {"text": "x"}}).status_code
        == 200
    )


def test_revoked_key_is_refused_at_the_next_request(served):
    key = served.key(["invoke"], name="temporary")
    client = httpx.Client(base_url=served.base_url, headers={"Authorization": f"Bearer {key}"})
    assert client.get("/api/v1/capabilities").status_code == 200
    served.host.keys.revoke("temporary")
    assert client.get("/api/v1/capabilities").status_code == 401


def test_capabilities_list_schemas_and_derived_confirmation(served):
    capabilities = {item["name"]: item for item in served.client().get("/api/v1/capabilities").json()["capabilities"]}
    send = capabilities["sample.send"]
    assert send["classification"] == {"side_effect": "read_only", "network": "external", "confirmation": "required"}
    assert send["policy_key"] == "sample_enabled"
    assert send["bounds"] == {"timeout_seconds": 10, "max_result_bytes": 65536, "max_invocations_per_turn": 1}
    schema = send["arguments_schema"]["$defs"]["EchoArguments"]
    assert schema["properties"]["text"] == {"type": "string", "minLength": 1, "maxLength": 100}
    assert schema["required"] == ["text"]
    assert capabilities["sample.echo"]["classification"]["confirmation"] == "automatic"


def test_invoke_statuses(served):
    client = served.client(["invoke"])
    ok = client.post(INVOKE.format("sample.echo"), json={"arguments": {"text": "hi"}})
    assert (ok.status_code, ok.json()["result"]) == (200, {"text": "hi"})
    assert "error" not in ok.json()
    cases = [
        ("sample.nothing", {"arguments": {}}, 404, "CAPABILITY_NOT_FOUND"),
        ("sample.echo", {"arguments": {"text": 1}}, 400, "INVALID_ARGUMENTS"),
        ("sample.echo", {"arguments": None}, 400, "INVALID_ARGUMENTS"),
        ("sample.send", {"arguments": {"text": "x"}}, 403, "CAPABILITY_DISABLED"),
        ("sample.room", {"arguments": {"text": "attic"}}, 403, "ENTITY_NOT_ALLOWLISTED"),
        ("sample.slow", {"arguments": {}}, 504, "TIMEOUT"),
        ("sample.boom", {"arguments": {}}, 502, "EXECUTION_FAILED"),
        ("sample.upstream", {"arguments": {}}, 503, "UPSTREAM_UNAVAILABLE"),
        ("sample.wrong", {"arguments": {}}, 502, "INVALID_RESULT"),
        ("sample.big", {"arguments": {"size": 5000}}, 502, "RESULT_TOO_LARGE"),
        ("sample.echo", {"arguments": {"text": "x"}, "version": 3}, 404, "CAPABILITY_NOT_FOUND"),
    ]
    for name, body, status, code in cases:
        response = client.post(INVOKE.format(name), json=body)
        assert (response.status_code, response.json()["code"], response.json()["error"]["code"]) == (
            status,
            code,
            code,
        ), name
        assert response.json()["error"]["message"]


def test_confirmation_over_http(served, sample):
    served.set_policy("sample_enabled", True)
    client = served.client(["invoke"])
    response = client.post(INVOKE.format("sample.send"), json={"arguments": {"text": "the exact query"}})
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "pending"
    pending = body["pending_confirmation"]
    assert set(pending) == {"token", "capability", "version", "arguments", "expires_in_seconds"}
    assert pending["arguments"] == {"text": "the exact query", "shout": False}
    answer = {"confirmation": {"token": pending["token"], "approve": True}}
    done = client.post(INVOKE.format("sample.send"), json=answer)
    assert (done.status_code, done.json()["result"]) == (200, {"text": "sent the exact query"})
    again = client.post(INVOKE.format("sample.send"), json=answer)
    assert (again.status_code, again.json()["error"]["code"]) == (400, "INVALID_CONFIRMATION")
    assert sample.runs == {"send": 1}


def test_denial_and_expiry_over_http(served, sample, clock):
    served.set_policy("sample_enabled", True)
    client = served.client(["invoke"])
    tokens = [
        client.post(INVOKE.format("sample.send"), json={"arguments": {"text": "x"}}).json()["pending_confirmation"][
            "token"
        ]
        for _ in range(2)
    ]
    denied = client.post(INVOKE.format("sample.send"), json={"confirmation": {"token": tokens[0], "approve": False}})
    assert (denied.status_code, denied.json()["status"], denied.json()["code"]) == (
        200,
        "denied",
        "CONFIRMATION_DENIED",
    )
    clock.advance(500)
    expired = client.post(INVOKE.format("sample.send"), json={"confirmation": {"token": tokens[1], "approve": True}})
    assert (expired.status_code, expired.json()["code"]) == (200, "CONFIRMATION_EXPIRED")
    assert sample.runs == {}


def test_token_from_another_key_or_path_is_invalid(served, sample):
    served.set_policy("sample_enabled", True)
    owner, stranger = served.client(["invoke"]), served.client(["invoke"])
    for client, path in ((stranger, "sample.send"), (owner, "sample.echo")):
        token = owner.post(INVOKE.format("sample.send"), json={"arguments": {"text": "x"}}).json()[
            "pending_confirmation"
        ]["token"]
        response = client.post(INVOKE.format(path), json={"confirmation": {"token": token, "approve": True}})
        assert (response.status_code, response.json()["error"]["code"]) == (400, "INVALID_CONFIRMATION")
    assert sample.runs == {}


def test_concurrent_http_approvals_execute_once(served, sample):
    served.set_policy("sample_enabled", True)
    key = served.key(["invoke"])
    client = httpx.Client(base_url=served.base_url, headers={"Authorization": f"Bearer {key}"})
    token = client.post(INVOKE.format("sample.send"), json={"arguments": {"text": "x"}}).json()["pending_confirmation"][
        "token"
    ]

    def approve(_: int) -> int:
        with httpx.Client(base_url=served.base_url, headers={"Authorization": f"Bearer {key}"}) as own:
            return own.post(
                INVOKE.format("sample.send"), json={"confirmation": {"token": token, "approve": True}}
            ).status_code

    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        statuses = sorted(pool.map(approve, range(20)))
    assert statuses == [200] + [400] * 19
    assert sample.runs == {"send": 1}


def test_preapproved_key_runs_without_confirmation(served, sample):
    served.set_policy("sample_enabled", True)
    client = served.client(["invoke"], preapproved=["sample.send"])
    response = client.post(INVOKE.format("sample.send"), json={"arguments": {"text": "x"}})
    assert (response.status_code, response.json()["classification"]["confirmation"]) == (200, "preapproved")
    assert served.audit_records()[-1]["classification"]["confirmation"] == "preapproved"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{bad", "not valid JSON"),
        (b"", "needs a JSON body"),
        (b"[]", "Expected `object`"),
        (b'{"arguments": {}, "confirmation": {"token": "t", "approve": true}}', "not both"),
        (b"{}", "either"),
        (b'{"argument": {}}', "unknown field `argument`"),
        (b'{"confirmation": {"token": "t", "approve": "yes"}}', "$.confirmation.approve"),
        (b'{"arguments": {"text": "x"}, "version": "1"}', "$.version"),
    ],
)
def test_bad_invoke_bodies(served, body, message):
    response = served.client(["invoke"]).post(INVOKE.format("sample.echo"), content=body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "INVALID_REQUEST"
    assert message in response.json()["error"]["message"]


def test_huge_bodies_are_refused(served):
    client = served.client()
    big = b'{"arguments": {"text": "' + b"x" * (2 * 1024 * 1024) + b'"}}'
    response = client.post(INVOKE.format("sample.echo"), content=big)
    assert (response.status_code, response.json()["error"]["code"]) == (413, "PAYLOAD_TOO_LARGE")

    def chunks():
        for _ in range(40):
            yield b"x" * 65536

    streamed = client.post(INVOKE.format("sample.echo"), content=chunks())
    assert (streamed.status_code, streamed.json()["error"]["code"]) == (413, "PAYLOAD_TOO_LARGE")
    assert client.post("/api/v1/conversation/policy", content=big).status_code == 413


def test_unknown_routes_and_methods_are_json(served):
    client = served.client()
    missing = client.get("/api/v1/nothing")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "NOT_FOUND")
    wrong = client.delete("/api/v1/capabilities")
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (405, "METHOD_NOT_ALLOWED")
    get_invoke = client.get(INVOKE.format("sample.echo"))
    assert get_invoke.status_code == 405


def test_policy_endpoint(served, sample):
    client = served.client(["settings"])
    assert client.get("/api/v1/conversation/policy").json() == {"other_enabled": False, "sample_enabled": False}
    changed = client.post("/api/v1/conversation/policy", json={"sample_enabled": True})
    assert changed.json() == {"other_enabled": False, "sample_enabled": True}
    assert served.host.policy.is_enabled("sample_enabled")
    for body, message in (
        ({"web_search": True}, "unknown policy flag"),
        ({"sample_enabled": "yes"}, "Expected `bool`"),
        ([], "object"),
    ):
        response = client.post("/api/v1/conversation/policy", json=body)
        assert response.status_code == 400
        assert message in response.json()["error"]["message"]


def test_policy_file_flip_changes_the_next_request(served):
    client = served.client(["invoke"])
    path = served.host.data_dir / "capabilities" / "policy.json"
    path.write_text('{"sample_enabled": true}')
    assert client.post(INVOKE.format("sample.send"), json={"arguments": {"text": "x"}}).status_code == 202
    path.write_text('{"sample_enabled": false}')
    assert client.post(INVOKE.format("sample.send"), json={"arguments": {"text": "x"}}).status_code == 403


def test_corrupt_policy_degrades_health(served):
    (served.host.data_dir / "capabilities" / "policy.json").write_text("{")
    health = served.client().get("/healthz").json()
    assert health["status"] == "degraded"
    assert "policy.json is not valid JSON" in health["problems"][0]


def test_plugins_metrics_and_openapi(served):
    client = served.client(["invoke"])
    client.post(INVOKE.format("sample.echo"), json={"arguments": {"text": "x"}})
    plugins = client.get("/api/v1/plugins").json()
    assert plugins["load_errors"] == []
    assert plugins["plugins"][0]["name"] == "sample"
    assert "sample.echo" in plugins["plugins"][0]["capabilities"]
    assert "register_capabilities" in plugins["plugins"][0]["hooks"]
    metrics = client.get("/metrics").text
    assert 'steward_outcomes_total{capability="sample.echo",code="",status="ok"} 1.0' in metrics
    assert 'steward_http_requests_total{route="invoke",status="200"} 1.0' in metrics
    assert "steward_invocation_seconds_bucket" in metrics
    document = client.get("/openapi.json").json()
    assert document["openapi"].startswith("3.")
    assert {"/healthz", "/api/v1/capabilities/{name}/invoke", "/api/v1/conversation/policy"} <= set(document["paths"])
    assert "sample.echo.arguments" in document["components"]["schemas"]
    assert "#/$defs" not in str(document)


def test_errors_do_not_echo_keys(served):
    key = "stw_" + "s" * 43
    response = httpx.get(f"{served.base_url}/api/v1/capabilities", headers={"Authorization": f"Bearer {key}"})
    assert key not in response.text


def test_openapi_keeps_same_named_structs_of_different_capabilities_apart(served):
    schemas = served.client().get("/openapi.json").json()["components"]["schemas"]
    assert schemas["sample.echo.arguments"] == {"$ref": "#/components/schemas/sample.echo.arguments.EchoArguments"}
    assert "text" in schemas["sample.echo.arguments.EchoArguments"]["properties"]
    assert "size" in schemas["sample.big.arguments.Sized"]["properties"]
    assert schemas["sample.wrong.result.Count"]["properties"]["count"]["minimum"] == 0
    refs = re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', json.dumps(schemas))
    assert refs
    assert all(ref in schemas for ref in refs)


def test_corrupt_policy_file_is_not_overwritten(served):
    path = served.host.data_dir / "capabilities" / "policy.json"
    path.write_text("{broken")
    response = served.client(["settings"]).post("/api/v1/conversation/policy", json={"sample_enabled": True})
    assert (response.status_code, response.json()["error"]["code"]) == (409, "POLICY_FILE_CORRUPT")
    assert path.read_text() == "{broken"


def test_a_plugin_can_replace_authentication(sample, tmp_path):
    import types

    import steward
    from steward.testing import serve_host

    async def appliance_session(request):
        if request.headers.get("x-appliance-session") == "valid-session":
            return steward.Principal("console", frozenset({"invoke"}))
        return None

    appliance = types.SimpleNamespace(authenticate=steward.hookimpl(appliance_session))
    plugins = [steward.Plugin("sample", sample), steward.Plugin("appliance", appliance)]
    with serve_host(plugins, data_dir=tmp_path) as server:
        url = f"{server.base_url}{INVOKE.format('sample.echo')}"
        body = {"arguments": {"text": "hi"}}
        assert httpx.post(url, json=body, headers={"x-appliance-session": "valid-session"}).status_code == 200
        assert httpx.post(url, json=body, headers={"x-appliance-session": "forged"}).status_code == 401
        key = server.key(["invoke"])
        assert httpx.post(url, json=body, headers={"Authorization": f"Bearer {key}"}).status_code == 200
        assert server.audit_records()[0]["caller"] == "console"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/capabilities/sample.echo/invoke", '{"arguments": {"text": "x", "deep": %s}}'),
        ("/api/v1/capabilities/sample.echo/invoke", '{"arguments": %s}'),
        ("/api/v1/conversation/policy", '{"sample_enabled": %s}'),
        ("/api/v1/conversation/message", '{"messages": %s}'),
    ],
)
def test_json_nested_a_thousand_levels_is_a_400_not_a_crash(served, path, body):
    client = served.client(["admin"])
    for deep in ("[" * 1000 + "]" * 1000, '{"a":' * 1000 + "1" + "}" * 1000):
        response = client.post(path, content=body % deep)
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] in ("INVALID_REQUEST", "INVALID_ARGUMENTS")
    assert client.get("/api/v1/capabilities").status_code == 200


def test_authenticate_is_the_scope_check_for_routes_that_render_their_own_refusals(tmp_path):
    async def own_shape(request: Request):
        try:
            principal = await steward.authenticate(request, "settings")
        except steward.ApiError as error:
            return steward.json_response({"ok": False, "why": error.code}, error.status)
        return steward.json_response({"ok": True, "caller": principal.name})

    class Routes:
        @steward.hookimpl
        def register_routes(self):
            return [Route("/own", own_shape)]

    with serve_host([steward.Plugin("own", Routes())], data_dir=tmp_path) as server:
        assert server.client(None).get("/own").json() == {"ok": False, "why": "UNAUTHORIZED"}
        assert server.client(["invoke"]).get("/own").json() == {"ok": False, "why": "FORBIDDEN"}
        allowed = server.client(["settings"]).get("/own").json()
        assert allowed["ok"] is True
        assert allowed["caller"].startswith("test-")


class BrokenAuthenticator:
    """An authenticate hook that fails in a way nobody foresaw."""

    @steward.hookimpl
    def authenticate(self, request):
        raise RuntimeError("the appliance's auth service sent nonsense")


def test_an_unexpected_error_on_the_invoke_route_is_the_standard_500_and_is_counted(sample, tmp_path, caplog):
    """The invoke route skips Starlette's router; its errors still go through the app's handlers."""
    plugins = [steward.Plugin("sample", sample), steward.Plugin("broken", BrokenAuthenticator())]
    with serve_host(plugins, data_dir=tmp_path) as served:
        answer = httpx.post(served.base_url + INVOKE.format("sample.echo"), json={"arguments": {"text": "x"}})
        metrics = served.host.metrics.render().decode()
    assert answer.status_code == 500
    assert answer.json() == {
        "error": {"code": "INTERNAL_ERROR", "message": "internal error; the server log has details"}
    }
    assert "the appliance's auth service sent nonsense" in caplog.text
    assert 'steward_http_requests_total{route="invoke",status="500"} 1.0' in metrics
