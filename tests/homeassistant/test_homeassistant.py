"""The homeassistant plugin against a Home Assistant-shaped server, through the real HTTP API."""

import contextlib
import json
import logging

import httpx
import pytest
import steward_homeassistant
import steward_websearch
from click.testing import CliRunner
from ha_shaped import TOKEN, HomeAssistantShaped

from steward._cli import cli
from steward.testing import Rule, ScriptedModel, serve_app, serve_host

SETTINGS = "/api/v1/conversation/home-assistant"


@pytest.fixture
def served(ha, tmp_path):
    config = {"server": {"health_cache_seconds": 0}}
    with serve_host([steward_homeassistant, steward_websearch], data_dir=tmp_path, config=config) as server:
        yield server


def configure(server, ha, **changes):
    _, url = ha
    body = {
        "enabled": True,
        "base_url": url,
        "access_token": TOKEN,
        "allowlisted_entities": ["sensor.living_room_temperature", "Light.Kitchen"],
    }
    body.update(changes)
    response = server.client(["settings"]).post(SETTINGS, json=body)
    assert response.status_code == 200, response.text
    return response.json()


def invoke(server, name, arguments, approve=True):
    client = server.client(["invoke"])
    pending = client.post(f"/api/v1/capabilities/{name}/invoke", json={"arguments": arguments})
    if pending.status_code != 202:
        return pending
    token = pending.json()["pending_confirmation"]["token"]
    return client.post(
        f"/api/v1/capabilities/{name}/invoke", json={"confirmation": {"token": token, "approve": approve}}
    )


def test_settings_round_trip_and_the_token_stays_put(served, ha):
    view = configure(served, ha)
    assert view == {
        "enabled": True,
        "base_url": ha[1],
        "has_access_token": True,
        "allowlisted_entities": ["sensor.living_room_temperature", "light.kitchen"],
    }
    assert TOKEN not in json.dumps(view)
    token_file = served.host.data_dir / "secrets" / "home-assistant" / "access-token"
    assert token_file.read_text() == TOKEN
    assert token_file.stat().st_mode & 0o777 == 0o600
    assert token_file.parent.stat().st_mode & 0o777 == 0o700
    kept = (
        served.client(["settings"]).post(SETTINGS, json={"allowlisted_entities": ["binary_sensor.front_door"]}).json()
    )
    assert kept["has_access_token"] is True
    assert token_file.read_text() == TOKEN
    assert served.client(["conversation"]).get(SETTINGS).json() == kept


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"base_url": "ftp://ha.local"}, "base_url"),
        ({"base_url": "http://user:pw@ha.local:8123"}, "base_url"),
        ({"base_url": "http://ha.local:8123/api?x=1"}, "base_url"),
        ({"base_url": "http://[278f3C06]"}, "base_url"),
        ({"allowlisted_entities": ["sensor"]}, "$.allowlisted_entities[0]"),
        ({"access_token": "two words"}, "access_token"),
        ({"enabled": "yes"}, "$.enabled"),
        ({"token": "x"}, "unknown field"),
    ],
)
def test_bad_settings_are_refused_clearly(served, body, message):
    response = served.client(["settings"]).post(SETTINGS, json=body)
    assert response.status_code == 400
    assert message in response.json()["error"]["message"]


def test_an_entity_listed_twice_is_kept_once(served):
    response = served.client(["settings"]).post(SETTINGS, json={"allowlisted_entities": ["sensor.a", "SENSOR.A"]})
    assert response.json()["allowlisted_entities"] == ["sensor.a"]


def test_stage_3_order_before_any_confirmation_or_request(served, ha):
    upstream, _url = ha
    client = served.client(["invoke"])

    def outcome(name, arguments):
        return client.post(f"/api/v1/capabilities/{name}/invoke", json={"arguments": arguments}).json()

    assert outcome("home_assistant.list_entities", {})["code"] == "CAPABILITY_DISABLED"
    served.client(["settings"]).post(SETTINGS, json={"enabled": True})
    assert outcome("home_assistant.list_entities", {})["code"] == "CAPABILITY_NOT_CONFIGURED"
    configure(served, ha)
    for entity in ("sensor.does_not_exist", "binary_sensor.front_door"):
        refused = outcome("home_assistant.get_history", {"entity_id": entity, "period": "day"})
        assert (refused["stage"], refused["code"]) == ("policy", "ENTITY_NOT_ALLOWLISTED")
        assert refused["message"] == "that entity is not on the household's allowlist"
    assert len(served.host.confirmations) == 0
    assert [path for _, path, _ in upstream.requests if path != "/api/"] == []


