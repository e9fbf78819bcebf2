"""Hand-written MCP over HTTP for tests: a handshake-era session and a call on it, as a raw client makes them."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

HANDSHAKE = "2025-11-25"


def initialize_message(*, elicitation: bool = True) -> dict[str, Any]:
    capabilities = {"elicitation": {"form": {}}} if elicitation else {}
    return {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": HANDSHAKE,
            "capabilities": capabilities,
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }


def session_headers(initialized: httpx.Response) -> dict[str, str]:
    """The headers every request of the session ``initialized`` opened sends."""
    return {"Mcp-Session-Id": initialized.headers["mcp-session-id"], "MCP-Protocol-Version": HANDSHAKE}


async def open_session(client: httpx.AsyncClient, *, elicitation: bool = True) -> dict[str, str]:
    """``initialize`` on ``client`` (its headers carry the key); the headers of the session it opened."""
    return session_headers(await client.post("/mcp", json=initialize_message(elicitation=elicitation)))


async def call_answering(
    client: httpx.AsyncClient,
    session: dict[str, str],
    name: str,
    arguments: dict[str, Any],
    answer: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]],
    seen: list[bytes] | None = None,
) -> dict[str, Any]:
    """``tools/call`` on the session; each elicitation request on its event stream is answered with the
    JSON-RPC message ``await answer(request)`` returns (POSTed while the call waits). The call's result,
    and every line of the stream in ``seen`` when given."""
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    async with client.stream("POST", "/mcp", json=call, headers=session) as stream:
        assert stream.headers["content-type"] == "text/event-stream"
        async for line in stream.aiter_lines():
            if seen is not None:
                seen.append(line.encode())
            if not line.startswith("data:"):
                continue
            event = json.loads(line[5:])
            if event.get("method") == "elicitation/create":
                reply = await client.post("/mcp", json=await answer(event), headers=session)
                assert reply.status_code == 202
            elif event.get("id") == 1:
                return event["result"]
    raise AssertionError("the call's stream ended without its result")
