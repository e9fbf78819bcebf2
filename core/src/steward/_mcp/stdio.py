"""MCP over stdio for desktop clients: ``steward mcp`` (a bridge) and ``steward mcp --local``.

The bridge carries each newline-delimited message from stdin to the running server's ``/mcp`` as
its own POST and writes whatever comes back (a JSON answer, or each event of a stream) to
stdout, so the household's state, limits, policy and audit stay on the server and elicitation
works as it does over HTTP. ``--local`` answers in this process instead, for plugin development.
Nothing but protocol messages is ever written to stdout; logs go to stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any

import httpx
import msgspec

from steward._admission import Busy
from steward._auth import Principal
from steward._http_client import USER_AGENT
from steward._mcp.protocol import (
    HANDSHAKE_VERSIONS,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    META_CAPABILITIES,
    META_VERSION,
    PARSE_ERROR,
    STATELESS_VERSIONS,
    STEWARD_REFUSED,
    RpcError,
    elicitation_modes,
    negotiate_handshake,
    reply_result,
    request_meta,
    unsupported_version,
    valid_request_id,
)
from steward._mcp.server import Client, McpServer, PolicyWatch
from steward._state import StateUnavailable

if TYPE_CHECKING:
    from steward._host import Host

_encode = msgspec.json.Encoder().encode
log = logging.getLogger("steward.mcp")
MAX_LINE_BYTES = 16 * 1024 * 1024


class Lines:
    """Newline-delimited JSON-RPC messages on a reader and a writer; writes never interleave."""

    def __init__(self, reader: asyncio.StreamReader, write: Callable[[bytes], None]) -> None:
        self.reader, self._write = reader, write
        self._lock = asyncio.Lock()

    async def messages(self) -> AsyncIterator[dict[str, Any]]:
        """Every message until end of input; a line that is not a JSON object is answered with an error."""
        async for line in self._lines():
            if line is None:
                await self.write(
                    RpcError(INVALID_REQUEST, f"message too long (over {MAX_LINE_BYTES} bytes)").body(None)
                )
                continue
            if not line.strip():
                continue
            try:
                message = msgspec.json.decode(line)
            except (msgspec.DecodeError, RecursionError):
                await self.write(RpcError(PARSE_ERROR, "Parse error: a line is not JSON").body(None))
                continue
            if not isinstance(message, dict):
                await self.write(RpcError(INVALID_REQUEST, "Invalid Request: one JSON-RPC object per line").body(None))
                continue
            yield message

    async def _lines(self) -> AsyncIterator[bytes | None]:
        """Each line without its newline; ``None`` once for a line over ``MAX_LINE_BYTES``, whose
        every byte up to its newline is dropped, however late it arrives, so its tail is never
        read as a message of its own."""
        buffer, skipping = bytearray(), False
        while chunk := await self.reader.read(1024 * 1024):
            buffer += chunk
            while (end := buffer.find(b"\n")) >= 0:
                line = bytes(buffer[:end])
                del buffer[: end + 1]
                if skipping:
                    skipping = False
                elif len(line) > MAX_LINE_BYTES:
                    yield None
                else:
                    yield line
            if len(buffer) > MAX_LINE_BYTES:
                if not skipping:
                    yield None
                skipping = True
                buffer.clear()
        if buffer and not skipping:
            yield bytes(buffer)

    async def write(self, message: Mapping[str, Any]) -> None:
        async with self._lock:
            self._write(_encode(message) + b"\n")


async def standard_lines() -> Lines:
    """This process's stdin and stdout as :class:`Lines`."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    out = sys.stdout.buffer

    def write(data: bytes) -> None:
        out.write(data)
        out.flush()

    return Lines(reader, write)


class LocalSession:
    """One stdio connection answered by a host in this process (``steward mcp --local``)."""

    def __init__(self, host: Host, caller: Principal, lines: Lines, console: str) -> None:
        self.server = McpServer(host)
        self.caller, self.lines, self.console = caller, lines, console
        self.version: str | None = None
        self.elicitation: frozenset[str] = frozenset()
        self._waiting: dict[str, asyncio.Future[Any]] = {}

    async def run(self) -> None:
        tasks: set[asyncio.Task[None]] = {asyncio.create_task(self._announce_changes())}
        async for message in self.lines.messages():
            if "method" not in message:
                self._deliver(message)
            elif "id" in message and not valid_request_id(message["id"]):
                error = RpcError(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
                await self.lines.write(error.body(None))
            elif "id" in message:
                task = asyncio.create_task(self._answer(message))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _announce_changes(self) -> None:
        """``tools/list_changed`` when a policy flag changes, once the handshake is done."""
        async for _ in PolicyWatch(self.server.host.policy).changes():
            if self.version is not None:
                await self.lines.write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})

    async def _answer(self, message: dict[str, Any]) -> None:
        request_id, method, params = message["id"], message["method"], message.get("params") or {}
        try:
            if method == "initialize":
                self.version = negotiate_handshake(params.get("protocolVersion"))
                self.elicitation = elicitation_modes(params.get("capabilities"))
                result = self.server.initialize_result(self.version)
            else:
                result = await self.server.result(method, params, self._client(message))
            await self.lines.write({"jsonrpc": "2.0", "id": request_id, "result": result})
        except RpcError as error:
            await self.lines.write(error.body(request_id))
        except StateUnavailable as error:
            await self.lines.write(RpcError(STEWARD_REFUSED, f"STATE_UNAVAILABLE: {error}").body(request_id))
        except Busy as busy:
            await self.lines.write(RpcError(STEWARD_REFUSED, f"BUSY: {busy}", {"code": "BUSY"}).body(request_id))
        except Exception:
            log.exception("MCP %s failed", method)
            await self.lines.write(RpcError(INTERNAL_ERROR, "internal error; the log has details").body(request_id))

    def _client(self, message: Mapping[str, Any]) -> Client:
        meta = request_meta(message)
        if META_VERSION in meta:
            version = meta[META_VERSION]
            if version not in STATELESS_VERSIONS:
                raise unsupported_version(version)
            modes = elicitation_modes(meta.get(META_CAPABILITIES))
            return Client(self.caller, version, modes, stateless=True, console=self.console)
        if self.version is None:
            raise RpcError(INVALID_REQUEST, "send initialize first (or a 2026-07-28 request with _meta)")
        return Client(self.caller, self.version, self.elicitation, False, self.console, ask=self._ask)

    async def _ask(self, method: str, params: dict[str, Any], timeout: float) -> Any:
        request_id = "steward-" + secrets.token_urlsafe(12)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        try:
            await self.lines.write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return None
        finally:
            self._waiting.pop(request_id, None)

    def _deliver(self, message: Mapping[str, Any]) -> None:
        future = self._waiting.get(message.get("id"))  # type: ignore[arg-type]
        if future is not None and not future.done():
            future.set_result(reply_result(message))


