"""Hand-written MCP over HTTP for tests: a handshake-era session, opened as a raw client opens one."""

from __future__ import annotations

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


async def open_session(client: httpx.AsyncClient, *, elicitation: bool = True) -> dict[str, str]:
    """``initialize`` on ``client`` (its headers carry the key); the headers every later request of the session sends."""
    opened = await client.post("/mcp", json=initialize_message(elicitation=elicitation))
    return {"Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": HANDSHAKE}
