"""``steward mcp``'s line reader: one error for a line over the limit, and its tail never read as a message."""

from __future__ import annotations

import asyncio
import json

import pytest

from steward._mcp import stdio


def read_all(chunks: list[bytes]) -> tuple[list[dict], list[dict]]:
    async def run() -> tuple[list[dict], list[dict]]:
        reader = asyncio.StreamReader()
        for chunk in chunks:
            reader.feed_data(chunk)
        reader.feed_eof()
        written: list[dict] = []
        lines = stdio.Lines(reader, lambda data: written.append(json.loads(data)))
        return [message async for message in lines.messages()], written

    return asyncio.run(run())


@pytest.mark.parametrize("pieces", [1, 7], ids=["at-once", "in-pieces"])
def test_a_line_over_the_limit_is_one_error_and_the_next_line_is_read(monkeypatch, pieces):
    monkeypatch.setattr(stdio, "MAX_LINE_BYTES", 1000)
    before = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n'
    huge = b'{"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"pad": "' + b"x" * 5000 + b'"}}\n'
    after = b'{"jsonrpc": "2.0", "id": 3, "method": "ping"}\n'
    size = -(-len(huge) // pieces)
    chunks = [before, *(huge[i : i + size] for i in range(0, len(huge), size)), after]
    messages, errors = read_all(chunks)
    assert [message["id"] for message in messages] == [1, 3]
    assert len(errors) == 1, errors
    assert "message too long" in errors[0]["error"]["message"]


def test_the_last_line_needs_no_newline():
    messages, errors = read_all([b'{"jsonrpc": "2.0", "id": 9, "method": "ping"}'])
    assert ([message["id"] for message in messages], errors) == ([9], [])
