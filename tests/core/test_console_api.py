"""The HTTP API a household console stands on: pending confirmations listed and answered by id, the
caller's key, the switches with their descriptions, recent audit records, and the page's headers."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sample_plugin import SamplePlugin

import steward
from steward._surfaces.prompts import readable_arguments
from steward.testing import Rule, ScriptedModel, ServedHost, make_host, serve_app, serve_host

CONSOLE = Path(steward.__file__).parent / "_surfaces" / "console"


@pytest.fixture
def model_url() -> Iterator[str]:
    model = ScriptedModel(rules=[Rule(r"room (\w+)", calls=[("sample.room", {"text": "{1}"})])])
    with serve_app(model.app()) as url:
        yield url + "/v1"


@pytest.fixture
def served(sample: SamplePlugin, model_url: str, tmp_path) -> Iterator[ServedHost]:
    with serve_host(
        [steward.Plugin("sample", sample)], data_dir=tmp_path / "data", config={"model": {"base_url": model_url}}
    ) as server:
        yield server


def invoke(served: ServedHost, key: str, text: str) -> httpx.Response:
    return httpx.post(
        f"{served.base_url}/api/v1/capabilities/sample.room/invoke",
        json={"arguments": {"text": text}},
        headers={"Authorization": f"Bearer {key}"},
    )


def test_pending_confirmations_of_every_surface_are_listed_with_what_they_would_run(served):
    agent = served.key(["invoke", "conversation"], name="agent")
    console = served.client(["settings"])
    invoke(served, agent, "hall")
    turn = httpx.post(
        f"{served.base_url}/api/v1/conversation/message",
        json={"messages": [{"role": "user", "content": "room kitchen"}]},
        headers={"Authorization": f"Bearer {agent}"},
        timeout=30,
    )
    assert turn.json()["pending_confirmation"]["capability"] == "sample.room"
    listed = console.get("/api/v1/confirmations").json()["confirmations"]
    assert sorted((item["surface"], item["arguments"]["text"]) for item in listed) == [
        ("conversation", "kitchen"),
        ("invoke", "hall"),
    ]
    first = listed[0]
    assert set(first) == {
        "id", "reference", "capability", "version", "title", "action", "description", "classification",
        "arguments", "surface", "caller", "expires_in_seconds",
    }  # fmt: skip
    assert (first["title"], first["action"]) == ("Look into a room", "Look into the hall")  # the capability's words
    assert first["caller"] == "agent"
    assert first["classification"] == {"side_effect": "read_only", "network": "external", "confirmation": "required"}
    assert re.fullmatch(r"[0-9a-f]{64}", first["id"])
    assert first["reference"] == "c-" + first["id"][:16]
    assert 0 < first["expires_in_seconds"] <= 120
    assert "token" not in str(listed)
    assert served.client(["invoke"]).get("/api/v1/confirmations").status_code == 403


def test_a_settings_key_answers_by_id_and_it_runs_once_on_the_surface_it_was_asked_on(served, sample):
    agent = served.key(["invoke"])
    asked = invoke(served, agent, "hall").json()["pending_confirmation"]
    console = served.client(["settings"])
    (pending,) = console.get("/api/v1/confirmations").json()["confirmations"]
    answered = console.post(f"/api/v1/confirmations/{pending['id']}", json={"approve": True})
    assert answered.status_code == 200
    assert answered.json()["outcome"]["result"] == {"text": "hall"}
    assert sample.runs == {"room": 1}
    assert console.get("/api/v1/confirmations").json()["confirmations"] == []
    again = console.post(f"/api/v1/confirmations/{pending['id']}", json={"approve": True})
    assert again.json()["outcome"]["code"] == "INVALID_CONFIRMATION"
    collected = httpx.post(
        f"{served.base_url}/api/v1/capabilities/sample.room/invoke",
        json={"confirmation": {"token": asked["token"], "approve": True}},
        headers={"Authorization": f"Bearer {agent}"},
    )
    assert (collected.status_code, collected.json()["result"]) == (200, {"text": "hall"}), "the asker gets its answer"
    again = httpx.post(
        f"{served.base_url}/api/v1/capabilities/sample.room/invoke",
        json={"confirmation": {"token": asked["token"], "approve": True}},
        headers={"Authorization": f"Bearer {agent}"},
    )
    assert again.json()["code"] == "INVALID_CONFIRMATION", "collected once"
    assert sample.runs == {"room": 1}
    ran = [record for record in served.audit_records() if record["status"] in ("started", "ok")]
    assert [(record["surface"], record["caller"], record["asker"]) for record in ran] == [
        ("invoke", "test-2", "test-1"),
        ("invoke", "test-2", "test-1"),
    ], "the approver and the asker are both recorded"


def test_the_asker_withdraws_its_own_pending_confirmation_and_nobody_else_can(served, sample):
    agent, stranger = served.key(["invoke"], name="agent"), served.key(["invoke", "settings"], name="stranger")
    asked = invoke(served, agent, "hall").json()["pending_confirmation"]

    def withdraw(key: str, token: str) -> httpx.Response:
        return httpx.post(
            f"{served.base_url}/api/v1/confirmations/withdraw",
            json={"token": token},
            headers={"Authorization": f"Bearer {key}"},
        )

    foreign = withdraw(stranger, asked["token"])
    assert (foreign.status_code, foreign.json()["code"]) == (400, "INVALID_CONFIRMATION")
    assert len(served.client().get("/api/v1/confirmations").json()["confirmations"]) == 1, "not spent"
    withdrawn = withdraw(agent, asked["token"])
    assert withdrawn.status_code == 200
    assert (withdrawn.json()["status"], withdrawn.json()["code"]) == ("denied", "CONFIRMATION_WITHDRAWN")
    assert served.client().get("/api/v1/confirmations").json()["confirmations"] == []
    late = httpx.post(
        f"{served.base_url}/api/v1/capabilities/sample.room/invoke",
        json={"confirmation": {"token": asked["token"], "approve": True}},
        headers={"Authorization": f"Bearer {agent}"},
    )
    assert late.json()["code"] == "INVALID_CONFIRMATION"
    assert withdraw(agent, asked["token"]).status_code == 400, "once"
    assert sample.runs == {}
    (record,) = [record for record in served.audit_records() if record["code"] == "CONFIRMATION_WITHDRAWN"]
    assert (record["caller"], record["surface"], record["capability"]) == ("agent", "invoke", "sample.room")


def test_only_a_settings_key_may_answer_by_id_and_a_wrong_id_spends_nothing(served, sample):
    invoke(served, served.key(["invoke"]), "hall")
    (pending,) = served.client(["settings"]).get("/api/v1/confirmations").json()["confirmations"]
    refused = served.client(["invoke", "conversation"]).post(
        f"/api/v1/confirmations/{pending['id']}", json={"approve": True}
    )
    assert refused.status_code == 403
    unknown = served.client(["settings"]).post("/api/v1/confirmations/" + "0" * 64, json={"approve": True})
    assert unknown.status_code == 400
    assert unknown.json()["outcome"]["code"] == "INVALID_CONFIRMATION"
    assert served.client(["settings"]).post(f"/api/v1/confirmations/{pending['id']}", json={}).status_code == 400
    assert sample.runs == {}
    assert len(served.client(["settings"]).get("/api/v1/confirmations").json()["confirmations"]) == 1


def test_a_paused_turn_answered_from_another_device_goes_on_on_the_askers_side(served, sample):
    agent = served.key(["conversation"])

    def turn(body: dict) -> dict:
        return httpx.post(
            f"{served.base_url}/api/v1/conversation/message",
            json=body,
            headers={"Authorization": f"Bearer {agent}"},
            timeout=30,
        ).json()

    paused = turn({"messages": [{"role": "user", "content": "room hall"}]})
    console = served.client(["settings"])
    (pending,) = console.get("/api/v1/confirmations").json()["confirmations"]
    answered = console.post(f"/api/v1/confirmations/{pending['id']}", json={"approve": True}).json()
    assert answered["outcome"]["result"] == {"text": "hall"}
    assert sample.runs == {"room": 1}
    reply = turn({"confirmation": {"token": paused["pending_confirmation"]["token"], "approve": True}})
    assert reply["pending_confirmation"] is None
    assert [item["status"] for item in reply["invocations"]] == ["ok"]
    assert "hall" in reply["text"], "the asker's turn went on with what the console ran"
    assert sample.runs == {"room": 1}


def test_a_paused_turn_of_the_consoles_own_key_resumes_in_the_console(served, sample):
    console = served.client(["settings", "conversation"])
    console.post("/api/v1/conversation/message", json={"messages": [{"role": "user", "content": "room hall"}]})
    (pending,) = console.get("/api/v1/confirmations").json()["confirmations"]
    reply = console.post(f"/api/v1/confirmations/{pending['id']}", json={"approve": True}).json()["conversation"]
    assert "hall" in reply["text"]
    assert sample.runs == {"room": 1}


def test_the_caller_its_switches_and_the_audit_tail(served):
    key = served.key(["settings"], name="kitchen-tablet")
    client = httpx.Client(base_url=served.base_url, headers={"Authorization": f"Bearer {key}"})
    assert client.get("/api/v1/whoami").json() == {"name": "kitchen-tablet", "scopes": ["settings"], "preapproved": []}
    flags = client.get("/api/v1/policy").json()["flags"]
    assert flags == [
        {"name": "other_enabled", "label": "other_enabled", "description": "Unrelated flag, in its own file.", "enabled": False},
        {"name": "sample_enabled", "label": "Sample sending", "description": "Lets sample.send leave the device.", "enabled": False},
    ]  # fmt: skip
    codes = {code["code"]: code for code in client.get("/api/v1/codes").json()["codes"]}
    assert codes["CONFIRMATION_EXPIRED"] == {
        "code": "CONFIRMATION_EXPIRED", "status": 200, "description": "The person did not answer in time; nothing ran."
    }  # fmt: skip
    assert all(code["description"] for code in codes.values())  # every code says what it means
    assert httpx.get(f"{served.base_url}/api/v1/codes").status_code == 401
    for text in ("said-once", "said-twice", "said-thrice"):
        served.client(["invoke"]).post("/api/v1/capabilities/sample.echo/invoke", json={"arguments": {"text": text}})
    records = client.get("/api/v1/audit?limit=2").json()["records"]
    assert [record["capability"] for record in records] == ["sample.echo", "sample.echo"]
    assert records[0]["time"] >= records[1]["time"]
    assert not any(text in str(records) for text in ("said-once", "said-twice", "said-thrice"))
    assert client.get("/api/v1/audit?limit=0").status_code == 400
    assert client.get("/api/v1/audit?limit=x").status_code == 400
    assert served.client(["invoke"]).get("/api/v1/audit").status_code == 403


def test_the_console_page_is_served_with_a_strict_policy_and_holds_no_inline_script(served):
    page = httpx.get(served.base_url + "/console")
    assert page.status_code == 200
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "default-src 'none'" in policy
    assert "unsafe" not in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    assert httpx.get(served.base_url + "/console/console.js").headers["content-type"].startswith("text/javascript")
    assert httpx.get(served.base_url + "/console/../keys.toml").status_code == 404
    assert httpx.get(served.base_url + "/console/index.html").status_code == 404
    html = (CONSOLE / "index.html").read_text()
    assert re.findall(r"<script(?![^>]*\bsrc=)", html) == []
    assert re.findall(r"\son[a-z]+=|\sstyle=|javascript:", html) == []
    script = (CONSOLE / "console.js").read_text()
    assert "innerHTML" not in script
    assert "eval(" not in script
    assert "insertAdjacentHTML" not in script


def test_on_redis_a_confirmation_asked_on_one_host_is_listed_and_answered_on_another(sample, redis_url, tmp_path):
    config = {"state": {"backend": "redis", "url": redis_url}}
    plugins = [steward.Plugin("sample", sample)]
    with (
        serve_host(plugins, data_dir=tmp_path / "a", config=config) as first,
        serve_host(plugins, data_dir=tmp_path / "b", config=config) as second,
    ):
        agent = first.key(["invoke"])
        asked = invoke(first, agent, "hall").json()["pending_confirmation"]
        console = second.client(["settings"])
        (pending,) = console.get("/api/v1/confirmations").json()["confirmations"]
        assert pending["arguments"] == {"text": "hall", "shout": False}
        answered = console.post(f"/api/v1/confirmations/{pending['id']}", json={"approve": True})
        assert answered.json()["outcome"]["status"] == "ok"
        assert first.client(["settings"]).get("/api/v1/confirmations").json()["confirmations"] == []
        collected = httpx.post(
            f"{first.base_url}/api/v1/capabilities/sample.room/invoke",
            json={"confirmation": {"token": asked["token"], "approve": True}},
            headers={"Authorization": f"Bearer {agent}"},
        )
        assert collected.json()["result"] == {"text": "hall"}, "collected on the host that asked"
    assert sample.runs == {"room": 1}


def test_of_twenty_concurrent_answers_by_id_exactly_one_runs(served, sample):
    invoke(served, served.key(["invoke"]), "hall")
    key = served.key(["settings"])
    (pending,) = served.client(["settings"]).get("/api/v1/confirmations").json()["confirmations"]

    async def answer_all() -> list[dict]:
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30) as client:
            path = f"{served.base_url}/api/v1/confirmations/{pending['id']}"
            answers = await asyncio.gather(*(client.post(path, json={"approve": True}) for _ in range(20)))
        return [answer.json()["outcome"] for answer in answers]

    outcomes = asyncio.run(answer_all())
    assert sorted(outcome["status"] for outcome in outcomes).count("ok") == 1
    assert sample.runs == {"room": 1}


def test_readable_arguments_escape_what_reorders_or_hides_text_and_keep_the_value():
    arguments = {"name": "\u202eexe.txt", "host": "a\u200bb.example", "tag": "\U000e0041", "plain": "café 日本\n"}
    shown = readable_arguments(arguments)
    assert all(char not in shown for char in "\u202e\u200b\U000e0041")
    assert "café 日本" in shown, "ordinary text stays as it is"
    assert json.loads(shown) == arguments


def test_the_asker_collects_a_denial_given_in_the_console_and_nobody_else_collects_it(served, sample):
    agent, stranger = served.key(["invoke"], name="agent"), served.key(["invoke"], name="stranger")
    asked = invoke(served, agent, "hall").json()["pending_confirmation"]
    console = served.client(["settings"])
    (pending,) = console.get("/api/v1/confirmations").json()["confirmations"]
    assert console.post(f"/api/v1/confirmations/{pending['id']}", json={"approve": False}).status_code == 200

    def answer(key: str, capability: str = "sample.room") -> httpx.Response:
        return httpx.post(
            f"{served.base_url}/api/v1/capabilities/{capability}/invoke",
            json={"confirmation": {"token": asked["token"], "approve": True}},
            headers={"Authorization": f"Bearer {key}"},
        )

    assert answer(stranger).json()["code"] == "INVALID_CONFIRMATION"
    assert answer(agent, "sample.echo").json()["code"] == "INVALID_CONFIRMATION", "at another capability's URL"
    collected = answer(agent)
    assert (collected.status_code, collected.json()["status"], collected.json()["code"]) == (
        200,
        "denied",
        "CONFIRMATION_DENIED",
    )
    assert sample.runs == {}
    assert [record["code"] for record in served.audit_records()].count("CONFIRMATION_DENIED") == 1, "audited once"


class Garden:
    """A third party's console panel, its script written where the plugin keeps it."""

    def __init__(self, script: Path, name: str = "garden") -> None:
        self.script, self.name = script, name

    @steward.hookimpl
    def register_console_panels(self):
        return [steward.ConsolePanel(self.name, "Garden", self.script, scope="conversation")]


