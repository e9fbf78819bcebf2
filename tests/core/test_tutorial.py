"""docs/plugin-tutorial.md, followed to the letter: every file it shows is written, every command
it shows is run (or, for the two that would change this machine's environment, its equivalent
into a private directory), and the plugin it builds installs, passes its tests, is found by a
real ``steward serve`` and waits for a person's yes."""

import os
import pty
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from steward_processes import free_port, start_serve

ROOT = Path(__file__).parents[2]
BIN = Path(sys.executable).parent
TUTORIAL = (ROOT / "docs" / "plugin-tutorial.md").read_text()
FILES = dict(re.findall(r"```python file=(\S+)\n(.*?)```", TUTORIAL, re.DOTALL))
COMMANDS = [
    line
    for block in re.findall(r"```sh\n(.*?)```", TUTORIAL, re.DOTALL)
    for line in block.replace("\\\n", "").splitlines()
    if line.strip()
]
# What this test does for each command of the tutorial; a command it does not know fails the test.
RUN_BY_THIS_TEST = {
    "steward new-plugin chores": "the real command, in a temporary directory",
    "cd steward-chores": "the directory every later step runs in",
    "pip install -r steward-source.txt -e '.[test]'": "pip install --target a private site directory (not this venv)",
    "pytest": "pytest on the package's tests, with that site directory on the path",
    "pip install .": "the same private install",
    "steward serve": "the real server, with the private site directory on PYTHONPATH",
    'curl -s -H "Authorization: Bearer $KEY" http://127.0.0.1:8092/api/v1/plugins': "GET /api/v1/plugins",
    "steward policy set chores_enabled true": "the real command",
    'curl -s -H "Authorization: Bearer $KEY" -X POST http://127.0.0.1:8092/api/v1/capabilities/chores.add/invoke '
    """     -d '{"arguments": {"title": "water the plants"}}'""": "the same POST, then the approval",
}


def test_the_tutorial_shows_only_commands_this_test_runs():
    assert list(RUN_BY_THIS_TEST) == COMMANDS
    assert set(FILES) == {"src/steward_chores/chores.py", "src/steward_chores/__init__.py", "tests/test_chores.py"}


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    workspace = tmp_path_factory.mktemp("tutorial")
    subprocess.run([BIN / "steward", "new-plugin", "chores"], cwd=workspace, check=True, capture_output=True)
    package = workspace / "steward-chores"
    for relative, source in FILES.items():
        (package / relative).write_text(source)
    return package


@pytest.fixture(scope="module")
def site(package, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            target,
            ".",
        ],
        cwd=package,
        check=True,
        capture_output=True,
    )
    return target


def test_the_package_passes_its_own_tests(package, site):
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=package,
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "6 passed" in ran.stdout


def environment(site: Path, data_dir: Path) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(data_dir),
        "PYTHONPATH": str(site),
        "STEWARD_DATA_DIR": str(data_dir),
    }


def test_installed_it_is_found_and_a_chore_waits_for_a_yes(site, tmp_path):
    env = environment(site, tmp_path)
    port = free_port()
    server, output = start_serve(port, env)
    try:
        key_file = tmp_path / "first-admin-key"
        assert str(key_file) in output, "without a terminal, the log says where the first key is"
        assert not re.search(r"stw_[A-Za-z0-9_-]{43}", output), "and the key itself never reaches the log"
        assert oct(key_file.stat().st_mode & 0o777) == "0o600"
        key = key_file.read_text().strip()
        client = httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {key}"})
        plugins = client.get("/api/v1/plugins").json()["plugins"]
        chores = next(plugin for plugin in plugins if plugin["name"] == "chores")
        assert chores == {
            "name": "chores",
            "distribution": "steward-chores",
            "version": "0.1.0",
            "hooks": ["register_capabilities", "register_outcome_codes", "register_policy_flags"],
            "capabilities": ["chores.add", "chores.greet", "chores.list"],
            "outcome_codes": ["CHORE_LIST_FULL"],
        }
        subprocess.run(
            [BIN / "steward", "policy", "set", "chores_enabled", "true"], env=env, check=True, capture_output=True
        )
        url = "/api/v1/capabilities/chores.add/invoke"
        pending = client.post(url, json={"arguments": {"title": "water the plants"}})
        assert pending.status_code == 202
        answer = {"confirmation": {"token": pending.json()["pending_confirmation"]["token"], "approve": True}}
        ran = client.post(url, json=answer)
        assert (ran.status_code, ran.json()["result"]) == (200, {"chores": ["water the plants"]})
        assert client.post(url, json=answer).status_code == 400
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert key not in (tmp_path / "keys.toml").read_text()


def test_the_command_line_shows_the_arguments_and_asks(site, tmp_path):
    env = environment(site, tmp_path)
    subprocess.run([BIN / "steward", "policy", "set", "chores_enabled", "true"], env=env, check=True)

    def converse(answer: str) -> str:
        controller, terminal = pty.openpty()
        process = subprocess.Popen(
            [BIN / "steward", "invoke", "--local", "chores.add", "--json", '{"title": "water the plants"}'],
            env=env,
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=terminal,
            text=True,
        )
        os.close(terminal)
        transcript = b""
        deadline = time.monotonic() + 30
        while b"[y/N]" not in transcript and time.monotonic() < deadline:
            transcript += os.read(controller, 4096)
        os.write(controller, answer.encode() + b"\n")
        stdout, _ = process.communicate(timeout=30)
        os.close(controller)
        assert b'"title": "water the plants"' in transcript
        return stdout

    assert '"status": "denied"' in converse("n")
    assert not (tmp_path / "chores" / "chores.json").exists()
    assert '"status": "ok"' in converse("y")
    assert (tmp_path / "chores" / "chores.json").read_bytes() == b'{"chores":["water the plants"]}'