class Bridge:
    """stdio ↔ a running server's ``/mcp``: one POST per message, one session per connection."""

    def __init__(self, url: str, key: str, lines: Lines, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.endpoint = url.rstrip("/") + "/mcp"
        self.lines = lines
        self.http = httpx.AsyncClient(
            headers={"Authorization": f"Bearer {key}", "User-Agent": USER_AGENT},
            timeout=httpx.Timeout(30, read=None),
            trust_env=False,
            transport=transport,
        )
        self.session_id: str | None = None
        self.version: str | None = None
        self._listening: asyncio.Task[None] | None = None

    async def run(self) -> None:
        tasks: set[asyncio.Task[None]] = set()
        try:
            async for message in self.lines.messages():
                if message.get("method") == "initialize":
                    await self._forward(message)
                    continue
                task = asyncio.create_task(self._forward(message))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            await self._close()

    async def _forward(self, message: dict[str, Any]) -> None:
        request_id = message.get("id") if "method" in message else None
        try:
            async with self.http.stream(
                "POST", self.endpoint, content=_encode(message), headers=self._headers(message)
            ) as response:
                if message.get("method") == "initialize" and response.status_code == 200:
                    self.session_id = response.headers.get("mcp-session-id")
                async for answer in _answers(response):
                    if message.get("method") == "initialize" and "result" in answer:
                        self.version = answer["result"].get("protocolVersion")
                        self._listening = asyncio.create_task(self._listen())
                    if answer.get("id") is None and "error" in answer and request_id is not None:
                        answer["id"] = request_id  # refused before the server read the message (401, 403)
                    await self.lines.write(answer)
        except httpx.HTTPError as error:
            if request_id is not None:
                problem = RpcError(INTERNAL_ERROR, f"cannot reach Steward at {self.endpoint} ({type(error).__name__})")
                await self.lines.write(problem.body(request_id))

    def _headers(self, message: Mapping[str, Any]) -> dict[str, str]:
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        meta = request_meta(message)
        version = meta.get(META_VERSION) or self.version
        if isinstance(version, str) and version in STATELESS_VERSIONS + HANDSHAKE_VERSIONS:
            headers["MCP-Protocol-Version"] = version
        if self.session_id and META_VERSION not in meta:
            headers["Mcp-Session-Id"] = self.session_id
        if META_VERSION in meta and isinstance(message.get("method"), str):
            headers["Mcp-Method"] = message["method"]
        return headers

    async def _listen(self) -> None:
        """The session's notification stream (a policy change → tools/list_changed), while it lasts."""
        if not self.session_id:
            return
        headers = {"Accept": "text/event-stream", "Mcp-Session-Id": self.session_id}
        with contextlib.suppress(httpx.HTTPError):
            async with self.http.stream("GET", self.endpoint, headers=headers) as response:
                if response.status_code == 200:
                    async for answer in _answers(response):
                        await self.lines.write(answer)

    async def _close(self) -> None:
        if self._listening is not None:
            self._listening.cancel()
            with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
                await self._listening
        if self.session_id:
            with contextlib.suppress(httpx.HTTPError):
                await self.http.delete(self.endpoint, headers={"Mcp-Session-Id": self.session_id})
        await self.http.aclose()


async def _answers(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    """The JSON-RPC messages in a response: its JSON body, or each ``data`` of its event stream."""
    if response.status_code == 202:
        return
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data: list[str] = []
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                data.append(line[5:].lstrip())
            elif not line and data:
                with contextlib.suppress(msgspec.DecodeError):
                    yield msgspec.json.decode("\n".join(data))
                data = []
        return
    body = await response.aread()
    with contextlib.suppress(msgspec.DecodeError):
        answer = msgspec.json.decode(body)
        if isinstance(answer, dict):
            yield answer
