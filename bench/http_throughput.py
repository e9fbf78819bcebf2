"""HTTP throughput of the invoke endpoint, as a ratio to a bare Starlette endpoint on the same server.

One uvicorn process serves both: ``POST /api/v1/capabilities/bench.ping/invoke`` (auth, body
limit, the executor, audit, metrics) and ``POST /bench/bare``, which returns the very same JSON
bytes with no work at all. A load generator in this process (asyncio, raw HTTP/1.1 keep-alive
sockets, so the client is never the bottleneck) alternates between them: A B A B, several seconds
each, and the ratio of the medians is reported.

It runs twice: with uvicorn's pure-Python stack (h11 parser, asyncio loop) and with the fast
stack Steward installs (httptools, uvloop). The faster the framework's floor, the larger Steward's
own share of each request, so the second ratio is the harder one. Server CPU time per request is
read from /proc, so the figures do not depend on how fast the client is.

Targets: invoke / bare >= 0.6 on h11 (issue 2), >= 0.8 on httptools+uvloop (issue 39).
"""

import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
TARGETS = {"h11+asyncio": 0.6, "httptools+uvloop": 0.8}
CONNECTIONS, SECONDS, ROUNDS = 16, 4.0, 3


STACKS = {"h11+asyncio": ("h11", "asyncio"), "httptools+uvloop": ("httptools", "uvloop")}


def serve(port: int, data_dir: str, key_file: str, stack: str) -> None:
    sys.path.insert(0, str(HERE))
    import trivial_plugin
    import uvicorn

    import steward
    from steward._surfaces.outcomes import rest_body
    from steward.testing import make_host

    host = make_host([steward.Plugin("bench", trivial_plugin)], data_dir=Path(data_dir))
    app = steward.create_app(host)
    caller = steward.Principal("bench", frozenset({"invoke"}))
    outcome = asyncio.run(host.executor.invoke("bench.ping", b'{"text": "hello"}', caller=caller, surface="invoke"))
    app.state.bare_body = rest_body(outcome)[1]
    Path(key_file).write_text(host.keys.add("bench", ["invoke"]))
    http, loop = STACKS[stack]
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False, http=http, loop=loop)


async def load(port: int, request: bytes, seconds: float) -> float:
    """Requests per second over ``seconds`` with CONNECTIONS keep-alive connections."""
    done = 0
    deadline = time.perf_counter() + seconds

    async def connection() -> None:
        nonlocal done
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        while time.perf_counter() < deadline:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(head.decode())
            done += 1
        writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(connection() for _ in range(CONNECTIONS)))
    return done / (time.perf_counter() - started)


def post(path: str, body: bytes, key: str | None = None) -> bytes:
    auth = f"Authorization: Bearer {key}\r\n" if key else ""
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{auth}"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def server_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(port: int, pid: int, request: bytes) -> tuple[float, float]:
    """(requests per second, server CPU microseconds per request) over one phase."""
    cpu_before, started = server_cpu_seconds(pid), time.perf_counter()
    rate = asyncio.run(load(port, request, SECONDS))
    requests = rate * (time.perf_counter() - started)
    return rate, (server_cpu_seconds(pid) - cpu_before) / requests * 1e6


def run_stack(stack: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as directory:
        key_file = os.path.join(directory, "key")
        server = subprocess.Popen([sys.executable, __file__, "--serve", str(port), directory, key_file, stack])
        try:
            while not os.path.exists(key_file) or not _listening(port):
                time.sleep(0.05)
            key = Path(key_file).read_text()
            requests = {
                "invoke": post("/api/v1/capabilities/bench.ping/invoke", b'{"arguments": {"text": "hello"}}', key),
                "bare": post("/bench/bare", b'{"arguments": {"text": "hello"}}'),
            }
            for request in requests.values():
                asyncio.run(load(port, request, 1.0))
            figures: dict[str, list[tuple[float, float]]] = {"invoke": [], "bare": []}
            for _ in range(ROUNDS):
                for name, request in requests.items():
                    figures[name].append(measure(port, server.pid, request))
        finally:
            server.terminate()
            server.wait()
    rate = {name: statistics.median(rate for rate, _ in runs) for name, runs in figures.items()}
    cpu = {name: statistics.median(cpu for _, cpu in runs) for name, runs in figures.items()}
    ratio = rate["invoke"] / rate["bare"]
    target = TARGETS[stack]
    verdict = "meets" if ratio >= target else "MISSES"
    print(
        f"http throughput [{stack}]: invoke {rate['invoke']:.0f} req/s ({cpu['invoke']:.0f} us server CPU each), "
        f"bare {rate['bare']:.0f} req/s ({cpu['bare']:.0f} us), ratio {ratio:.2f} "
        f"({verdict} the {target} target; {CONNECTIONS} connections, {ROUNDS} x {SECONDS:g} s per endpoint)"
    )


def main() -> None:
    for stack in STACKS:
        run_stack(stack)


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5])
    else:
        main()
