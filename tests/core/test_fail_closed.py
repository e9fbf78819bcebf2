"""What Steward does when it cannot keep its promises: a full disk, a flood of pending answers,
someone else's token. Each case refuses clearly instead of running unrecorded or growing without end."""

import os
from pathlib import Path

import pytest
from test_conversation import MESSAGE, RULES

import steward
from steward._config import ConfigError, load_config
from steward.testing import ScriptedModel, serve_app, serve_host

SEND = "/api/v1/capabilities/sample.send/invoke"
ECHO = "/api/v1/capabilities/sample.echo/invoke"


def full_disk_audit(data_dir: Path) -> None:
    """Every write to the audit log fails with ENOSPC, as on a full disk."""
    path = data_dir / "capabilities" / "audit.jsonl"
    path.parent.mkdir(parents=True)
    os.symlink("/dev/full", path)


def test_nothing_that_leaves_the_device_runs_when_the_audit_log_cannot_be_written(sample, tmp_path):
    full_disk_audit(tmp_path)
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path) as served:
        served.set_policy("sample_enabled", True)
        preapproved = served.client(["invoke"], preapproved=["sample.send"])
        refused = preapproved.post(SEND, json={"arguments": {"text": "hello"}})
        assert refused.status_code == 503
        assert refused.json()["error"]["code"] == "AUDIT_UNAVAILABLE"
        assert "did not run" in refused.json()["error"]["message"]
        person = served.client(["invoke"])
        token = person.post(SEND, json={"arguments": {"text": "hello"}}).json()["pending_confirmation"]["token"]
        approved = person.post(SEND, json={"confirmation": {"token": token, "approve": True}})
        assert approved.json()["code"] == "AUDIT_UNAVAILABLE"
        assert sample.runs.get("send", 0) == 0, "neither the pre-approved nor the approved call ran"
        local = person.post(ECHO, json={"arguments": {"text": "hi"}})
        assert local.status_code == 200, "read_only + local still runs, its record lost and logged"


def test_a_policy_change_that_cannot_be_saved_is_a_clear_503(sample, tmp_path):
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path) as served:
        (tmp_path / "capabilities" / "policy.json").mkdir(parents=True)
        response = served.client(["settings"]).post("/api/v1/conversation/policy", json={"sample_enabled": True})
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "SETTINGS_NOT_SAVED"


def test_pending_confirmations_are_capped_per_key(sample, tmp_path):
    config = {"confirmation": {"max_pending_per_caller": 3}}
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=config) as served:
        served.set_policy("sample_enabled", True)
        flood = served.client(["invoke"])
        answers = [flood.post(SEND, json={"arguments": {"text": f"n{index}"}}) for index in range(5)]
        assert [answer.status_code for answer in answers] == [202, 202, 202, 429, 429]
        assert answers[3].json()["error"]["code"] == "TOO_MANY_PENDING"
        assert len(served.host.confirmations) == 3
        other = served.client(["invoke"]).post(SEND, json={"arguments": {"text": "mine"}})
        assert other.status_code == 202, "one key's flood does not lock out another"
        token = answers[0].json()["pending_confirmation"]["token"]
        flood.post(SEND, json={"confirmation": {"token": token, "approve": False}})
        assert flood.post(SEND, json={"arguments": {"text": "again"}}).status_code == 202


@pytest.mark.parametrize(
    ("limits", "history"),
    [({"max_paused_turns_per_caller": 2}, 1), ({"max_paused_turn_bytes": 45_000}, 100)],
    ids=["count", "bytes"],
)
def test_paused_turns_are_capped_and_a_refused_pause_leaves_no_token(sample, tmp_path, limits, history):
    model = ScriptedModel(rules=RULES)
    with serve_app(model.app()) as model_url:
        config = {"model": {"base_url": f"{model_url}/v1"}, "confirmation": limits}
        with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path, config=config) as served:
            served.set_policy("sample_enabled", True)
            client = served.client(["conversation"])
            earlier = [{"role": "user", "content": "x" * 100}, {"role": "assistant", "content": "ok"}] * history
            body = {"messages": [*earlier, {"role": "user", "content": 'send "hello"'}]}
            statuses = [client.post(MESSAGE, json=body).status_code for _ in range(4)]
            assert statuses[:2] == [200, 200]
            assert statuses[2:] == [429, 429]
            assert len(served.host.confirmations) == 2, "the refused pauses withdrew their tokens"
            refused = client.post(MESSAGE, json=body)
            assert refused.json()["error"]["code"] == "TOO_MANY_PENDING"


def test_another_keys_answer_neither_runs_nor_spends_the_token(sample, tmp_path):
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path) as served:
        served.set_policy("sample_enabled", True)
        owner, stranger = served.client(["invoke"]), served.client(["invoke"])
        token = owner.post(SEND, json={"arguments": {"text": "hi"}}).json()["pending_confirmation"]["token"]
        for approve in (True, False):
            foreign = stranger.post(SEND, json={"confirmation": {"token": token, "approve": approve}})
            assert foreign.status_code == 400
            assert foreign.json()["error"]["code"] == "INVALID_CONFIRMATION"
        assert sample.runs.get("send", 0) == 0
        approved = owner.post(SEND, json={"confirmation": {"token": token, "approve": True}})
        assert approved.json()["status"] == "ok", "the stranger's answers did not spend the owner's token"
        assert sample.runs["send"] == 1
        console = served.client(["settings", "invoke"])
        second = owner.post(SEND, json={"arguments": {"text": "again"}}).json()["pending_confirmation"]["token"]
        from_console = console.post(SEND, json={"confirmation": {"token": second, "approve": True}})
        assert from_console.json()["status"] == "ok", "a household console (scope settings) may answer"
        assert sample.runs["send"] == 2


@pytest.mark.parametrize("lifetime", [0, -5])
def test_a_confirmation_lifetime_that_is_not_positive_is_refused(lifetime):
    with pytest.raises(ConfigError, match=r"confirmation\.lifetime_seconds"):
        load_config(None, environ={}, overrides={"confirmation": {"lifetime_seconds": lifetime}})
