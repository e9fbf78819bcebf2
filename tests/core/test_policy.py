import json

import pytest
from principals import ALICE

from steward import Surface
from steward._files import write_atomic
from steward._policy import Policy, PolicyFlag

FLAGS = [PolicyFlag("web_search_enabled", "d"), PolicyFlag("home_enabled", "d", file="home.json", key="enabled")]


@pytest.fixture
def policy(tmp_path):
    return Policy.in_directory(tmp_path, FLAGS)


def test_missing_file_and_missing_key_read_false(policy, tmp_path):
    assert policy.snapshot() == {"home_enabled": False, "web_search_enabled": False}
    (tmp_path / "policy.json").write_text("{}")
    assert policy.is_enabled("web_search_enabled") is False
    assert policy.problems() == []


def test_reads_are_fresh(policy, tmp_path):
    (tmp_path / "policy.json").write_text('{"web_search_enabled": true}')
    assert policy.is_enabled("web_search_enabled")
    (tmp_path / "policy.json").write_text('{"web_search_enabled": false}')
    assert not policy.is_enabled("web_search_enabled")


@pytest.mark.parametrize(
    "content", ['{"web_search_enabled": tru', "[true]", '{"web_search_enabled": "true"}', '{"web_search_enabled": 1}']
)
def test_anything_but_literal_true_fails_closed_and_is_reported(policy, tmp_path, content, caplog):
    (tmp_path / "policy.json").write_text(content)
    assert policy.is_enabled("web_search_enabled") is False
    assert len(policy.problems()) == 1
    assert "policy.json" in policy.problems()[0]
    assert "treating it as false" in caplog.text


def test_set_keeps_other_keys_and_is_independent(policy, tmp_path):
    (tmp_path / "home.json").write_text('{"base_url": "http://ha.local:8123", "enabled": false}')
    policy.set("home_enabled", True)
    assert json.loads((tmp_path / "home.json").read_text()) == {"base_url": "http://ha.local:8123", "enabled": True}
    assert policy.snapshot() == {"home_enabled": True, "web_search_enabled": False}
    assert not (tmp_path / "policy.json").exists()


def test_set_refuses_to_overwrite_a_corrupt_file(policy, tmp_path):
    (tmp_path / "home.json").write_text("{oops")
    with pytest.raises(ValueError, match="not valid JSON"):
        policy.set("home_enabled", True)
    assert (tmp_path / "home.json").read_text() == "{oops"


def test_atomic_write_leaves_no_temporary_files_and_private_modes(tmp_path):
    target = tmp_path / "secrets" / "token"
    write_atomic(target, b"one")
    write_atomic(target, b"two")
    assert target.read_bytes() == b"two"
    assert [path.name for path in target.parent.iterdir()] == ["token"]
    assert target.stat().st_mode & 0o777 == 0o600
    assert target.parent.stat().st_mode & 0o777 == 0o700


@pytest.mark.anyio
async def test_executor_reads_the_file_on_every_request(host):
    path = host.data_dir / "capabilities" / "policy.json"
    outcomes = []
    for content in ('{"sample_enabled": true}', '{"sample_enabled": false}', '{"sample_enabled": true}'):
        path.write_text(content)
        outcome = await host.executor.invoke("sample.send", {"text": "x"}, caller=ALICE, surface=Surface.INVOKE)
        outcomes.append(outcome.status)
    assert outcomes == ["pending", "rejected", "pending"]
