"""Drives Steward's /mcp with the last 1.x release of the official MCP SDK (run from .venv-mcp1).

``python mcp1_client.py URL KEY ANSWER``: lists the tools, calls ``sample.echo``, then
``sample.room`` with the person answering ANSWER (``yes``, ``no`` or ``none`` for a client that
declares no elicitation), and prints what it saw as one JSON object.
"""

import asyncio
import json
import sys

import httpx
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client


async def main(url: str, key: str, answer: str) -> dict:
    asked: list[str] = []

    async def person(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        if answer == "yes":
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="decline")

    callback = None if answer == "none" else person
    async with (
        httpx.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30) as http,
        streamable_http_client(url + "/mcp", http_client=http) as (read, write, _),
        ClientSession(read, write, elicitation_callback=callback) as session,
    ):
        initialized = await session.initialize()
        tools = (await session.list_tools()).tools
        echo = await session.call_tool("sample.echo", {"text": "hi"})
        room = await session.call_tool("sample.room", {"text": "hall"})
    return {
        "protocol": initialized.protocolVersion,
        "annotations": {tool.name: tool.annotations.model_dump(exclude_none=True) for tool in tools},
        "echo": echo.structuredContent,
        "room": {"isError": room.isError, "text": room.content[0].text, "structured": room.structuredContent},
        "asked": asked,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(*sys.argv[1:4]))))