def test_a_plugin_adds_a_console_panel_served_under_the_consoles_policy(tmp_path):
    script = tmp_path / "garden.js"
    script.write_text('stewardConsole.panel("garden", (section, { el }) => section.append(el("p", { text: "wet" })));')
    with serve_host([steward.Plugin("garden", Garden(script))], data_dir=tmp_path / "data") as served:
        listed = served.client(["invoke"]).get("/api/v1/console/panels").json()["panels"]
        assert listed == [
            {"name": "garden", "title": "Garden", "scope": "conversation", "script": "/console/panels/garden.js"}
        ]
        served_script = httpx.get(served.base_url + "/console/panels/garden.js")
        assert served_script.text == script.read_text()
        assert served_script.headers["content-type"].startswith("text/javascript")
        assert "script-src 'self'" in served_script.headers["content-security-policy"]
        assert httpx.get(served.base_url + "/console/panels/lawn.js").status_code == 404
        assert httpx.get(served.base_url + "/api/v1/console/panels").status_code == 401


def test_a_panel_with_a_bad_name_a_missing_script_or_a_taken_name_is_a_load_error(tmp_path):
    script = tmp_path / "garden.js"
    script.write_text("")
    plugins = [
        steward.Plugin("garden", Garden(script)),
        steward.Plugin("lawn", Garden(script)),
        steward.Plugin("shouty", Garden(script, name="Garden!")),
        steward.Plugin("gone", Garden(tmp_path / "missing.js", name="gone")),
    ]
    host = make_host(plugins, data_dir=tmp_path / "data")
    try:
        assert list(host.console_panels) == ["garden"]
        messages = {error.plugin: error.message for error in host.load_errors}
        (taken,) = [message for message in messages.values() if "already declared" in message]
        assert "by plugin 'garden'" in taken or "by plugin 'lawn'" in taken
        assert "lower-case letters" in messages["shouty"]
        assert "is not a file" in messages["gone"]
    finally:
        host.close()


