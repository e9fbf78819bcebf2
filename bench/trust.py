"""What one hostile request costs everyone else (issue 11): the server must keep answering.

A loopback site (127.0.0.2) serves a small JSON document, a page of 100,000 nested divs (past
extraction's nesting budget) and a page of 240,000 elements (inside it, seconds of work); Steward
runs as another process with the websearch plugin. This process is the client. Reported:

- a runaway jq program (``last(range(1e10))``), the nested page and the heavy page, each with a
  request timeout of 2 s: when each is answered, and ``/healthz`` latency (p50 / max) from another
  client meanwhile;
- an anonymous ``/healthz`` flood (32 clients for 3 s): p50 of an unrelated authenticated request
  during the flood against without it, and how many dependency checks reached SearXNG.
"""

from __future__ import annotations

import concurrent.futures
import statistics
import sys
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from fetch_service import SITE_ADDRESS, site_and_steward

NESTED = "<html><body>" + "<div>" * 100_000 + "<p>deep</p>" + "</div>" * 100_000 + "</body></html>"
HEAVY = "<html><body>" + "<p><span>a</span> <span>b</span> <span>c</span></p>" * 60_000 + "</body></html>"
FLOOD_CLIENTS = 32


def serve_site(port: int) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse
    from starlette.routing import Route

    healthz_hits = []

    async def healthz(request):
        healthz_hits.append(1)
        return PlainTextResponse(str(len(healthz_hits)))

    app = Starlette(
        routes=[
            Route("/data.json", lambda request: JSONResponse({"kettles": [{"name": "quiet"}]})),
            Route("/nested", lambda request: HTMLResponse(NESTED)),
            Route("/heavy", lambda request: HTMLResponse(HEAVY)),
            Route("/healthz", healthz),
            Route("/hits", lambda request: PlainTextResponse(str(len(healthz_hits)))),
        ]
    )
    uvicorn.run(app, host=SITE_ADDRESS, port=port, log_level="warning", access_log=False)


def serve_steward(port: int, site_port: int, data_dir: str, key_file: str) -> None:
    import steward_websearch

    import steward
    from steward import _http_server as http_server
    from steward._config import ServerConfig
    from steward.testing import make_host

    settings = {
        "allowed_networks": [f"{SITE_ADDRESS}/32"],
        "allowed_ports": [site_port],
        "searxng_url": f"http://{SITE_ADDRESS}:{site_port}",
    }
    host = make_host([steward_websearch], data_dir=Path(data_dir), config={"plugins": {"websearch": settings}})
    host.policy.set("web_search_enabled", True)
    Path(key_file).write_text(host.keys.add("bench", ["service"], ["web.fetch", "web.search"]))
    http_server.run(steward.create_app(host), ServerConfig(port=port, log_level="warning"))


def while_running(base: str, key: str, request: dict) -> tuple[float, int, list[float]]:
    """Send ``request`` to /v1/fetch; poll /healthz until it is answered. (seconds, status, healthz latencies)."""
    healthz: list[float] = []
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        started = time.perf_counter()
        headers = {"Authorization": f"Bearer {key}"}
        pending = pool.submit(httpx.post, f"{base}/v1/fetch", json=request, headers=headers, timeout=120)
        with httpx.Client(base_url=base, timeout=30) as anonymous:
            while not pending.done():
                asked = time.perf_counter()
                anonymous.get("/healthz")
                healthz.append(time.perf_counter() - asked)
        response = pending.result()
        return time.perf_counter() - started, response.status_code, healthz


def unrelated_p50(base: str, key: str, seconds: float) -> float:
    latencies = []
    deadline = time.monotonic() + seconds
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=30) as client:
        while time.monotonic() < deadline:
            asked = time.perf_counter()
            client.get("/api/v1/capabilities")
            latencies.append(time.perf_counter() - asked)
    return statistics.median(latencies)


def flood(base: str, stop: threading.Event) -> int:
    count = 0
    with httpx.Client(base_url=base, timeout=30) as anonymous:
        while not stop.is_set():
            anonymous.get("/healthz")
            count += 1
    return count


def main() -> None:
    with site_and_steward(__file__, "--site") as (base, site, key):
        for name, request in (
            ("runaway jq last(range(1e10))", {"url": f"{site}/data.json", "jq": "last(range(1e10))", "timeout": 2}),
            ("100k nested divs", {"url": f"{site}/nested", "timeout": 2}),
            ("240k elements", {"url": f"{site}/heavy", "timeout": 2}),
        ):
            seconds, status, healthz = while_running(base, key, request)
            milliseconds = [value * 1000 for value in healthz]
            p50, worst = statistics.median(milliseconds), max(milliseconds)
            print(
                f"trust, {name} (timeout 2 s): answered {status} after {seconds:.2f} s; /healthz meanwhile "
                f"p50 {p50:.1f} ms, max {worst:.1f} ms ({len(healthz)} asked)"
            )
        quiet = unrelated_p50(base, key, 2)
        before = int(httpx.get(f"{site}/hits").text)
        stop = threading.Event()
        with concurrent.futures.ThreadPoolExecutor(FLOOD_CLIENTS) as pool:
            floods = [pool.submit(flood, base, stop) for _ in range(FLOOD_CLIENTS)]
            loaded = unrelated_p50(base, key, 3)
            stop.set()
            flooded = sum(future.result() for future in floods)
        reached = int(httpx.get(f"{site}/hits").text) - before
        print(
            f"trust, /healthz flood ({FLOOD_CLIENTS} clients, {flooded} requests in 3 s): unrelated request p50 "
            f"{loaded * 1000:.1f} ms (quiet {quiet * 1000:.1f} ms); SearXNG checks that reached upstream: {reached}"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--site"]:
        serve_site(int(sys.argv[2]))
    elif sys.argv[1:2] == ["--steward"]:
        serve_steward(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        main()