def test_web_search_and_home_assistant_are_independent(served, ha):
    configure(served, ha, enabled=False)
    served.set_policy("web_search_enabled", True)
    assert invoke(served, "home_assistant.list_entities", {}).json()["code"] == "CAPABILITY_DISABLED"
    served.set_policy("web_search_enabled", False)
    configure(served, ha, enabled=True)
    assert invoke(served, "home_assistant.list_entities", {}).status_code == 200
    assert served.host.policy.snapshot()["web_search_enabled"] is False


def test_list_entities_is_curated_and_allowlisted(served, ha):
    configure(served, ha)
    result = invoke(served, "home_assistant.list_entities", {}).json()["result"]
    assert [entity["entity_id"] for entity in result["entities"]] == ["light.kitchen", "sensor.living_room_temperature"]
    temperature = result["entities"][1]
    assert temperature == {
        "entity_id": "sensor.living_room_temperature",
        "friendly_name": "Living room temperature",
        "domain": "sensor",
        "state": "21.5",
        "unit_of_measurement": "°C",
        "last_changed": "2026-11-30T09:00:00+00:00",
    }
    assert len(result["entities"][0]["friendly_name"]) <= 120
    assert "very_long_blob" not in json.dumps(result)
    assert "zone.home" not in json.dumps(result)


def test_history_request_and_answer(served, ha):
    upstream, _ = ha
    configure(served, ha)
    for period in ("hour", "day", "week"):
        result = invoke(
            served, "home_assistant.get_history", {"entity_id": "Sensor.Living_Room_Temperature", "period": period}
        ).json()["result"]
        assert result["entity_id"] == "sensor.living_room_temperature"
        assert result["state_at_start"] == "19.0"
        assert [change["state"] for change in result["changes"]] == ["20.0", "20.1", "20.2"]
        assert result["omitted_changes"] == 0
    queries = [query for _, path, query in upstream.requests if path.startswith("/api/history/period/")]
    assert len(queries) == 3
    for query in queries:
        assert "filter_entity_id=sensor.living_room_temperature" in query
        assert "minimal_response" in query
        assert "no_attributes" in query
        assert "end_time=" in query
        assert "%2B00%3A00" in query
    assert all(path.endswith("Z") for _, path, _ in upstream.requests if path.startswith("/api/history/period/"))
    assert {method for method, _, _ in upstream.requests} == {"GET"}


def test_a_real_first_change_is_kept_and_long_histories_keep_the_newest_50(served, ha):
    upstream, _ = ha
    configure(served, ha)
    upstream.synthesized_first, upstream.history_rows = False, 80
    result = invoke(
        served, "home_assistant.get_history", {"entity_id": "sensor.living_room_temperature", "period": "week"}
    ).json()["result"]
    assert result["state_at_start"] is None
    assert len(result["changes"]) == 50
    assert result["omitted_changes"] == 31
    assert result["changes"][-1]["state"] == "27.9"


def test_no_changes_differs_from_an_entity_that_is_gone(served, ha):
    configure(served, ha, allowlisted_entities=["sensor.living_room_temperature", "sensor.renamed_away"])
    gone = invoke(served, "home_assistant.get_history", {"entity_id": "sensor.renamed_away", "period": "day"})
    assert (gone.json()["status"], gone.json()["code"]) == ("failed", "ENTITY_NOT_FOUND")
    assert "removed or renamed" in gone.json()["message"]


def test_a_wrong_token_is_reported_once_and_never_retried(served, ha):
    upstream, _ = ha
    configure(served, ha, access_token="wrong-token-value")
    upstream.requests.clear()
    body = invoke(served, "home_assistant.list_entities", {}).json()
    assert (body["status"], body["code"]) == ("failed", "UPSTREAM_UNAVAILABLE")
    assert "rejected the access token (401)" in body["message"]
    assert len(upstream.requests) == 1
    assert "wrong-token-value" not in json.dumps(body)


def test_unreachable_home_assistant_is_a_failure_not_invented_state(served, ha):
    configure(served, ha, base_url="http://127.0.0.1:9")
    body = invoke(served, "home_assistant.list_entities", {}).json()
    assert (body["status"], body["code"], body["result"]) == ("failed", "UPSTREAM_UNAVAILABLE", None)
    health = served.client().get("/healthz").json()
    assert next(check for check in health["checks"] if check["name"] == "home assistant")["ok"] is False