def test_every_word_the_console_shows_is_in_its_catalogue():
    """strings.js holds every string: each key console.js asks for with t() and each data-text of
    the page is in the English catalogue, and English has no key nobody asks for."""
    script = (CONSOLE / "console.js").read_text() + (CONSOLE / "strings.js").read_text()
    asked = set(re.findall(r"\bt\(\"(\w+)\"", script)) | set(
        re.findall(r'data-text="(\w+)"', (CONSOLE / "index.html").read_text())
    )
    strings = (CONSOLE / "strings.js").read_text()
    english = strings[strings.index("en: {") : strings.index("\n  },\n};")]
    held = set(re.findall(r"^    (\w+):", english, re.MULTILINE))
    assert asked - held == set(), "asked for but not in the catalogue"
    assert held - asked == set(), "in the catalogue but never shown"


def test_the_codes_listed_are_those_this_host_answers_with(tmp_path):
    """A plugin's codes are listed by the host that loaded it, never by another host in the process."""
    import steward_websearch

    def listed(server: ServedHost) -> set[str]:
        return {code["code"] for code in server.client(["settings"]).get("/api/v1/codes").json()["codes"]}

    web = serve_host([steward.Plugin("websearch", steward_websearch)], data_dir=tmp_path / "web")
    plain = serve_host([steward.Plugin("sample", SamplePlugin())], data_dir=tmp_path / "plain")
    with web as with_websearch, plain as without:
        assert {"UPSTREAM_BLOCKED", "CONFIRMATION_EXPIRED"} <= listed(with_websearch)
        assert "CONFIRMATION_EXPIRED" in listed(without)
        assert "UPSTREAM_BLOCKED" not in listed(without)
