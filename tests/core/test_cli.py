import json

import click
import pytest
from click.testing import CliRunner
from sample_plugin import SamplePlugin

import steward
from steward._auth import KeyStore, key_digest
from steward._cli import cli
from steward._client import ClientSettings, save_client_settings
from steward.testing import serve_host


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("STEWARD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("STEWARD_PLUGINS", "system")

    def invoke(*arguments: str, stdin: str | None = None):
        return CliRunner().invoke(cli, list(arguments), input=stdin)

    return invoke


def test_keys_add_prints_the_key_alone_and_stores_only_its_hash(run, tmp_path):
    result = run("keys", "add", "console", "--scope", "conversation", "--scope", "settings")
    assert result.exit_code == 0, result.output
    key = result.stdout.strip()
    assert result.stdout == key + "\n"
    assert key.startswith("stw_")
    assert len(key) >= 40
    stored = (tmp_path / "data" / "keys.toml").read_text()
    assert key not in stored
    assert key_digest(key) in stored
    assert (tmp_path / "data" / "keys.toml").stat().st_mode & 0o777 == 0o600
    principal = KeyStore.in_file(tmp_path / "data" / "keys.toml").lookup(key)
    assert principal.scopes == frozenset({"conversation", "settings"})


def test_keys_list_and_revoke(run):
    run("keys", "add", "fleet", "--scope", "service", "--preapprove", "web.fetch")
    listed = run("keys", "list")
    assert "fleet  scopes: service  preapproved: web.fetch" in listed.output
    assert "stw_" not in listed.output
    assert run("keys", "revoke", "fleet").exit_code == 0
    assert "fleet" not in run("keys", "list").output
    missing = run("keys", "revoke", "fleet")
    assert missing.exit_code == 1
    assert "no key named 'fleet'" in missing.output


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["keys", "add", "x", "--scope", "root"], "'root' is not one of"),
        (["keys", "add", "bad name", "--scope", "admin"], "must be 1-64"),
        (["keys", "add", "x"], "Missing option '--scope'"),
    ],
)
def test_keys_add_refuses_bad_input(run, arguments, message):
    result = run(*arguments)
    assert result.exit_code != 0
    assert message in result.output


def test_duplicate_key_names_are_refused(run):
    run("keys", "add", "same", "--scope", "admin")
    result = run("keys", "add", "same", "--scope", "admin")
    assert result.exit_code == 1
    assert "already exists" in result.output


def test_data_dir_option_after_the_command(run, tmp_path):
    other = tmp_path / "other"
    assert run("keys", "add", "k", "--scope", "admin", "--data-dir", str(other)).exit_code == 0
    assert (other / "keys.toml").exists()
    assert run("--data-dir", str(other), "keys", "list").output.startswith("k  scopes: admin")


def test_capabilities_and_plugins(run):
    listed = run("capabilities", "--json")
    described = json.loads(listed.stdout)
    assert [item["name"] for item in described] == ["system.health"]
    assert described[0]["classification"]["confirmation"] == "automatic"
    assert "system.health v1  read_only/local, confirmation automatic" in run("capabilities").output
    assert run("plugins").output.startswith("system  (steward-system ")


def test_invoke_runs_through_the_executor_and_audits(run, tmp_path):
    result = run("invoke", "system.health", "--json", "{}", "--local")
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "ok"
    assert outcome["result"]["memory"]["total_bytes"] > 0
    audit = (tmp_path / "data" / "capabilities" / "audit.jsonl").read_text().splitlines()
    assert json.loads(audit[0])["surface"] == "cli"


def test_invoke_refusal_exits_non_zero(run):
    result = run("invoke", "system.health", "--json", '{"verbose": true}', "--local")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["code"] == "INVALID_ARGUMENTS"


def test_policy_get_and_set_name_unknown_flags(run):
    assert run("policy", "get").output == ""
    result = run("policy", "set", "web_search_enabled", "true")
    assert result.exit_code == 1
    assert "no policy flag named 'web_search_enabled'" in result.output
    assert run("policy", "set", "x", "maybe").exit_code == 2


def test_bad_config_is_a_clear_error(run, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[server]\nprot = 1\n")
    result = run("capabilities", "--config", str(path))
    assert result.exit_code == 1
    assert "configuration: server.prot: unknown key" in result.output


def test_serve_refuses_several_workers_with_the_memory_store(run):
    result = run("serve", "--workers", "2")
    assert result.exit_code == 1
    assert "--workers 2 needs the redis state backend" in result.output


def test_invoke_goes_to_the_running_server_with_the_client_key(tmp_path, monkeypatch):
    sample = SamplePlugin()
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path / "served") as served:
        served.set_policy("sample_enabled", True)
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
        monkeypatch.setenv("STEWARD_DATA_DIR", str(tmp_path / "elsewhere"))
        save_client_settings(ClientSettings(url=served.base_url, key=served.key(["invoke"], name="operator")))
        ran = CliRunner().invoke(cli, ["invoke", "sample.echo", "--json", '{"text": "hi"}'])
        assert ran.exit_code == 0, ran.output
        assert json.loads(ran.stdout)["result"] == {"text": "hi"}
        pending = CliRunner().invoke(cli, ["invoke", "sample.send", "--json", '{"text": "out"}'])
        assert pending.exit_code == 1
        withdrawn = json.loads(pending.stdout)
        assert (withdrawn["status"], withdrawn["code"]) == ("denied", "CONFIRMATION_WITHDRAWN")
        assert "nothing ran, and the request is withdrawn" in pending.stderr
        assert served.client().get("/api/v1/confirmations").json() == {"confirmations": []}, "no card left behind"
        assert sample.runs == {"echo": 1}, "ran in the server, and the mutating call did not run"
        records = served.audit_records()
        assert [record["caller"] for record in records] == ["operator"] * 3
        assert [record["code"] for record in records] == [None, None, "CONFIRMATION_WITHDRAWN"]
        assert not (tmp_path / "elsewhere").exists(), "no host was built in the command's own process"
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "nowhere"))
        missing = CliRunner().invoke(cli, ["invoke", "sample.echo", "--json", '{"text": "hi"}'])
        assert missing.exit_code == 1
        assert "--local" in missing.output


def test_a_server_that_does_not_answer_is_named_with_how_to_start_one(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    save_client_settings(ClientSettings(url="http://127.0.0.1:9", key="stw_x"))
    ran = CliRunner().invoke(cli, ["invoke", "system.health"])
    assert ran.exit_code == 1
    assert "cannot reach a Steward server at http://127.0.0.1:9" in ran.output
    assert "steward serve" in ran.output


def test_a_key_piped_into_login_is_read_without_a_password_warning(tmp_path, monkeypatch):
    with serve_host([], data_dir=tmp_path / "served") as served:
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
        key = served.key(["invoke"])
        ran = CliRunner().invoke(cli, ["login", "--url", served.base_url], input=key + "\n")
        assert ran.exit_code == 0, ran.output
        assert "GetPassWarning" not in ran.output
        assert "Warning" not in ran.stderr
        assert steward.load_client_settings().key == key


def _commands(command: click.Command, path: tuple[str, ...] = ()):
    yield path, command
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _commands(sub, (*path, name))


def test_help_texts_are_plain_text_not_restructured_text():
    for path, _ in _commands(cli):
        shown = CliRunner().invoke(cli, [*path, "--help"]).output
        assert "``" not in shown, path
        assert ":class:" not in shown, path
