"""What one key can take from everyone else (issue 38): a bounded load on loopback, nothing more.

Steward runs as another process with the websearch plugin and its default settings; a loopback
site (127.0.0.2) serves a small JSON document. This process is the client, with two keys: the
attacker's and a bystander's. Reported, each with the server's resident memory and the lines it
logged:

- **streams**: the attacker opens ``STREAMS`` ``GET /mcp`` notification streams at once and holds
  them; how many the server accepted, and ``/healthz`` latency and the bystander's own stream
  meanwhile;
- **sessions**: the attacker sends ``SESSIONS`` ``initialize``; whether the bystander still gets a
  session, and how many of the attacker's first sessions still answer;
- **pool**: the attacker sends two ``/v1/fetch`` with a jq program that never ends and no timeout;
  how long each took to be answered, and how long the bystander's small jq fetch took meanwhile.

Every loop is bounded in count and time and stops by itself.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from fetch_service import SITE_ADDRESS, free_port, wait_for

STREAMS = 300
SESSIONS = 2_000
RUNAWAY = "0 | until(false; . + 1)"
ACCEPT = {"Accept": "application/json, text/event-stream"}


def serve_site(port: int) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    app = Starlette(routes=[Route("/data.json", lambda request: JSONResponse({"kettles": [{"name": "quiet"}]}))])
    uvicorn.run(app, host=SITE_ADDRESS, port=port, log_level="warning", access_log=False)


def serve_steward(port: int, site_port: int, data_dir: str, keys_file: str) -> None:
    import steward_websearch

    import steward
    from steward import _http_server as http_server
    from steward._config import ServerConfig
    from steward.testing import make_host

    settings = {"allowed_networks": [f"{SITE_ADDRESS}/32"], "allowed_ports": [site_port]}
    host = make_host([steward_websearch], data_dir=Path(data_dir), config={"plugins": {"websearch": settings}})
    host.policy.set("web_search_enabled", True)
    keys = [host.keys.add(name, ["invoke", "service"], ["web.fetch"]) for name in ("attacker", "bystander")]
    Path(keys_file).write_text("\n".join(keys))
    http_server.run(steward.create_app(host), ServerConfig(port=port, log_level="warning"))


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def initialize(client: httpx.Client, key: str) -> httpx.Response:
    return client.post(
        "/mcp",
        json={
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "b", "version": "1"},
            },
        },
        headers={"Authorization": f"Bearer {key}", **ACCEPT},
    )


def ping(client: httpx.Client, key: str, session: str) -> int:
    message = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"Authorization": f"Bearer {key}", "Mcp-Session-Id": session, **ACCEPT}
    return client.post("/mcp", json=message, headers=headers).status_code


async def hold_streams(base: str, key: str, session: str, bystander: str, other_session: str) -> dict[str, float]:
    limits = httpx.Limits(max_connections=STREAMS + 8, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as client:

        async def open_stream(with_key: str, with_session: str) -> httpx.Response:
            headers = {
                "Authorization": f"Bearer {with_key}",
                "Mcp-Session-Id": with_session,
                "Accept": "text/event-stream",
            }
            return await client.send(client.build_request("GET", "/mcp", headers=headers), stream=True)

        opened = await asyncio.gather(*(open_stream(key, session) for _ in range(STREAMS)), return_exceptions=True)
        held = [answer for answer in opened if isinstance(answer, httpx.Response) and answer.status_code == 200]
        latencies = []
        for _ in range(20):
            asked = time.perf_counter()
            await client.get("/healthz")
            latencies.append((time.perf_counter() - asked) * 1000)
        own = await open_stream(bystander, other_session)
        bystander_status = own.status_code
        for answer in [*opened, own]:
            if isinstance(answer, httpx.Response):
                await answer.aclose()
        return {
            "accepted": len(held),
            "healthz_p50_ms": statistics.median(latencies),
            "bystander_stream": bystander_status,
        }


def pool_starvation(base: str, site: str, attacker: str, bystander: str) -> dict[str, float]:
    def fetch(key: str, program: str) -> tuple[float, int]:
        started = time.perf_counter()
        answer = httpx.post(
            f"{base}/v1/fetch",
            json={"url": f"{site}/data.json", "jq": program},
            headers={"Authorization": f"Bearer {key}"},
            timeout=180,
        )
        return time.perf_counter() - started, answer.status_code

    quiet = statistics.median(fetch(bystander, ".kettles[0].name")[0] for _ in range(5))
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        runaways = [pool.submit(fetch, attacker, RUNAWAY) for _ in range(2)]
        time.sleep(1.0)
        during = [fetch(bystander, ".kettles[0].name") for _ in range(5)]
        ran = [future.result() for future in runaways]
    return {
        "runaway_s": max(seconds for seconds, _ in ran),
        "first_s": during[0][0],
        "bystander_s": statistics.median(seconds for seconds, _ in during),
        "quiet_s": quiet,
        "bystander_ok": sum(status == 200 for _, status in during),
    }


def main() -> None:
    site_port, port = free_port(SITE_ADDRESS), free_port()
    with tempfile.TemporaryDirectory() as directory:
        keys_file, log_file = os.path.join(directory, "keys"), os.path.join(directory, "steward.log")
        with open(log_file, "wb") as log:
            site = subprocess.Popen([sys.executable, __file__, "--site", str(site_port)])
            server = subprocess.Popen(
                [sys.executable, __file__, "--steward", str(port), str(site_port), directory, keys_file],
                stderr=log,
                stdout=log,
            )
        try:
            wait_for(SITE_ADDRESS, site_port)
            wait_for("127.0.0.1", port)
            while not os.path.exists(keys_file) or not Path(keys_file).read_text():
                time.sleep(0.05)
            attacker, bystander = Path(keys_file).read_text().split()
            base, site_url = f"http://127.0.0.1:{port}", f"http://{SITE_ADDRESS}:{site_port}"
            print(f"abuse, server at rest: {resident_mb(server.pid):.0f} MB resident")
            with httpx.Client(base_url=base, timeout=30) as client:
                session = initialize(client, attacker).headers["mcp-session-id"]
                other = initialize(client, bystander).headers["mcp-session-id"]
                streams = asyncio.run(hold_streams(base, attacker, session, bystander, other))
                lines = Path(log_file).read_bytes().count(b"\n")
                print(
                    f"abuse, streams: one key asked for {STREAMS} GET /mcp streams at once; accepted "
                    f"{streams['accepted']}; /healthz p50 meanwhile {streams['healthz_p50_ms']:.1f} ms; the "
                    f"bystander's own stream answered {streams['bystander_stream']}; server "
                    f"{resident_mb(server.pid):.0f} MB resident, {lines} log lines so far"
                )
                started = time.perf_counter()
                first = [initialize(client, attacker).headers.get("mcp-session-id", "") for _ in range(5)]
                for _ in range(SESSIONS - 5):
                    initialize(client, attacker)
                flood_seconds = time.perf_counter() - started
                still = sum(ping(client, attacker, each) == 200 for each in first)
                answered = initialize(client, bystander).status_code
                print(
                    f"abuse, sessions: one key sent {SESSIONS} initialize in {flood_seconds:.1f} s; its first 5 "
                    f"sessions still answering: {still}; the bystander's initialize answered {answered}; server "
                    f"{resident_mb(server.pid):.0f} MB resident"
                )
            pool = pool_starvation(base, site_url, attacker, bystander)
            lines = Path(log_file).read_bytes().count(b"\n")
            print(
                f"abuse, pool: two endless jq programs from one key (no timeout) answered after "
                f"{pool['runaway_s']:.1f} s; meanwhile the bystander's small jq fetches answered 200 "
                f"{pool['bystander_ok']:.0f}/5, "
                f"median {pool['bystander_s']:.2f} s, the first {pool['first_s']:.2f} s ({pool['quiet_s']:.2f} s with "
                f"nobody else); {lines} log lines in all"
            )
        finally:
            for process in (server, site):
                process.terminate()
                process.wait()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--site"]:
        serve_site(int(sys.argv[2]))
    elif sys.argv[1:2] == ["--steward"]:
        serve_steward(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        main()
