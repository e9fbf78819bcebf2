"""MCP over Streamable HTTP at ``/mcp``: bearer key with scope ``invoke``, ``Origin`` checked.

Stateless (2026-07-28) requests carry everything in ``_meta``, so any worker of any host answers
them. Handshake-era clients get a session at ``initialize``; the session (who, which revision,
which elicitation modes) lives in the shared store, so it too is good on every worker. When such a
call needs the person, its response becomes an event stream carrying the elicitation request,
and the client's answer, which arrives as a POST of its own, may reach another worker: it is
handed over in-process when it can be, through the shared store when it cannot.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import collections
import contextlib
import functools
import hashlib
import ipaddress
import logging
import secrets
import time
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import msgspec
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from steward._admission import Busy
from steward._auth import Principal
from steward._bodies import ApiError, receive_body
from steward._codes import Code
from steward._mcp.protocol import (
    HANDSHAKE_VERSIONS,
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    META_CAPABILITIES,
    META_SUBSCRIPTION,
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
from steward._surfaces.gate import CallerGate

if TYPE_CHECKING:
    from steward._config import Config
    from steward._host import Host

log = logging.getLogger("steward.mcp")

REPLY_SECONDS = 60
_encode = msgspec.json.Encoder().encode


class _Session(msgspec.Struct, frozen=True):
    caller: str
    version: str
    elicitation: list[str]
    touched_at: float = 0.0
    """When its idle lifetime last started again (wall clock, so every worker agrees roughly)."""


TOUCH_SHARE = 0.1
"""A session's idle lifetime starts again on a use only once this share of it has passed, so a busy
session costs the store one read per request, not a read and a write."""


class McpEndpoint:
    """The ``/mcp`` route: a bare ASGI app, because its answers are JSON-RPC, not Steward's error shape."""

    __name__ = "mcp"

    def __init__(self, host: Host, gate: CallerGate, *, policy_poll_seconds: float = 1.0) -> None:
        self.host = host
        self.gate = gate
        self.server = McpServer(host)
        self.store = self.server.store
        self.policy_watch = PolicyWatch(host.policy, policy_poll_seconds)
        self.streams: collections.Counter[str] = collections.Counter()
        """Notification streams open now, by the key's identity."""
        self._waiting: dict[str, asyncio.Future[Any]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            headers = _headers(scope)
            _check_origin(scope, headers, self.host.config)
            principal = await self._caller(scope, receive)
            if scope["method"] == "POST":
                await self._post(scope, receive, send, principal, headers)
            elif scope["method"] == "GET":
                await self._listen(receive, send, principal, headers)
            elif scope["method"] == "DELETE":
                await self._end_session(send, principal, headers)
            else:
                raise RpcError(INVALID_REQUEST, "Method not allowed: use POST", http_status=405)
        except RpcError as error:
            headers = [(b"allow", b"GET, POST, DELETE")] if error.http_status == 405 else []
            if error.http_status == 401:
                headers.append((b"www-authenticate", b"Bearer"))
            await _send_json(send, error.body(None), error.http_status, headers)

    async def _caller(self, scope: Scope, receive: Receive) -> Principal:
        try:
            return await self.gate.caller(Request(scope, receive), "invoke")
        except ApiError as error:
            raise _refused(error.code, error.message, error.status) from None

    async def _post(
        self, scope: Scope, receive: Receive, send: Send, principal: Principal, headers: Mapping[str, str]
    ) -> None:
        message = await _read_message(scope, receive, self.host.config.server.max_body_bytes)
        if "method" not in message:
            if "id" in message and ("result" in message or "error" in message):
                await self._deliver(message, headers, principal)
                return await _send_empty(send, 202)
            raise RpcError(
                INVALID_REQUEST, "Invalid Request: not a JSON-RPC request, notification or response", http_status=400
            )
        if "id" not in message:
            return await _send_empty(send, 202)
        request_id, method, params = message["id"], message["method"], message.get("params", {})
        if not valid_request_id(request_id):
            raise RpcError(INVALID_REQUEST, "Invalid Request: id must be a string or an integer", http_status=400)
        try:
            if not isinstance(method, str):
                raise RpcError(INVALID_REQUEST, "Invalid Request: method must be a string", http_status=400)
            if method == "initialize":
                return await self._initialize(send, request_id, params, principal)
            client, session = await self._client(method, message, headers, principal, scope)
            if method == "subscriptions/listen" and client.stateless:
                return await self._subscription(receive, send, request_id, params, principal)
            stream = _EventStream(send, receive)
            if session is not None and "form" in client.elicitation:
                client = replace(client, ask=functools.partial(self._ask, stream, session))
            body, status = await self._answer(request_id, method, params, client)
        except RpcError as error:
            return await _send_json(send, error.body(request_id), error.http_status)
        if stream.started:
            await stream.event(body)
            await stream.close()
        else:
            await _send_json(send, body, status)
        return None

    async def _answer(
        self, request_id: Any, method: str, params: Mapping[str, Any], client: Client
    ) -> tuple[dict[str, Any], int]:
        try:
            result = await self.server.result(method, params, client)
        except Busy as busy:
            return _refused(Code.BUSY, str(busy), 429).body(request_id), 429
        except StateUnavailable as error:
            return _refused(Code.STATE_UNAVAILABLE, str(error), 503).body(request_id), 503
        except RpcError as error:
            return error.body(request_id), error.http_status
        except Exception:
            fault = await self.host.state_fault()
            if fault is not None:
                return _refused(Code.STATE_UNAVAILABLE, str(fault), 503).body(request_id), 503
            log.exception("MCP %s failed", method)
            return RpcError(INTERNAL_ERROR, "internal error; the server log has details").body(request_id), 500
        return {"jsonrpc": "2.0", "id": request_id, "result": result}, 200

    async def _initialize(self, send: Send, request_id: Any, params: Mapping[str, Any], principal: Principal) -> None:
        version = negotiate_handshake(params.get("protocolVersion"))
        modes = sorted(elicitation_modes(params.get("capabilities")))
        session_id = secrets.token_urlsafe(24)
        record = _Session(principal.identity, version, modes, time.time())
        try:
            await self._keep_session(session_id, record)
        except StateUnavailable as error:
            raise _refused(Code.STATE_UNAVAILABLE, str(error), 503) from None
        body = {"jsonrpc": "2.0", "id": request_id, "result": self.server.initialize_result(version)}
        await _send_json(send, body, 200, [(b"mcp-session-id", session_id.encode())])

    async def _client(
        self, method: str, message: Mapping[str, Any], headers: Mapping[str, str], principal: Principal, scope: Scope
    ) -> tuple[Client, str | None]:
        """Who asks and how: from ``_meta`` (stateless) or from the session (handshake era)."""
        console = _console_url(scope, self.host.config.server.public_url)
        meta = request_meta(message)
        if META_VERSION in meta or headers.get("mcp-protocol-version") in STATELESS_VERSIONS:
            version = meta.get(META_VERSION)
            if version not in STATELESS_VERSIONS:
                raise unsupported_version(version)
            _check_mirrored_headers(headers, version, method, message)
            modes = elicitation_modes(meta.get(META_CAPABILITIES))
            return Client(principal, version, modes, stateless=True, console=console), None
        session_id = headers.get("mcp-session-id")
        if not session_id:
            raise RpcError(
                INVALID_REQUEST, "Bad Request: no Mcp-Session-Id header; send initialize first", http_status=400
            )
        session = await self._session(session_id, principal)
        declared = headers.get("mcp-protocol-version")
        if declared is not None and declared not in HANDSHAKE_VERSIONS:
            raise unsupported_version(declared)
        client = Client(principal, session.version, frozenset(session.elicitation), stateless=False, console=console)
        return client, _digest(session_id)

    async def _keep_session(self, session_id: str, record: _Session) -> None:
        """Remember a new session, ending the key's oldest past ``mcp.max_sessions_per_key``.

        A flood of ``initialize`` from one key then costs the store a bounded number of entries
        per key, never the space every other key needs.
        """
        settings = self.host.config.mcp
        index = _sessions_of_key(record.caller)
        raw = await self.store.get(index)
        held = msgspec.msgpack.decode(raw, type=list[str]) if raw is not None else []
        held.append(_digest(session_id))
        for ended in held[: -settings.max_sessions_per_key]:
            await self.store.delete("session:" + ended)
        held = held[-settings.max_sessions_per_key :]
        await self.store.set(index, msgspec.msgpack.encode(held), ttl_seconds=settings.session_idle_seconds)
        await self.store.set(
            _session_key(session_id), msgspec.msgpack.encode(record), ttl_seconds=settings.session_idle_seconds
        )

    async def _session(self, session_id: str, principal: Principal) -> _Session:
        """The session, if it is the caller's; its idle lifetime starts again as it is used."""
        key, idle_seconds = _session_key(session_id), self.host.config.mcp.session_idle_seconds
        try:
            raw = await self.store.get(key)
            session = msgspec.msgpack.decode(raw, type=_Session) if raw is not None else None
            now = time.time()
            if (
                session is not None
                and session.caller == principal.identity
                and not 0 <= now - session.touched_at < idle_seconds * TOUCH_SHARE
            ):
                touched = msgspec.structs.replace(session, touched_at=now)
                await self.store.set(key, msgspec.msgpack.encode(touched), ttl_seconds=idle_seconds)
        except StateUnavailable as error:
            raise _refused(Code.STATE_UNAVAILABLE, str(error), 503) from None
        if session is None or session.caller != principal.identity:
            raise RpcError(INVALID_REQUEST, "Session not found: initialize again", http_status=404)
        return session

    async def _end_session(self, send: Send, principal: Principal, headers: Mapping[str, str]) -> None:
        session_id = headers.get("mcp-session-id")
        if not session_id:
            raise RpcError(INVALID_REQUEST, "Bad Request: no Mcp-Session-Id header", http_status=400)
        await self._session(session_id, principal)
        await self.store.delete(_session_key(session_id))
        await _send_empty(send, 200)

    # the person's answer, asked within the request (handshake era)
    async def _ask(
        self, stream: _EventStream, session: str, method: str, params: dict[str, Any], timeout: float
    ) -> Any:
        request_id = "steward-" + secrets.token_urlsafe(12)
        key = f"{session}:{request_id}"
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[key] = future
        try:
            await stream.event({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
            return await self._reply(key, future, stream, timeout)
        finally:
            self._waiting.pop(key, None)

    async def _reply(self, key: str, future: asyncio.Future[Any], stream: _EventStream, timeout: float) -> Any:
        """The client's answer, or ``None`` once it went away or ``timeout`` passed."""
        deadline = time.monotonic() + timeout
        poll = 0.25 if self.host.shared is not None else timeout
        while not stream.gone.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            gone = asyncio.ensure_future(stream.gone.wait())
            try:
                await asyncio.wait({future, gone}, timeout=min(poll, remaining), return_when=asyncio.FIRST_COMPLETED)
            finally:
                gone.cancel()
            if future.done():
                return future.result()
            if self.host.shared is not None:
                with contextlib.suppress(StateUnavailable):
                    raw = await self.store.take("reply:" + key)
                    if raw is not None:
                        return msgspec.json.decode(raw)
        return None

    async def _deliver(self, message: Mapping[str, Any], headers: Mapping[str, str], principal: Principal) -> None:
        session_id = headers.get("mcp-session-id")
        if not session_id or not isinstance(message.get("id"), str):
            return
        await self._session(session_id, principal)
        key = f"{_digest(session_id)}:{message['id']}"
        reply = reply_result(message)
        future = self._waiting.get(key)
        if future is not None:
            if not future.done():
                future.set_result(reply)
        elif self.host.shared is not None:
            await self.store.set("reply:" + key, _encode(reply), ttl_seconds=REPLY_SECONDS)

    # change notifications
    async def _listen(self, receive: Receive, send: Send, principal: Principal, headers: Mapping[str, str]) -> None:
        """GET: the handshake era's stream of server notifications (tools/list_changed on a policy change)."""
        session_id = headers.get("mcp-session-id")
        if not session_id:
            raise RpcError(INVALID_REQUEST, "Method not allowed: GET needs a session", http_status=405)
        await self._session(session_id, principal)
        with self._stream_slot(principal):
            stream = _EventStream(send, receive)
            await stream.start()
            await self._notify_changes(stream, {}, announce=True)
            await stream.close()

    async def _subscription(
        self, receive: Receive, send: Send, request_id: Any, params: Mapping[str, Any], principal: Principal
    ) -> None:
        """``subscriptions/listen`` (stateless era): acknowledged, then tools/list_changed on a policy change."""
        wanted = params.get("notifications")
        tools = isinstance(wanted, Mapping) and wanted.get("toolsListChanged") is True
        granted = {"toolsListChanged": True} if tools else {}
        with self._stream_slot(principal):
            stream = _EventStream(send, receive)
            meta = {"_meta": {META_SUBSCRIPTION: request_id}}
            await stream.event(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/subscriptions/acknowledged",
                    "params": {**meta, "notifications": granted},
                }
            )
            await self._notify_changes(stream, meta, announce=tools)
            await stream.close()

    @contextlib.contextmanager
    def _stream_slot(self, principal: Principal) -> Iterator[None]:
        """One of the worker's notification streams, within ``mcp.max_streams`` and the key's share."""
        settings, identity = self.host.config.mcp, principal.identity
        if self.streams.total() >= settings.max_streams:
            raise _refused(
                "BUSY", f"{settings.max_streams} notification streams are open here, the most; retry later", 429
            )
        if self.streams[identity] >= settings.max_streams_per_key:
            raise _refused(
                "BUSY",
                f"this key holds {settings.max_streams_per_key} notification streams, the most; close one first",
                429,
            )
        self.streams[identity] += 1
        try:
            yield
        finally:
            self.streams[identity] -= 1
            if not self.streams[identity]:
                del self.streams[identity]

    async def _notify_changes(self, stream: _EventStream, params: dict[str, Any], *, announce: bool) -> None:
        """Announce policy changes until the client leaves or the stream has carried nothing for
        ``mcp.stream_idle_seconds`` (a client that still wants them reconnects)."""
        idle_seconds = self.host.config.mcp.stream_idle_seconds
        with self.policy_watch.listening():
            while not stream.gone.is_set():
                waits = {asyncio.ensure_future(stream.gone.wait())}
                if announce:
                    waits.add(asyncio.ensure_future(self.policy_watch.changed()))
                done, pending = await asyncio.wait(waits, timeout=idle_seconds, return_when=asyncio.FIRST_COMPLETED)
                for waiting in pending:
                    waiting.cancel()
                if not done:
                    return
                if not stream.gone.is_set():
                    await stream.event(
                        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": params}
                    )


class _EventStream:
    """A response that turns into a Server-Sent Events stream on its first event, and notices the client leave."""

    def __init__(self, send: Send, receive: Receive) -> None:
        self.send, self.receive = send, receive
        self.started = False
        self.gone = asyncio.Event()
        self._watch: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self.started:
            return
        self.started = True
        headers = [
            (b"content-type", b"text/event-stream"),
            (b"cache-control", b"no-cache"),
            (b"x-accel-buffering", b"no"),
        ]
        await self.send({"type": "http.response.start", "status": 200, "headers": headers})
        self._watch = asyncio.ensure_future(self._watch_disconnect())

    async def event(self, message: dict[str, Any]) -> None:
        await self.start()
        if not self.gone.is_set():
            chunk = b"event: message\ndata: " + _encode(message) + b"\n\n"
            try:
                await self.send({"type": "http.response.body", "body": chunk, "more_body": True})
            except OSError:
                self.gone.set()

    async def close(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
        with contextlib.suppress(OSError):
            await self.send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _watch_disconnect(self) -> None:
        while True:
            message = await self.receive()
            if message["type"] == "http.disconnect":
                self.gone.set()
                return


def _refused(code: str, message: str, status: int) -> RpcError:
    return RpcError(STEWARD_REFUSED, f"{code}: {message}", {"code": code}, http_status=status)


def _check_origin(scope: Scope, headers: Mapping[str, str], config: Config) -> None:
    """A browser page may reach ``/mcp`` only from Steward's own origin or one the operator allowed.

    Steward's own origins come from the address the connection reached and ``server.public_url``,
    never from the ``Host`` header: a page on ``http://rebind.evil:8092`` whose name was rebound
    to 127.0.0.1 sends ``Host: rebind.evil:8092`` too (DNS rebinding).
    """
    origin = headers.get("origin")
    if origin is None:
        return
    if origin not in _own_origins(scope, config.server.public_url) and origin not in config.mcp.allowed_origins:
        raise RpcError(STEWARD_REFUSED, f"Forbidden: Origin {origin} may not use this server", http_status=403)


def _own_origins(scope: Scope, public_url: str) -> set[str]:
    scheme = scope.get("scheme", "http")
    origins = {_origin_of(public_url)} if public_url else set()
    server = scope.get("server")
    if server and server[1] is not None:
        address, port = server[0], server[1]
        names = {address}
        with contextlib.suppress(ValueError):
            if ipaddress.ip_address(address).is_loopback:
                names |= {"localhost", "127.0.0.1", "::1"}
        for name in names:
            host = f"[{name}]" if ":" in name else name
            origins.add(f"{scheme}://{host}:{port}")
            if (scheme, port) in (("http", 80), ("https", 443)):
                origins.add(f"{scheme}://{host}")
    return origins


def _origin_of(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


def _check_mirrored_headers(headers: Mapping[str, str], version: str, method: str, message: Mapping[str, Any]) -> None:
    """The HTTP headers a stateless request mirrors from its body must say what the body says."""
    mirrored = [("mcp-protocol-version", version), ("mcp-method", method)]
    params = message.get("params")
    if method in ("tools/call", "resources/read", "prompts/get") and isinstance(params, Mapping):
        mirrored.append(("mcp-name", params.get("name", params.get("uri"))))
    for header, value in mirrored:
        sent = headers.get(header)
        if sent is not None and _header_value(sent) != value:
            raise RpcError(
                HEADER_MISMATCH, f"Header mismatch: {header} says {sent!r}, the body {value!r}", http_status=400
            )


def _header_value(sent: str) -> str:
    """A header as sent, with the ``=?base64?…?=`` form for non-ASCII values decoded."""
    if sent.startswith("=?base64?") and sent.endswith("?="):
        with contextlib.suppress(binascii.Error, UnicodeDecodeError):
            return base64.b64decode(sent[9:-2], validate=True).decode()
    return sent


async def _read_message(scope: Scope, receive: Receive, limit: int) -> dict[str, Any]:
    try:
        body = await receive_body(scope, receive, limit)
    except ApiError as error:
        raise RpcError(INVALID_REQUEST, error.message, http_status=error.status) from None
    try:
        message = msgspec.json.decode(body)
    except (msgspec.DecodeError, RecursionError):
        raise RpcError(PARSE_ERROR, "Parse error: the body is not JSON", http_status=400) from None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, "Invalid Request: one JSON-RPC 2.0 message per POST", http_status=400)
    if "params" in message and not isinstance(message["params"], dict):
        raise RpcError(INVALID_PARAMS, "Invalid params: params must be an object", http_status=400)
    return message


def _headers(scope: Scope) -> dict[str, str]:
    return {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}


def _console_url(scope: Scope, public_url: str) -> str:
    """The console's address for people and models: ``server.public_url``, else the address the
    connection reached; never the ``Host`` header, which the request's sender chooses."""
    if public_url:
        return public_url.rstrip("/") + "/console"
    address, port = scope.get("server") or ("127.0.0.1", 8092)
    host = f"[{address}]" if ":" in address else address
    return f"{scope.get('scheme', 'http')}://{host}:{port}/console"


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def _session_key(session_id: str) -> str:
    return "session:" + _digest(session_id)


def _sessions_of_key(identity: str) -> str:
    return "sessions-of:" + _digest(identity)


async def _send_json(send: Send, body: Any, status: int, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    content = _encode(body)
    start = [(b"content-type", b"application/json"), (b"content-length", str(len(content)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": start + (headers or [])})
    await send({"type": "http.response.body", "body": content})


async def _send_empty(send: Send, status: int) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})
