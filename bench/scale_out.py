"""Scale-out on Redis (issue 15): real ``steward serve`` processes, one real redis-server, real clients.

Everything runs on loopback: a redis-server (``steward.testing.RedisServer``), a page site on
127.0.0.2 that counts the requests it answers (so "it ran once" is counted where the fetch lands,
not where Steward says it did), and Steward as ``steward serve`` processes configured through a
TOML file, as an operator runs them. Reported, in one run:

- 50 concurrent approvals of one token spread over the 4 workers of one server and a second
  server, 20 rounds: how many approvals won and how many fetches reached the site (must be 1, 1);
- a key revoked through host A, then used on host B: refused on the first request (20 rounds);
- throughput (``wrk``, 64 connections) of a local capability (``system.health`` over the invoke
  endpoint) and of ``/v1/fetch`` with a warm cache, at 1 and 2 workers on the redis backend, and
  at 1 worker on the memory backend for reference, with the cores Steward, Redis and wrk used:
  the three servers run side by side and are loaded in turn, five rounds, so drift on a shared
  machine hits all alike; the scaling figure is the median of each round's 2-worker / 1-worker
  ratio (aim >= 1.6x);
- a confirmation round trip (issue + approve + run a web.fetch), redis vs memory, interleaved in
  the same rounds; aim <= 1.5x;
- a worker killed with SIGKILL while 50 approvals are in flight, 10 rounds: double executions
  (must be 0); the cache case (a writer killed mid-write) is in tests/websearch/test_page_cache.py.

Needs ``wrk`` (Debian's package) for the throughput figures; without it they are skipped, said so.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import random
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from steward.testing import RedisServer, serve_app

STEWARD = Path(sys.executable).parent / "steward"
SITE = "127.0.0.2"
OUTPUT = Path(__file__).parent / "output" / "scale_out.json"
ROUNDS, APPROVALS = 20, 50
SECONDS = 4
CONNECTIONS = 64
ROUNDS_OF_LOAD = 5


class Site:
    """A loopback page server that counts what it serves, by path."""

    def __init__(self) -> None:
        self.hits: dict[str, int] = {}
        self.lock = threading.Lock()

    def app(self) -> Starlette:
        async def page(request: Request) -> Response:
            with self.lock:
                self.hits[request.url.path] = self.hits.get(request.url.path, 0) + 1
            body = f"<html><head><title>Page</title></head><body><article><h1>{request.url.path}</h1>"
            body += "<p>" + "A sentence about kettles and their care. " * 40 + "</p></article></body></html>"
            return Response(body, media_type="text/html", headers={"Cache-Control": "max-age=3600"})

        return Starlette(routes=[Route("/{path:path}", page)])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """One ``steward serve`` with its own data directory and configuration file."""

    def __init__(self, root: Path, name: str, backend: str, redis_url: str, site_port: int, workers: int) -> None:
        self.directory = root / name
        self.directory.mkdir()
        self.config = self.directory / "steward.toml"
        state = f'[state]\nbackend = "redis"\nurl = "{redis_url}"\nprefix = "bench:"\n' if backend == "redis" else ""
        self.config.write_text(
            state + "[server]\nmax_concurrent_invocations = 4096\n"
            f'[plugins.websearch]\nallowed_networks = ["{SITE}/32"]\nallowed_ports = [{site_port}]\nmax_per_host = 64\n'
            "[plugins.websearch.service]\nmax_concurrent = 4096\nmax_per_host = 4096\n"
            "requests_per_minute = 100000000\n"
        )
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        self.process: subprocess.Popen | None = None

    def environment(self) -> dict[str, str]:
        kept = {key: value for key, value in os.environ.items() if not key.startswith("STEWARD_")}
        return {**kept, "STEWARD_CONFIG": str(self.config), "STEWARD_DATA_DIR": str(self.directory / "data")}

    def command(self, *arguments: str) -> str:
        done = subprocess.run(
            [STEWARD, *arguments], env=self.environment(), capture_output=True, text=True, timeout=120
        )
        if done.returncode != 0:
            raise RuntimeError(f"steward {' '.join(arguments)}: {done.stderr}")
        return done.stdout.strip()

    def start(self) -> Server:
        command = [STEWARD, "serve", "--port", str(self.port), "--workers", str(self.workers)]
        self.process = subprocess.Popen(
            command, env=self.environment(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                answered = httpx.get(f"{self.base}/healthz", timeout=2).status_code in (200, 503)
                if answered and (self.workers == 1 or len(self.worker_pids()) == self.workers):
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.directory.name} did not start")

    def worker_pids(self) -> list[int]:
        assert self.process is not None
        listed = subprocess.run(
            ["ps", "-o", "pid=,args=", "--ppid", str(self.process.pid)], capture_output=True, text=True
        )
        return [int(line.split()[0]) for line in listed.stdout.splitlines() if "spawn_main" in line]

    def wait_for_workers(self) -> None:
        """Until uvicorn's supervisor has replaced a killed worker."""
        deadline = time.monotonic() + 30
        while len(self.worker_pids()) < self.workers and time.monotonic() < deadline:
            time.sleep(0.1)

    def prepare(self) -> dict[str, str]:
        """The policy switch on, and two keys: one that must confirm, one for the fetch service."""
        self.command("policy", "set", "web_search_enabled", "true")
        return {
            "invoke": self.command("keys", "add", "load", "--scope", "invoke"),
            "service": self.command("keys", "add", "fleet", "--scope", "service", "--preapprove", "web.fetch"),
        }

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()


