"""`steward fetch`, `steward search` and `steward login` as real processes against a live server."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import steward_websearch
from loopback import TEST_ADDRESS
from test_service import SERVICE_KEY, settings_for
from upstreams import SearxShaped, Site

from steward.testing import ScriptedModel, serve_app, serve_host

STEWARD = Path(sys.executable).parent / "steward"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    site, searx, model = Site(), SearxShaped(), ScriptedModel(rules=())
    with (
        serve_app(site.app(), host=TEST_ADDRESS) as site_url,
        serve_app(searx.app()) as searx_url,
        serve_app(model.app()) as model_url,
    ):
        settings = settings_for(site_url, searx_url, model_url)
        settings["rerank"] = {"base_url": f"{model_url}/v1"}
        config = {"plugins": {"websearch": settings}}
        with serve_host([steward_websearch], data_dir=tmp_path_factory.mktemp("data"), config=config) as served:
            served.set_policy("web_search_enabled", True)
            yield served, site_url


def client_home(tmp_path: Path, url: str, key: str, mode: int = 0o600) -> dict[str, str]:
    path = tmp_path / "config" / "steward" / "client.toml"
    path.parent.mkdir(parents=True)
    path.write_text(f'url = "{url}"\nkey = "{key}"\n')
    path.chmod(mode)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("STEWARD_")}
    return {**environment, "XDG_CONFIG_HOME": str(tmp_path / "config"), "NO_PROXY": "127.0.0.1"}


def steward(environment: dict[str, str], *arguments: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(STEWARD), *arguments], env=environment, input=stdin, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def agent_env(server, tmp_path):
    served, _ = server
    return client_home(tmp_path, served.base_url, served.key(**SERVICE_KEY))


def test_fetch_prints_title_source_and_content(agent_env, server):
    _, site = server
    done = steward(agent_env, "fetch", f"{site}/r/0")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "# Kettles"
    assert lines[1] == f"source: {site}/article (200, text/html)"
    assert lines[3].startswith("Paragraph 0: a kettle boils water")
    assert done.stderr == ""


def test_fetch_json_and_jq_for_scripts(agent_env, server):
    _, site = server
    done = steward(agent_env, "fetch", f"{site}/data.json", "--jq", ".kettles[0].watts", "--json")
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert body["content"] == "2200"
    assert body["untrusted"] is True


def test_exit_codes_scripts_can_branch_on(agent_env, server, tmp_path):
    served, site = server
    refused = steward(agent_env, "fetch", f"{site}/to-private")
    assert refused.returncode == 2
    assert "FETCH_TARGET_REJECTED: blocked: private address 10.0.0.5" in refused.stderr
    blocked = steward(agent_env, "fetch", f"{site}/status/403")
    assert blocked.returncode == 3
    assert "upstream 403 (likely bot-blocked) (next: --recover)" in blocked.stderr
    recovered = steward(agent_env, "fetch", f"{site}/status/403", "--recover")
    assert recovered.returncode == 0
    assert "archived copy from 2024-01-02T03:04:05+00:00" in recovered.stdout
    assert recovered.stderr.startswith("warning: the site refused; this is an archived copy")
    wrong_key = client_home(tmp_path / "wrong", served.base_url, "stw_wrong")
    assert steward(wrong_key, "fetch", f"{site}/article").returncode == 4
    no_service = client_home(tmp_path / "noservice", served.base_url, served.key(["invoke"]))
    assert steward(no_service, "search", "kettles").returncode == 4
    readable = client_home(tmp_path / "readable", served.base_url, "stw_x", mode=0o644)
    exposed = steward(readable, "fetch", f"{site}/article")
    assert exposed.returncode == 4
    assert "chmod 600" in exposed.stderr


def test_search_prints_numbered_results(agent_env):
    done = steward(agent_env, "search", "kettles", "--k", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "1. Result 0",
        "   https://example.org/0",
        "   Snippet with bold & entities, number 0",
        "2. Result 1",
        "   https://example.org/1",
        "   Snippet with bold & entities, number 1",
    ]


def test_fetch_with_context_asks_for_memory_and_says_why_there_is_none(agent_env, server):
    done = steward(agent_env, "fetch", f"{server[1]}/article", "--context")
    assert done.returncode == 0, done.stderr
    assert "Paragraph 0: a kettle boils water" in done.stdout
    assert "warning: no memory context: this key has no memory workspace" in done.stderr


def test_search_reranks_and_digests_when_asked(agent_env):
    reranked = steward(agent_env, "search", "kettles", "--k", "1", "--question", "number 5", "--rerank")
    assert reranked.returncode == 0, reranked.stderr
    assert reranked.stdout.splitlines()[:2] == ["1. Result 5", "   https://example.org/5"]
    digested = steward(agent_env, "search", "kettles", "--k", "1", "--digest")
    assert digested.returncode == 0, digested.stderr
    digest, results = digested.stdout.split("\n\n1. Result 0\n", 1)
    assert "Question: kettles" in digest, "the scripted model echoes what it was asked"
    assert results.startswith("   https://example.org/0")


def test_login_checks_the_key_and_writes_a_private_file(server, tmp_path):
    served, site = server
    environment = {**client_home(tmp_path / "unused", "http://127.0.0.1:9", "x"), "XDG_CONFIG_HOME": str(tmp_path)}
    refused = steward(environment, "login", "--url", served.base_url, stdin="stw_wrong\n")
    assert refused.returncode == 1
    assert "does not accept this key" in refused.stderr
    assert not (tmp_path / "steward" / "client.toml").exists()
    key = served.key(**SERVICE_KEY)
    done = steward(environment, "login", "--url", served.base_url, stdin=f"{key}\n")
    assert done.returncode == 0, done.stderr
    path = tmp_path / "steward" / "client.toml"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert key not in done.stdout
    assert steward(environment, "fetch", f"{site}/notes.txt").stdout.endswith("plain notes, as they are\n")
