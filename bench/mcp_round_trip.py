"""Round trip of one local tool call over ``/mcp`` against the same call over the invoke endpoint.

One uvicorn process (httptools + uvloop, as Steward installs) serves a host with the trivial
``bench.ping`` capability. A client in this process sends one request at a time on one keep-alive
connection and times each answer: ``POST /api/v1/capabilities/bench.ping/invoke``, then
``tools/call`` over ``/mcp`` in the stateless 2026-07-28 era and in a 2025-11-25 session, in
alternating rounds; the medians' ratios are reported. For scale, the official MCP SDK's own
server (``MCPServer``, stateless, JSON answers) is timed on the same kind of call.

Target (issue 16): /mcp / invoke <= 1.3.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
TARGET_RATIO = 1.3
CALLS, ROUNDS = 1500, 5
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def serve_steward(port: int, data_dir: str, key_file: str) -> None:
    sys.path.insert(0, str(HERE))
    import trivial_plugin
    import uvicorn

    import steward
    from steward.testing import make_host

    host = make_host([steward.Plugin("bench", trivial_plugin)], data_dir=Path(data_dir))
    Path(key_file).write_text(host.keys.add("bench", ["invoke"]))
    app = steward.create_app(host)
    uvicorn.run(
        app, host="127.0.0.1", port=port, log_level="warning", access_log=False, http="httptools", loop="uvloop"
    )


def serve_sdk(port: int) -> None:
    import uvicorn
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench")

    @server.tool()
    def ping(text: str) -> dict[str, str]:
        """Echo a short text."""
        return {"text": text}

    app = server.streamable_http_app(stateless_http=True, json_response=True)
    uvicorn.run(
        app, host="127.0.0.1", port=port, log_level="warning", access_log=False, http="httptools", loop="uvloop"
    )


def request(port: int, path: str, body: dict, headers: dict[str, str]) -> bytes:
    payload = json.dumps(body).encode()
    lines = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Content-Type: application/json"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    lines.append(f"Content-Length: {len(payload)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + payload


async def exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: bytes) -> tuple[bytes, bytes]:
    writer.write(raw)
    head = await reader.readuntil(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
    return head, await reader.readexactly(length)


async def timed(port: int, raw: bytes, calls: int) -> float:
    """Median seconds per round trip of ``calls`` sequential requests on one connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    durations = []
    for _ in range(calls):
        started = time.perf_counter()
        head, body = await exchange(reader, writer, raw)
        durations.append(time.perf_counter() - started)
        if not head.startswith(b"HTTP/1.1 200") or b'"isError":true' in body.replace(b" ", b""):
            raise RuntimeError(f"{head.decode()} {body[:300]!r}")
    writer.close()
    return statistics.median(durations)


async def open_session(port: int, auth: dict[str, str]) -> str:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    }
    head, _ = await exchange(reader, writer, request(port, "/mcp", initialize, auth))
    writer.close()
    for line in head.decode().split("\r\n"):
        name, _, value = line.partition(":")
        if name.lower() == "mcp-session-id":
            return value.strip()
    raise RuntimeError(f"initialize gave no session: {head!r}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"server on {port} did not start")


def start(*arguments: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, __file__, *arguments])


def main() -> int:
    steward_port, sdk_port = free_port(), free_port()
    with tempfile.TemporaryDirectory() as scratch:
        key_file = os.path.join(scratch, "key")
        servers = [start("steward", str(steward_port), scratch, key_file), start("sdk", str(sdk_port))]
        try:
            wait_for(steward_port)
            wait_for(sdk_port)
            auth = {"Authorization": f"Bearer {Path(key_file).read_text()}"}
            figures = asyncio.run(measure(steward_port, sdk_port, auth))
        finally:
            for server in servers:
                server.terminate()
                server.wait(timeout=10)
    invoke = statistics.median(figures["invoke"])
    print(f"MCP round trip, {CALLS} sequential calls x {ROUNDS} rounds on one connection (median per call)")
    for name, label in (
        ("invoke", "invoke endpoint"),
        ("stateless", "/mcp, 2026-07-28 (stateless)"),
        ("session", "/mcp, 2025-11-25 session"),
        ("sdk", "official SDK server (MCPServer, stateless JSON)"),
    ):
        value = statistics.median(figures[name])
        print(f"  {label:50s} {value * 1000:7.3f} ms  {value / invoke:5.2f}x invoke")
    worst = max(statistics.median(figures["stateless"]), statistics.median(figures["session"])) / invoke
    verdict = "meets" if worst <= TARGET_RATIO else "MISSES"
    print(f"  worst /mcp ratio {worst:.2f}x: {verdict} the target of <= {TARGET_RATIO}x")
    return 0


async def measure(steward_port: int, sdk_port: int, auth: dict[str, str]) -> dict[str, list[float]]:
    session = await open_session(steward_port, auth)
    arguments = {"text": "hello"}
    stateless_call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "bench.ping", "arguments": arguments, "_meta": META},
    }
    session_call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "bench.ping", "arguments": arguments},
    }
    mirrored = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "bench.ping"}
    accept = {"Accept": "application/json, text/event-stream"}
    requests = {
        "invoke": (
            steward_port,
            request(steward_port, "/api/v1/capabilities/bench.ping/invoke", {"arguments": arguments}, auth),
        ),
        "stateless": (steward_port, request(steward_port, "/mcp", stateless_call, {**auth, **accept, **mirrored})),
        "session": (
            steward_port,
            request(
                steward_port,
                "/mcp",
                session_call,
                {**auth, **accept, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"},
            ),
        ),
        "sdk": (
            sdk_port,
            request(
                sdk_port,
                "/mcp",
                {**stateless_call, "params": {**stateless_call["params"], "name": "ping"}},
                {**accept, **mirrored, "Mcp-Name": "ping"},
            ),
        ),
    }
    for port, raw in requests.values():
        await timed(port, raw, 200)
    figures: dict[str, list[float]] = {name: [] for name in requests}
    for _ in range(ROUNDS):
        for name, (port, raw) in requests.items():
            figures[name].append(await timed(port, raw, CALLS))
    return figures


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "steward":
        serve_steward(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif len(sys.argv) > 1 and sys.argv[1] == "sdk":
        serve_sdk(int(sys.argv[2]))
    else:
        sys.exit(main())
