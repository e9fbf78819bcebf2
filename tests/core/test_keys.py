import json
import multiprocessing
import secrets
import tracemalloc
from pathlib import Path

import httpx
import pytest

from steward._auth import KeyStore, KeysUnavailable
from steward._policy import Policy, PolicyFlag


def test_a_key_remembered_by_one_server_is_forgotten_when_another_process_revokes_it(tmp_path):
    server = KeyStore.in_file(tmp_path / "keys.toml", recheck_seconds=0)
    cli = KeyStore.in_file(tmp_path / "keys.toml")
    key = cli.add("fleet", ["invoke"])
    assert server.lookup(key).name == "fleet"
    assert server.lookup(key).name == "fleet"
    assert cli.revoke("fleet")
    assert server.lookup(key) is None


def test_a_wrong_key_never_passes_and_is_never_remembered(tmp_path):
    store = KeyStore.in_file(tmp_path / "keys.toml")
    key = store.add("fleet", ["invoke"])
    assert store.lookup(key) is not None
    assert store.lookup(key[:-1] + ("A" if key[-1] != "A" else "B")) is None
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for _ in range(10_000):
        assert store.lookup("stw_" + secrets.token_urlsafe(32)) is None
    grown = sum(stat.size_diff for stat in tracemalloc.take_snapshot().compare_to(before, "filename"))
    tracemalloc.stop()
    assert grown < 64 * 1024


def _add_key(path: str, name: str) -> str:
    return KeyStore.in_file(Path(path)).add(name, ["invoke"])


def _revoke_key(path: str, name: str) -> bool:
    return KeyStore.in_file(Path(path)).revoke(name)


def _set_flag(directory: str, name: str, value: bool) -> None:
    Policy.in_directory(Path(directory), [PolicyFlag(f"flag_{index}", "d") for index in range(12)]).set(name, value)


def test_twelve_processes_adding_keys_at_once_store_all_twelve(tmp_path):
    path = tmp_path / "keys.toml"
    with multiprocessing.get_context("spawn").Pool(12) as pool:
        keys = pool.starmap(_add_key, [(str(path), f"agent-{index}") for index in range(12)])
    store = KeyStore.in_file(path, recheck_seconds=0)
    assert sorted(record.name for record in store.records()) == sorted(f"agent-{index}" for index in range(12))
    assert all(store.lookup(key) is not None for key in keys)


def test_a_revocation_racing_additions_is_never_lost(tmp_path):
    path = tmp_path / "keys.toml"
    victim = KeyStore.in_file(path).add("victim", ["invoke"])
    with multiprocessing.get_context("spawn").Pool(8) as pool:
        jobs = [pool.apply_async(_add_key, (str(path), f"agent-{index}")) for index in range(7)]
        revoked = pool.apply_async(_revoke_key, (str(path), "victim"))
        assert revoked.get(timeout=60) is True
        for job in jobs:
            job.get(timeout=60)
    store = KeyStore.in_file(path, recheck_seconds=0)
    assert store.lookup(victim) is None
    assert len(store.records()) == 7


def test_policy_flags_set_at_once_by_twelve_processes_all_hold(tmp_path):
    with multiprocessing.get_context("spawn").Pool(12) as pool:
        pool.starmap(_set_flag, [(str(tmp_path), f"flag_{index}", True) for index in range(12)])
    stored = json.loads((tmp_path / "policy.json").read_text())
    assert stored == {f"flag_{index}": True for index in range(12)}


@pytest.mark.parametrize("damage", ["corrupt", "unreadable"])
def test_a_key_file_that_cannot_be_read_refuses_every_key_until_it_can(tmp_path, damage):
    path = tmp_path / "keys.toml"
    store = KeyStore.in_file(path, recheck_seconds=0)
    admin = store.add("admin", ["admin"])
    revoked = store.add("gone", ["invoke"])
    assert store.lookup(admin) is not None
    good = path.read_bytes()
    store.revoke("gone")
    if damage == "corrupt":
        path.write_text("keys = [ this is not toml")
    else:
        path.unlink()
        path.mkdir()
    with pytest.raises(KeysUnavailable, match=r"keys\.toml"):
        store.lookup(revoked)
    with pytest.raises(KeysUnavailable):
        store.lookup(admin)
    assert "keys.toml" in store.problem
    if damage == "unreadable":
        path.rmdir()
    path.write_bytes(good)
    assert store.lookup(admin) is not None
    assert store.problem is None


def test_the_server_answers_503_naming_the_file_while_keys_cannot_be_read(served):
    client = served.client(["admin"])
    assert client.get("/api/v1/capabilities").status_code == 200
    path = served.host.keys.table.path
    good = path.read_bytes()
    path.write_text("[[keys]]\nname = 1\n")
    served.host.keys.refresh()
    for response in (
        client.get("/api/v1/capabilities"),
        client.post("/api/v1/capabilities/sample.echo/invoke", json={"arguments": {"text": "hi"}}),
    ):
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "KEYS_UNAVAILABLE"
        assert "keys.toml" in response.json()["error"]["message"]
    assert httpx.get(f"{served.base_url}/healthz").json() == {"status": "degraded"}
    assert client.get("/healthz").json() == {"status": "degraded"}, "no key can be checked, so no details"
    path.write_bytes(good)
    served.host.keys.refresh()
    assert client.get("/api/v1/capabilities").status_code == 200
    assert client.get("/healthz").json()["problems"] == []