def test_entity_browser_and_connection_test(served, ha):
    client = served.client(["settings"])
    assert client.get(f"{SETTINGS}/entities").json()["connection"]["ok"] is False
    configure(served, ha)
    body = client.get(f"{SETTINGS}/entities").json()
    assert body["connection"] == {"ok": True, "message": "API running."}
    by_id = {entity["entity_id"]: entity for entity in body["entities"]}
    assert {"zone.home", "person.ada", "light.kitchen"} <= set(by_id)
    assert by_id["light.kitchen"]["allowlisted"] is True
    assert by_id["zone.home"]["allowlisted"] is False
    configure(served, ha, access_token="wrong-token-value")
    failed = client.get(f"{SETTINGS}/entities").json()
    assert failed["connection"]["ok"] is False
    assert "401" in failed["connection"]["message"]
    assert served.client(["conversation"]).get(f"{SETTINGS}/entities").status_code == 403


def test_health_reports_reachability_only_when_enabled(served, ha):
    checks = {c["name"]: c for c in served.client().get("/healthz").json()["checks"]}
    assert checks["home assistant"] == {
        "name": "home assistant",
        "plugin": "homeassistant",
        "ok": True,
        "detail": "disabled",
    }
    configure(served, ha)
    upstream, _ = ha
    upstream.authorizations.clear()
    assert httpx.get(f"{served.base_url}/healthz").json() == {"status": "degraded"}
    checks = {c["name"]: c for c in served.client().get("/healthz").json()["checks"]}
    assert checks["home assistant"]["detail"] == "reachable (HTTP 401 without a token)"
    assert upstream.authorizations
    assert set(upstream.authorizations) == {None}, "health never sends the token"


def test_a_new_base_url_drops_the_token_unless_one_comes_with_it(served, ha, tmp_path):
    configure(served, ha)
    other = HomeAssistantShaped()
    with serve_app(other.app()) as elsewhere:
        view = served.client(["settings"]).post(SETTINGS, json={"base_url": elsewhere}).json()
        assert view["base_url"] == elsewhere
        assert view["has_access_token"] is False
        browse = served.client(["settings"]).get(f"{SETTINGS}/entities").json()
        assert browse["connection"]["ok"] is False
        httpx.get(f"{served.base_url}/healthz")
        assert TOKEN not in json.dumps(other.authorizations)
        kept = configure(served, ha, base_url=elsewhere, access_token=TOKEN)
        assert kept["has_access_token"] is True
        same = served.client(["settings"]).post(SETTINGS, json={"base_url": elsewhere}).json()
        assert same["has_access_token"] is True, "the same URL again keeps the token"
    if "homeassistant" not in cli.commands:
        steward_homeassistant.register_commands(cli)
    result = CliRunner().invoke(cli, ["--data-dir", str(served.host.data_dir), "homeassistant", "set-url", ha[1]])
    assert result.exit_code == 0, result.output
    assert "dropped" in result.output
    assert served.client(["settings"]).get(SETTINGS).json()["has_access_token"] is False


def test_health_checks_are_cached_so_anonymous_requests_do_not_reach_upstreams(ha, tmp_path):
    upstream, _ = ha
    with serve_host([steward_homeassistant], data_dir=tmp_path) as server:
        configure(server, ha)
        upstream.requests.clear()
        for _ in range(20):
            assert httpx.get(f"{server.base_url}/healthz").status_code == 200
        assert len(upstream.requests) == 1


def test_corrupt_settings_read_as_disabled(served, ha):
    configure(served, ha)
    (served.host.data_dir / "capabilities" / "home-assistant.json").write_text("{broken")
    assert invoke(served, "home_assistant.list_entities", {}).json()["code"] == "CAPABILITY_DISABLED"
    assert "home-assistant.json" in served.client().get("/healthz").json()["problems"][0]


