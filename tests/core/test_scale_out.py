"""Real ``steward serve`` processes sharing one real Redis: workers and hosts, as an operator runs them."""

import concurrent.futures
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route
from test_serve import free_port

from steward._auth import KeyStore
from steward.testing import serve_app

STEWARD = Path(sys.executable).parent / "steward"


def serve(
    tmp_path: Path, name: str, redis_url: str, *arguments: str, extra: str = "", plugins: str = "system"
) -> tuple[subprocess.Popen, str]:
    config = tmp_path / f"{name}.toml"
    config.write_text(f'[state]\nbackend = "redis"\nurl = "{redis_url}"\nprefix = "scale:"\n{extra}')
    port = free_port()
    kept = {key: value for key, value in os.environ.items() if not key.startswith("STEWARD_")}
    environment = {**kept, "STEWARD_PLUGINS": plugins, "STEWARD_CONFIG": str(config)}
    server = subprocess.Popen(
        [STEWARD, "--data-dir", str(tmp_path / name), "serve", "--port", str(port), *arguments],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return server, base
        except httpx.HTTPError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            pytest.fail(f"{name} did not start:\n{server.communicate()[0]}")
        time.sleep(0.1)


def stop(server: subprocess.Popen) -> str:
    server.terminate()
    return server.communicate(timeout=30)[0]


def steward_command(tmp_path: Path, *arguments: str) -> str:
    """A command line run on a third machine, as it were: its own data directory, a's configuration."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("STEWARD_")}
    environment["STEWARD_CONFIG"] = str(tmp_path / "a.toml")
    done = subprocess.run(
        [STEWARD, "--data-dir", str(tmp_path / "cli"), *arguments],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_two_servers_and_two_workers_share_keys_and_one_redis(redis_url, tmp_path):
    kept = KeyStore.in_file(tmp_path / "a" / "keys.toml").add("from-memory-days", ["invoke"])
    a, a_url = serve(tmp_path, "a", redis_url, "--workers", "2")
    try:
        b, b_url = serve(tmp_path, "b", redis_url)
        try:
            key = steward_command(tmp_path, "keys", "add", "fleet", "--scope", "invoke")
            headers = {"Authorization": f"Bearer {key}"}

            def health(index: int) -> int:
                url = (a_url, b_url)[index % 2]
                invoked = httpx.post(
                    f"{url}/api/v1/capabilities/system.health/invoke",
                    json={"arguments": {}},
                    headers=headers,
                    timeout=30,
                )
                return invoked.status_code

            with concurrent.futures.ThreadPoolExecutor(8) as pool:
                assert set(pool.map(health, range(120))) == {200}
            moved = httpx.post(
                f"{b_url}/api/v1/capabilities/system.health/invoke",
                json={"arguments": {}},
                headers={"Authorization": f"Bearer {kept}"},
            )
            assert moved.status_code == 200, "a's keys.toml moved into Redis at its first start"

            steward_command(tmp_path, "keys", "revoke", "fleet")
            for url in (a_url, b_url):
                refused = httpx.post(
                    f"{url}/api/v1/capabilities/system.health/invoke", json={"arguments": {}}, headers=headers
                )
                assert refused.status_code == 401
        finally:
            stop(b)
    finally:
        stop(a)
    records = [
        json.loads(line)
        for name in "ab"
        for line in (tmp_path / name / "capabilities" / "audit.jsonl").read_text().splitlines()
    ]
    served_by = {(record["host"], record["worker"]) for record in records if record["capability"] == "system.health"}
    assert len(served_by) == 3, "a's two workers and b's one each served some of the 120 requests"


def test_a_turn_paused_on_one_server_is_approved_on_the_other_and_runs_once(redis_url, tmp_path):
    hits = []

    async def page(request):
        hits.append(request.url.path)
        return HTMLResponse(
            "<html><body><article><p>Kettles are descaled with citric acid.</p></article></body></html>"
        )

    model_port = free_port()
    model = subprocess.Popen([STEWARD, "dev-model", "--port", str(model_port)], stderr=subprocess.DEVNULL)
    try:
        with serve_app(Starlette(routes=[Route("/{path:path}", page)]), host="127.0.0.2") as site:
            extra = (
                f'[model]\nbase_url = "http://127.0.0.1:{model_port}/v1"\n'
                f'[plugins.websearch]\nallowed_networks = ["127.0.0.2/32"]\nallowed_ports = [{site.rsplit(":", 1)[1]}]\n'
            )
            servers = [serve(tmp_path, name, redis_url, extra=extra, plugins="system,websearch") for name in "ab"]
            try:
                (_, a_url), (_, b_url) = servers
                steward_command(tmp_path, "policy", "set", "web_search_enabled", "true")
                key = steward_command(tmp_path, "keys", "add", "household", "--scope", "conversation")
                headers = {"Authorization": f"Bearer {key}"}
                message = {"messages": [{"role": "user", "content": f"fetch {site}/kettles"}]}
                paused = httpx.post(f"{a_url}/api/v1/conversation/message", json=message, headers=headers, timeout=60)
                pending = paused.json()["pending_confirmation"]
                assert (pending["capability"], pending["arguments"]["url"]) == ("web.fetch", f"{site}/kettles")
                assert hits == []
                answer = {"confirmation": {"token": pending["token"], "approve": True}}
                resumed = httpx.post(f"{b_url}/api/v1/conversation/message", json=answer, headers=headers, timeout=60)
                assert resumed.status_code == 200, resumed.text
                assert [item["status"] for item in resumed.json()["invocations"]] == ["ok"]
                again = httpx.post(f"{a_url}/api/v1/conversation/message", json=answer, headers=headers, timeout=60)
                assert again.json()["error"]["code"] == "INVALID_CONFIRMATION"
                assert hits == ["/kettles"]
            finally:
                for server, _ in servers:
                    stop(server)
    finally:
        model.terminate()
        model.wait(30)
