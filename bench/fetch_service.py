"""The fetch service end to end: /v1/fetch in clean mode over the shared extraction corpus.

The 181 ScrapingHub pages (``../shared/data/extraction``) are served from loopback (127.0.0.2,
``Cache-Control: max-age=3600``) by a plain uvicorn process; Steward runs as another uvicorn
process with the websearch plugin, its guard allowing only that address. This process is the
client. Reported:

- p50 / p90 latency of ``/v1/fetch`` (clean) with a cold cache (the first request for each page:
  guarded fetch, html5lib extraction, cache write) and a warm one (the same URLs again);
- throughput with 8 concurrent clients, warm and fresh (``max_age: 0`` forces fetch + extraction);
- the median ratio of returned to raw tokens in clean mode (target ≤ 0.2, issue 6).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import gzip
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "extraction" / "scrapinghub"
SITE_ADDRESS = "127.0.0.2"
CLIENTS = 8
TARGET_RATIO = 0.2


def serve_corpus(port: int) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route

    pages = {path.name.removesuffix(".html.gz"): gzip.decompress(path.read_bytes()) for path in CORPUS.glob("html/*")}

    async def page(request):
        body = pages.get(request.path_params["key"])
        if body is None:
            return Response(status_code=404)
        return Response(body, media_type="text/html", headers={"Cache-Control": "max-age=3600"})

    app = Starlette(routes=[Route("/{key}", page)])
    uvicorn.run(app, host=SITE_ADDRESS, port=port, log_level="warning", access_log=False)


def serve_steward(port: int, site_port: int, data_dir: str, key_file: str) -> None:
    import steward_websearch
    import uvicorn

    import steward
    from steward.testing import make_host

    settings = {"allowed_networks": [f"{SITE_ADDRESS}/32"], "allowed_ports": [site_port]}
    settings["service"] = {"max_concurrent": 64, "max_per_host": 64, "requests_per_minute": 1_000_000}
    settings["max_per_host"] = CLIENTS
    host = make_host([steward_websearch], data_dir=Path(data_dir), config={"plugins": {"websearch": settings}})
    host.policy.set("web_search_enabled", True)
    Path(key_file).write_text(host.keys.add("bench", ["service"], ["web.fetch", "web.search"]))
    uvicorn.run(steward.create_app(host), host="127.0.0.1", port=port, log_level="warning", access_log=False)


def free_port(address: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((address, 0))
        return probe.getsockname()[1]


def wait_for(address: str, port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex((address, port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {address}:{port}")


def fetch_all(client: httpx.Client, urls: list[str], **options) -> tuple[list[float], list[dict]]:
    latencies, bodies = [], []
    for url in urls:
        started = time.perf_counter()
        response = client.post("/v1/fetch", json={"url": url, **options})
        latencies.append(time.perf_counter() - started)
        if response.status_code != 200:
            raise RuntimeError(f"{url}: {response.status_code} {response.text[:200]}")
        bodies.append(response.json())
    return latencies, bodies


def throughput(base: str, key: str, urls: list[str], **options) -> float:
    def worker(share: list[str]) -> int:
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60) as client:
            for url in share:
                if client.post("/v1/fetch", json={"url": url, **options}).status_code != 200:
                    raise RuntimeError(url)
        return len(share)

    shares = [urls[index::CLIENTS] for index in range(CLIENTS)]
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
        done = sum(pool.map(worker, shares))
    return done / (time.perf_counter() - started)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


@contextlib.contextmanager
def site_and_steward(script: str, site_flag: str) -> Iterator[tuple[str, str, str]]:
    """Run ``script``'s loopback site and its Steward as processes; yield (Steward's URL, the site's URL, a key).

    ``script`` serves the site when called with ``site_flag PORT`` and Steward with ``--steward
    PORT SITE_PORT DATA_DIR KEY_FILE`` (writing a service key to KEY_FILE).
    """
    site_port, steward_port = free_port(SITE_ADDRESS), free_port()
    with tempfile.TemporaryDirectory() as directory:
        key_file = os.path.join(directory, "key")
        servers = [
            subprocess.Popen([sys.executable, script, site_flag, str(site_port)]),
            subprocess.Popen(
                [sys.executable, script, "--steward", str(steward_port), str(site_port), directory, key_file]
            ),
        ]
        try:
            wait_for(SITE_ADDRESS, site_port)
            wait_for("127.0.0.1", steward_port)
            while not os.path.exists(key_file):
                time.sleep(0.05)
            yield f"http://127.0.0.1:{steward_port}", f"http://{SITE_ADDRESS}:{site_port}", Path(key_file).read_text()
        finally:
            for server in servers:
                server.terminate()
                server.wait()


def main() -> None:
    keys = sorted(json.loads((CORPUS / "ground-truth.json").read_text()))
    with site_and_steward(__file__, "--corpus") as (base, site, key):
        urls = [f"{site}/{name}" for name in keys]
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60) as client:
            cold, bodies = fetch_all(client, urls)
            warm, warm_bodies = fetch_all(client, urls)
        assert all(body["source"]["cached"] for body in warm_bodies), "the second pass was not served from the cache"
        warm_rate = throughput(base, key, urls * 3)
        fresh_rate = throughput(base, key, urls, max_age=0)
    ratios = [body["sizes"]["returned_tokens"] / max(1, body["sizes"]["raw_tokens"]) for body in bodies]
    ratio = statistics.median(ratios)
    verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
    milliseconds = {name: [value * 1000 for value in values] for name, values in (("cold", cold), ("warm", warm))}
    for name, values in milliseconds.items():
        print(
            f"fetch service /v1/fetch clean, {name} cache: p50 {percentile(values, 0.5):.1f} ms, "
            f"p90 {percentile(values, 0.9):.1f} ms ({len(values)} pages, one client)"
        )
    print(
        f"fetch service throughput, {CLIENTS} clients: warm {warm_rate:.0f} req/s, "
        f"fresh (max_age 0: fetch + extraction) {fresh_rate:.1f} req/s"
    )
    print(f"fetch service clean mode: median returned/raw tokens {ratio:.3f} ({verdict} the <= {TARGET_RATIO} target)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--corpus"]:
        serve_corpus(int(sys.argv[2]))
    elif sys.argv[1:2] == ["--steward"]:
        serve_steward(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        main()