def approve_concurrently(urls: list[str], token: str, key: str, kill: Server | None = None) -> int:
    """``APPROVALS`` approvals of ``token`` at once, spread over ``urls``; how many ran it (200 ok)."""
    start = threading.Barrier(APPROVALS + (1 if kill else 0))

    def approve(index: int) -> bool:
        start.wait()
        try:
            answered = httpx.post(
                f"{urls[index % len(urls)]}/api/v1/capabilities/web.fetch/invoke",
                json={"confirmation": {"token": token, "approve": True}},
                headers={"Authorization": f"Bearer {key}"},
                timeout=60,
            )
        except httpx.HTTPError:
            return False
        return answered.status_code == 200 and answered.json().get("status") == "ok"

    with concurrent.futures.ThreadPoolExecutor(APPROVALS + 1) as pool:
        futures = [pool.submit(approve, index) for index in range(APPROVALS)]
        if kill is not None:
            start.wait()
            time.sleep(random.uniform(0.0, 0.02))
            os.kill(random.choice(kill.worker_pids()), signal.SIGKILL)
        return sum(future.result() for future in futures)


def pending_token(base: str, key: str, url: str) -> str:
    pending = httpx.post(
        f"{base}/api/v1/capabilities/web.fetch/invoke",
        json={"arguments": {"url": url}},
        headers={"Authorization": f"Bearer {key}"},
        timeout=60,
    )
    return pending.json()["pending_confirmation"]["token"]


def approvals(site: Site, site_url: str, a: Server, b: Server, key: str, *, kill: bool = False) -> dict:
    rounds = ROUNDS // 2 if kill else ROUNDS
    won, fetched = [], []
    for number in range(rounds):
        path = f"/{'killed' if kill else 'approved'}/{number}"
        token = pending_token(b.base, key, f"{site_url}{path}")
        won.append(approve_concurrently([a.base, b.base], token, key, a if kill else None))
        if kill:
            time.sleep(1.0)
        fetched.append(site.hits.get(path, 0))
        if kill:
            a.wait_for_workers()
    return {"rounds": rounds, "approvals_per_round": APPROVALS, "won": won, "fetches": fetched}