def test_the_token_never_leaks_anywhere(ha, tmp_path, caplog):
    rules = [Rule(r"temperature", calls=[("home_assistant.list_entities", {})])]
    model = ScriptedModel(rules=rules)
    with caplog.at_level(logging.DEBUG), serve_app(model.app()) as model_url:
        config = {"model": {"base_url": f"{model_url}/v1"}}
        with serve_host([steward_homeassistant], data_dir=tmp_path, config=config) as server:
            configure(server, ha, allowlisted_entities=["sensor.living_room_temperature"])
            seen = []
            client = server.client(["admin"])
            seen.append(client.get(SETTINGS).text)
            seen.append(client.get(f"{SETTINGS}/entities").text)
            seen.append(client.get("/healthz").text)
            paused = client.post(
                "/api/v1/conversation/message",
                json={"messages": [{"role": "user", "content": "what is the living-room temperature?"}]},
            )
            seen.append(paused.text)
            token = paused.json()["pending_confirmation"]["token"]
            done = client.post("/api/v1/conversation/message", json={"confirmation": {"token": token, "approve": True}})
            seen.append(done.text)
            configure(server, ha, access_token=TOKEN + "x")
            seen.append(invoke(server, "home_assistant.list_entities", {}).text)
            seen.append(server.host.audit.path.read_text())
            seen.append(json.dumps(model.requests))
            assert "21.5" in done.json()["text"]
    seen.append(caplog.text)
    for text in seen:
        assert TOKEN not in text


def test_cli_commands(ha, tmp_path, monkeypatch):
    monkeypatch.setenv("STEWARD_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("STEWARD_PLUGINS", "homeassistant")
    runner = CliRunner()
    group = cli
    if "homeassistant" not in group.commands:
        steward_homeassistant.register_commands(group)
    assert runner.invoke(group, ["homeassistant", "set-url", ha[1]]).exit_code == 0
    stored = runner.invoke(group, ["homeassistant", "set-token"], input=TOKEN + "\n")
    assert stored.exit_code == 0
    assert TOKEN not in stored.output
    assert runner.invoke(group, ["homeassistant", "allow", "Sensor.Living_Room_Temperature"]).exit_code == 0
    assert runner.invoke(group, ["homeassistant", "allow", "not-an-entity"]).exit_code == 1
    status = json.loads(runner.invoke(group, ["homeassistant", "status"]).output)
    assert status == {
        "enabled": False,
        "base_url": ha[1],
        "has_access_token": True,
        "allowlisted_entities": ["sensor.living_room_temperature"],
    }
    assert runner.invoke(group, ["homeassistant", "disallow", "sensor.living_room_temperature"]).exit_code == 0
    assert runner.invoke(group, ["homeassistant", "disallow", "sensor.living_room_temperature"]).exit_code == 1
    assert runner.invoke(group, ["policy", "set", "home_assistant_enabled", "true"]).exit_code == 0
    assert json.loads(runner.invoke(group, ["homeassistant", "status"]).output)["enabled"] is True
    assert "--token" not in runner.invoke(group, ["homeassistant", "set-token", "--help"]).output


def test_a_hand_edited_unusable_url_is_a_clear_failure_not_a_crash(served, ha):
    configure(served, ha)
    path = served.host.data_dir / "capabilities" / "home-assistant.json"
    path.write_text(path.read_text().replace(ha[1], "http://[278f3C06]"))
    browse = served.client(["settings"]).get(f"{SETTINGS}/entities")
    assert browse.status_code == 200
    assert "not a usable URL" in browse.json()["connection"]["message"]
    assert invoke(served, "home_assistant.list_entities", {}).json()["code"] == "UPSTREAM_UNAVAILABLE"


def test_on_the_redis_backend_the_switch_set_on_one_host_holds_on_another(ha, redis_url, tmp_path):
    config = {"state": {"backend": "redis", "url": redis_url, "prefix": "ha:"}}
    with contextlib.ExitStack() as stack:
        a, b = (
            stack.enter_context(
                serve_host([steward_homeassistant, steward_websearch], data_dir=tmp_path / name, config=config)
            )
            for name in "ab"
        )
        assert a.client(["settings"]).post(SETTINGS, json={"enabled": True}).status_code == 200
        assert b.client(["settings"]).get(SETTINGS).json()["enabled"] is True
        refused = b.client(["invoke"]).post(
            "/api/v1/capabilities/home_assistant.list_entities/invoke", json={"arguments": {}}
        )
        assert refused.json()["code"] == "CAPABILITY_NOT_CONFIGURED", "enabled on b too; b has no URL of its own"
        a.client(["settings"]).post(SETTINGS, json={"enabled": False})
        refused = b.client(["invoke"]).post(
            "/api/v1/capabilities/home_assistant.list_entities/invoke", json={"arguments": {}}
        )
        assert refused.json()["code"] == "CAPABILITY_DISABLED"
