"""Integration against a real Home Assistant (2024.3.3) on loopback, started by tests/homeassistant/peer/.

The first run installs Home Assistant into a cached virtualenv (about a minute); later runs reuse
it. The happy path uses the read-only user's token, as we recommend households do.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest
import steward_homeassistant

from steward.testing import Rule, ScriptedModel, serve_app, serve_host

PEER = Path(__file__).parent / "peer" / "run-real-homeassistant.sh"
SETTINGS = "/api/v1/conversation/home-assistant"
ALLOWED = ["sensor.test_temperature", "input_boolean.test_switch", "input_number.test_level"]


@pytest.fixture(scope="module")
def real_ha(tmp_path_factory):
    root = tmp_path_factory.mktemp("real-ha")
    started = subprocess.run(
        ["bash", str(PEER)],
        env={**os.environ, "HA_ROOT": str(root)},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert started.returncode == 0, started.stderr[-3000:]
    peer = dict(line.split("=", 1) for line in started.stdout.splitlines() if line.startswith("HA_"))
    yield peer
    subprocess.run(["bash", str(PEER), "stop", peer["HA_CONFIG"]], capture_output=True, timeout=60)


@pytest.fixture
def served(real_ha, tmp_path):
    with serve_host([steward_homeassistant], data_dir=tmp_path) as server:
        body = {
            "enabled": True,
            "base_url": real_ha["HA_BASE_URL"],
            "access_token": real_ha["HA_RO_TOKEN"],
            "allowlisted_entities": ALLOWED,
        }
        assert server.client(["settings"]).post(SETTINGS, json=body).status_code == 200
        yield server


def run(server, name, arguments):
    client = server.client(["invoke"])
    pending = client.post(f"/api/v1/capabilities/{name}/invoke", json={"arguments": arguments})
    assert pending.status_code == 202, pending.text
    token = pending.json()["pending_confirmation"]["token"]
    return client.post(
        f"/api/v1/capabilities/{name}/invoke", json={"confirmation": {"token": token, "approve": True}}
    ).json()


def test_list_entities_with_the_read_only_token(served):
    result = run(served, "home_assistant.list_entities", {})["result"]
    entities = {entity["entity_id"]: entity for entity in result["entities"]}
    assert set(entities) == set(ALLOWED)
    assert entities["sensor.test_temperature"]["state"] == "27.5"
    assert entities["sensor.test_temperature"]["unit_of_measurement"] == "°C"
    assert entities["sensor.test_temperature"]["friendly_name"] == "Test Temperature"
    assert entities["input_boolean.test_switch"]["state"] == "off"


@pytest.mark.parametrize("period", ["hour", "day", "week"])
def test_history_for_every_period(served, period):
    result = run(served, "home_assistant.get_history", {"entity_id": "input_boolean.test_switch", "period": period})[
        "result"
    ]
    assert result["period"] == period
    states = [change["state"] for change in result["changes"]]
    assert states[-2:] == ["on", "off"]
    assert result["omitted_changes"] == 0


def test_an_allowlisted_entity_that_does_not_exist_is_a_clear_failure(served):
    client = served.client(["settings"])
    client.post(SETTINGS, json={"allowlisted_entities": [*ALLOWED, "sensor.renamed_away"]})
    outcome = run(served, "home_assistant.get_history", {"entity_id": "sensor.renamed_away", "period": "day"})
    assert (outcome["status"], outcome["code"]) == ("failed", "ENTITY_NOT_FOUND")


def test_entities_outside_the_allowlist_are_refused_before_anything(served):
    outcome = (
        served.client(["invoke"])
        .post(
            "/api/v1/capabilities/home_assistant.get_history/invoke",
            json={"arguments": {"entity_id": "person.test_owner", "period": "day"}},
        )
        .json()
    )
    assert (outcome["stage"], outcome["code"]) == ("policy", "ENTITY_NOT_ALLOWLISTED")


def test_the_entity_browser_sees_everything(served):
    body = served.client(["settings"]).get(f"{SETTINGS}/entities").json()
    assert body["connection"] == {"ok": True, "message": "API running."}
    assert {"zone.home", "person.test_owner", "sensor.test_temperature"} <= {
        entity["entity_id"] for entity in body["entities"]
    }


def test_a_wrong_token_is_told_and_the_right_one_still_works(served, real_ha):
    client = served.client(["settings"])
    client.post(SETTINGS, json={"access_token": "not-a-valid-token"})
    outcome = run(served, "home_assistant.list_entities", {})
    assert "rejected the access token (401)" in outcome["message"]
    client.post(SETTINGS, json={"access_token": real_ha["HA_RO_TOKEN"]})
    assert run(served, "home_assistant.list_entities", {})["status"] == "ok"


def test_a_conversation_reads_the_real_temperature(real_ha, tmp_path):
    model = ScriptedModel(rules=[Rule(r"living[- ]room temperature", calls=[("home_assistant.list_entities", {})])])
    with (
        serve_app(model.app()) as model_url,
        serve_host(
            [steward_homeassistant], data_dir=tmp_path, config={"model": {"base_url": f"{model_url}/v1"}}
        ) as server,
    ):
        body = {
            "enabled": True,
            "base_url": real_ha["HA_BASE_URL"],
            "access_token": real_ha["HA_RO_TOKEN"],
            "allowlisted_entities": ["sensor.test_temperature"],
        }
        server.client(["settings"]).post(SETTINGS, json=body)
        client = server.client(["conversation"])
        paused = client.post(
            "/api/v1/conversation/message",
            json={"messages": [{"role": "user", "content": "What is the living-room temperature?"}]},
        ).json()
        assert paused["pending_confirmation"]["capability"] == "home_assistant.list_entities"
        token = paused["pending_confirmation"]["token"]
        answer = client.post(
            "/api/v1/conversation/message", json={"confirmation": {"token": token, "approve": True}}
        ).json()
        assert '"state": "27.5"' in answer["text"]
        assert answer["invocations"][-1]["status"] == "ok"
        assert real_ha["HA_RO_TOKEN"] not in json.dumps(model.requests)


def test_home_assistant_stopped_mid_run(served, real_ha):
    assert run(served, "home_assistant.list_entities", {})["status"] == "ok"
    subprocess.run(["bash", str(PEER), "stop", real_ha["HA_CONFIG"]], capture_output=True, timeout=60, check=True)
    outcome = run(served, "home_assistant.list_entities", {})
    assert (outcome["status"], outcome["code"], outcome["result"]) == ("failed", "UPSTREAM_UNAVAILABLE", None)
    assert "cannot be reached" in outcome["message"]