def revocations(a: Server, b: Server) -> dict:
    refused_at_once = 0
    for number in range(ROUNDS):
        key = a.command("keys", "add", f"revoked-{number}", "--scope", "invoke")
        headers = {"Authorization": f"Bearer {key}"}
        before = httpx.post(
            f"{b.base}/api/v1/capabilities/system.health/invoke", json={"arguments": {}}, headers=headers
        )
        assert before.status_code == 200, before.text
        a.command("keys", "revoke", f"revoked-{number}")
        after = httpx.post(
            f"{b.base}/api/v1/capabilities/system.health/invoke", json={"arguments": {}}, headers=headers
        )
        refused_at_once += after.status_code == 401
    return {"rounds": ROUNDS, "refused_on_the_next_request": refused_at_once}


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far (those that are gone count nothing)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    listed = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout.split()
    return [pid, *(grandchild for child in listed for grandchild in descendants(int(child)))]


def wrk(url: str, body: str, key: str, processes: dict[str, int]) -> dict:
    """One run: requests/s, and the cores each party used meanwhile (Steward, Redis, wrk itself)."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(
            'wrk.method = "POST"\n'
            f"wrk.body = {json.dumps(body)}\n"
            'wrk.headers["Content-Type"] = "application/json"\n'
            f'wrk.headers["Authorization"] = "Bearer {key}"\n'
        )
    groups = {name: descendants(pid) for name, pid in processes.items()}
    before = {name: cpu_seconds(pids) for name, pids in groups.items()}
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = ["wrk", "-t1", f"-c{CONNECTIONS}", f"-d{SECONDS}s", "-s", script.name, url]
    ran = subprocess.run(command, capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    os.unlink(script.name)
    if "Non-2xx" in ran.stdout:
        raise RuntimeError(f"{url}: non-2xx answers\n{ran.stdout}")
    used = {name: round((cpu_seconds(pids) - before[name]) / elapsed, 2) for name, pids in groups.items()}
    used["wrk"] = round((after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime) / elapsed, 2)
    line = next(line for line in ran.stdout.splitlines() if line.startswith("Requests/sec:"))
    return {"requests_per_second": float(line.split()[1]), "cores": used}


def throughput(server: Server, site_url: str, keys: dict[str, str], redis_pid: int) -> dict[str, dict]:
    """One run of each endpoint on ``server``."""
    warm = json.dumps({"url": f"{site_url}/warm"})
    headers = {"Authorization": f"Bearer {keys['service']}"}
    httpx.post(f"{server.base}/v1/fetch", content=warm, headers=headers, timeout=60)
    assert server.process is not None
    processes = {"steward": server.process.pid, "redis": redis_pid}
    health = f"{server.base}/api/v1/capabilities/system.health/invoke"
    return {
        "system.health": wrk(health, '{"arguments": {}}', keys["invoke"], processes),
        "/v1/fetch warm": wrk(f"{server.base}/v1/fetch", warm, keys["service"], processes),
    }


def median_run(runs: list[dict]) -> dict:
    ordered = sorted(runs, key=lambda run: run["requests_per_second"])
    return ordered[len(ordered) // 2]


def round_trips(server: Server, site_url: str, key: str, count: int) -> float:
    timings = []
    with httpx.Client(base_url=server.base, headers={"Authorization": f"Bearer {key}"}, timeout=60) as client:
        for number in range(count):
            started = time.perf_counter()
            pending = client.post(
                "/api/v1/capabilities/web.fetch/invoke", json={"arguments": {"url": f"{site_url}/trip/{number}"}}
            ).json()
            token = pending["pending_confirmation"]["token"]
            ran = client.post(
                "/api/v1/capabilities/web.fetch/invoke", json={"confirmation": {"token": token, "approve": True}}
            )
            assert ran.json()["status"] == "ok", ran.text
            timings.append(time.perf_counter() - started)
    return statistics.median(timings) * 1000


def main() -> None:
    site = Site()
    results: dict = {}
    with RedisServer() as redis, tempfile.TemporaryDirectory() as root, serve_app(site.app(), host=SITE) as site_url:
        site_port = int(site_url.rsplit(":", 1)[1])
        servers: list[Server] = []

        def server(name: str, backend: str, workers: int) -> Server:
            made = Server(Path(root), name, backend, redis.url, site_port, workers)
            servers.append(made)
            return made

        try:
            a = server("a", "redis", 4)
            b = server("b", "redis", 1)
            confirmer = a.prepare()["invoke"]
            a.start(), b.start()
            results["approvals"] = approvals(site, site_url, a, b, confirmer)
            results["revocation"] = revocations(a, b)
            results["approvals_with_a_worker_killed"] = approvals(site, site_url, a, b, confirmer, kill=True)
            a.stop(), b.stop()

            if shutil.which("wrk") is None:
                results["throughput"] = "skipped: wrk is not installed (apt-get install wrk)"
            else:
                redis.flush()
                measured = {
                    "memory, 1 worker": server("memory-1", "memory", 1),
                    "redis, 1 worker": server("redis-1", "redis", 1),
                    "redis, 2 workers": server("redis-2", "redis", 2),
                }
                keys = {name: made.prepare() for name, made in measured.items() if name != "redis, 2 workers"}
                keys["redis, 2 workers"] = keys["redis, 1 worker"]
                for made in measured.values():
                    made.start()
                runs: dict[str, list[dict]] = {name: [] for name in measured}
                trips: dict[str, list[float]] = {"memory": [], "redis": []}
                for _ in range(ROUNDS_OF_LOAD):
                    for name, made in measured.items():
                        runs[name].append(throughput(made, site_url, keys[name], redis.pid))
                    for backend in trips:
                        name = f"{backend}, 1 worker"
                        trips[backend].append(round_trips(measured[name], site_url, keys[name]["invoke"], 20))
                results["throughput"] = {
                    name: {what: median_run([run[what] for run in taken]) for what in taken[0]}
                    for name, taken in runs.items()
                }
                results["scaling"] = {
                    what: statistics.median(
                        two[what]["requests_per_second"] / one[what]["requests_per_second"]
                        for one, two in zip(runs["redis, 1 worker"], runs["redis, 2 workers"], strict=True)
                    )
                    for what in runs["redis, 1 worker"][0]
                }
                results["round_trip_ms"] = {backend: statistics.median(values) for backend, values in trips.items()}
        finally:
            for made in servers:
                made.stop()
    report(results)


def report(results: dict) -> None:
    approved = results["approvals"]
    print(
        f"approvals: {approved['rounds']} rounds of {approved['approvals_per_round']} concurrent approvals "
        f"over 4 + 1 workers on two servers"
    )
    print(
        f"  approvals that ran it, per round: {sorted(set(approved['won']))}; fetches that reached the site: "
        f"{sorted(set(approved['fetches']))} (must be [1], [1])"
    )
    killed = results["approvals_with_a_worker_killed"]
    print(
        f"  with a worker killed mid-approval ({killed['rounds']} rounds): ran {killed['won']}, "
        f"fetches {killed['fetches']}; double executions: {sum(count > 1 for count in killed['fetches'])}"
    )
    revoked = results["revocation"]
    print(
        f"revocation: a key revoked through A refused by B on the next request in "
        f"{revoked['refused_on_the_next_request']} of {revoked['rounds']} rounds"
    )
    measured = results["throughput"]
    if isinstance(measured, str):
        print(f"throughput: {measured}")
    else:
        for name, runs in measured.items():
            for what, run in runs.items():
                cores = ", ".join(f"{party} {used:.2f}" for party, used in run["cores"].items())
                print(f"throughput, {name}, {what}: {run['requests_per_second']:,.0f} req/s (cores used: {cores})")
        for what, ratio in results["scaling"].items():
            print(f"  {what}: 2 workers / 1 worker = {ratio:.2f}x, median of the rounds' ratios (aim >= 1.6x)")
        trips = results["round_trip_ms"]
        print(
            f"confirmation round trip (issue + approve + run web.fetch), median: memory {trips['memory']:.1f} ms, "
            f"redis {trips['redis']:.1f} ms = {trips['redis'] / trips['memory']:.2f}x (aim <= 1.5x)"
        )
    OUTPUT.parent.mkdir(exist_ok=True)
    OUTPUT.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
