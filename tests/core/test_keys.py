import secrets
import tracemalloc

from steward.auth import KeyStore


def test_a_key_remembered_by_one_server_is_forgotten_when_another_process_revokes_it(tmp_path):
    server = KeyStore(tmp_path / "keys.toml", recheck_seconds=0)
    cli = KeyStore(tmp_path / "keys.toml")
    key = cli.add("fleet", ["invoke"])
    assert server.lookup(key).name == "fleet"
    assert server.lookup(key).name == "fleet"
    assert cli.revoke("fleet")
    assert server.lookup(key) is None


def test_a_wrong_key_never_passes_and_is_never_remembered(tmp_path):
    store = KeyStore(tmp_path / "keys.toml")
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
