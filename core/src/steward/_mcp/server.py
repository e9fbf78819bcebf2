"""The MCP methods, whatever the transport: every ``tools/call`` is one executor invocation.

A call that needs a person is asked about through the client's form elicitation and runs only on
an explicit yes. The confirmation token never leaves the server: in the handshake era the server
waits for the elicitation's answer within the same request; in the stateless era it answers
``input_required`` with a one-time *handle* as ``requestState``, and keeps the token in the shared
store sealed under that handle, so neither what the client holds nor what the store holds can
answer the confirmation alone. A client that cannot ask gets a tool error naming the pending
confirmation and the console where a person can answer it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from steward._admission import Busy
from steward._auth import Principal
from steward._capability import Surface
from steward._codes import Code
from steward._confirmation import confirmation_reference, token_digest
from steward._mcp.elicitation import approved, confirmation_required, form_elicitation
from steward._mcp.protocol import (
    INVALID_PARAMS,
    META_SERVER_INFO,
    METHOD_NOT_FOUND,
    SUPPORTED_VERSIONS,
    RpcError,
    names_elicitation_mode,
)
from steward._outcome import Outcome, PendingConfirmation, Stage, Status
from steward._registry import Registered
from steward._state import StateUnavailable
from steward._surfaces.outcomes import mcp_error, mcp_result
from steward._surfaces.views import mcp_tool
from steward._version import __version__

if TYPE_CHECKING:
    from steward._host import Host
    from steward._policy import Policy

Ask = Callable[[str, dict[str, Any], float], Awaitable[Any]]
"""Send the client a request of its own (handshake era) and wait up to the seconds given for its
result; ``None`` when no answer came (timeout, the client went away)."""

log = logging.getLogger("steward.mcp")
SERVER_INFO = {"name": "steward", "title": "Steward", "version": __version__}
INSTRUCTIONS = (
    "Steward runs the household's capabilities as tools. Tools that leave this device or change "
    "something wait for a person's yes, asked by this client or in the household console; a "
    "declined or unanswered call did not run, so do not retry it unasked."
)
CONFIRM_KEY = "confirm"
"""The key of the one input request Steward sends: a person's yes or no."""


@dataclass(frozen=True)
class Client:
    """Who is on the other end of one request, as its transport learnt it."""

    caller: Principal
    version: str
    elicitation: frozenset[str]
    """The elicitation modes the client declared (``form``, ``url``); empty: it cannot ask."""
    stateless: bool
    """The 2026-07-28 era: input is asked for with ``input_required`` and a retry."""
    console: str
    """Where a person answers pending confirmations in a browser."""
    ask: Ask | None = None


class _Kept(msgspec.Struct, frozen=True):
    """What a ``requestState`` handle stands for, in the shared store under the handle's digest."""

    sealed: bytes
    caller: str
    capability: str
    question: dict[str, Any]
    arguments: str = ""
    """The digest of the arguments the call was made with: a retry must carry the same."""


class McpServer:
    def __init__(self, host: Host) -> None:
        self.host = host
        self.store = host.core_state("mcp")
        self.keep_seconds = host.confirmations.lifetime_seconds
        self._definitions: dict[tuple[str, frozenset[str], str | None], dict[str, Any]] = {}

    def capabilities(self) -> dict[str, Any]:
        return {"tools": {"listChanged": True}}

    def initialize_result(self, version: str) -> dict[str, Any]:
        return {
            "protocolVersion": version,
            "capabilities": self.capabilities(),
            "serverInfo": SERVER_INFO,
            "instructions": INSTRUCTIONS,
        }

    async def result(self, method: str, params: Mapping[str, Any], client: Client) -> dict[str, Any]:
        """The result of one request (``initialize`` is the transport's); :class:`RpcError` otherwise."""
        if method == "tools/call":
            result = await self.call_tool(params, client)
        elif method == "tools/list":
            result = await self.list_tools(client)
        elif method == "server/discover":
            result = {
                "supportedVersions": list(SUPPORTED_VERSIONS),
                "capabilities": self.capabilities(),
                "instructions": INSTRUCTIONS,
                "ttlMs": 3_600_000,
                "cacheScope": "public",
            }
        elif method == "ping" and not client.stateless:
            result = {}
        else:
            raise RpcError(
                METHOD_NOT_FOUND, f"Method not found: {method}", http_status=404 if client.stateless else 200
            )
        if client.stateless:
            result.setdefault("resultType", "complete")
            result["_meta"] = {**result.get("_meta", {}), META_SERVER_INFO: SERVER_INFO}
        return result

    async def list_tools(self, client: Client) -> dict[str, Any]:
        """Every capability offered on the ``mcp`` surface, in name order; a policy-disabled one says so."""
        flags = await self.host.policy.current()
        tools = []
        for entry in self.host.registry.offered_on(Surface.MCP):
            flag = entry.capability.policy_key
            tools.append(self._definition(entry, disabled_by=flag if flag and flags.get(flag) is False else None))
        result: dict[str, Any] = {"tools": tools}
        if client.stateless:
            result |= {"ttlMs": 5_000, "cacheScope": "private"}
        return result

    def _definition(self, entry: Registered, disabled_by: str | None) -> dict[str, Any]:
        """``tools/list``'s item, built once per capability and switch state (the registry is fixed)."""
        key = (entry.capability.name, frozenset(entry.capability.surfaces), disabled_by)
        definition = self._definitions.get(key)
        if definition is None:
            definition = self._definitions[key] = mcp_tool(entry, disabled_by)
        return definition

    async def call_tool(self, params: Mapping[str, Any], client: Client) -> dict[str, Any]:
        name = params.get("name")
        arguments = params.get("arguments")
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "tools/call needs the tool's name")
        if arguments is not None and not isinstance(arguments, Mapping):
            raise RpcError(INVALID_PARAMS, "tools/call arguments must be an object")
        if client.stateless and params.get("requestState") is not None:
            return await self._resume(name, params, client)
        with self.host.admission.slot():
            outcome = await self.host.executor.invoke(name, arguments or {}, caller=client.caller, surface=Surface.MCP)
        if outcome.code == Code.CAPABILITY_NOT_FOUND:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {outcome.message}")
        pending = outcome.pending_confirmation
        if pending is None:
            return mcp_result(outcome)
        if "form" not in client.elicitation:
            return confirmation_required(
                pending, outcome, confirmation_reference(token_digest(pending.token)), client.console
            )
        question = form_elicitation(pending, outcome, with_mode=names_elicitation_mode(client.version))
        if client.stateless:
            return await self._ask_on_retry(pending, question, client, _arguments_digest(arguments))
        assert client.ask is not None
        reply = await client.ask("elicitation/create", question, self.keep_seconds)
        try:
            return await self._answer(pending.token, approved(reply), name, client)
        except Busy:
            await self.host.executor.discard(pending.token)
            raise

    async def _answer(self, token: str, approve: bool, name: str, client: Client) -> dict[str, Any]:
        with self.host.admission.slot():
            outcome = await self.host.executor.answer(
                token_digest(token), approve, caller=client.caller, surface=Surface.MCP, capability=name
            )
        return mcp_result(outcome)

    async def _ask_on_retry(
        self, pending: PendingConfirmation, question: dict[str, Any], client: Client, arguments: str
    ) -> dict[str, Any]:
        """Keep the token sealed under a new handle; when it cannot be kept, the token goes too, so no
        card is left in the console for a call whose client can never answer it."""
        handle = secrets.token_urlsafe(24)
        kept = _Kept(_seal(pending.token, handle), client.caller.identity, pending.capability, question, arguments)
        try:
            await self.store.set(_handle_key(handle), msgspec.msgpack.encode(kept), ttl_seconds=self.keep_seconds)
        except StateUnavailable:
            await self.host.executor.discard(pending.token)
            raise
        return _input_required(question, handle)

    async def _resume(self, name: str, params: Mapping[str, Any], client: Client) -> dict[str, Any]:
        """The retry of a call that asked for the person's answer: the handle is spent, the token answered."""
        handle = params.get("requestState")
        if not isinstance(handle, str):
            raise RpcError(INVALID_PARAMS, "requestState must be the string this server sent")
        key = _handle_key(handle)
        raw = await self.store.take(key)
        kept = msgspec.msgpack.decode(raw, type=_Kept) if raw is not None else None
        if kept is None or kept.caller != client.caller.identity or kept.capability != name:
            if kept is not None:
                await self.store.set(key, raw, ttl_seconds=self.keep_seconds, only_if_absent=True)
            return _invalid_retry(
                name,
                "this confirmation request is unknown, already answered or expired; nothing ran. "
                "Call the tool again to ask anew.",
            )
        if kept.arguments != _arguments_digest(params.get("arguments")):
            await self.store.set(key, raw, ttl_seconds=self.keep_seconds)
            return _invalid_retry(
                name,
                "this retry's arguments are not the ones the person was asked about; nothing ran. "
                "Retry with the same arguments, or call the tool again to ask anew.",
            )
        responses = params.get("inputResponses")
        reply = responses.get(CONFIRM_KEY) if isinstance(responses, Mapping) else None
        if reply is None:
            await self.store.set(key, raw, ttl_seconds=self.keep_seconds)
            return _input_required(kept.question, handle)
        try:
            return await self._answer(_seal(kept.sealed, handle), approved(reply), name, client)
        except Busy:
            await self.store.set(key, raw, ttl_seconds=self.keep_seconds)
            raise


class PolicyWatch:
    """One look at the household's flags per interval, for every stream that announces changes.

    Polled rather than pushed, because a flag may be switched on another host of a fleet (or
    with ``steward policy set`` beside a server). However many streams listen, the flags are read
    once per ``every_seconds`` by one task, which runs while anyone listens; a look that fails
    (the shared state unreachable, no file descriptor left) is skipped, not announced, and said
    in the log once until looks succeed again, never once per stream per second.
    """

    def __init__(self, policy: Policy, every_seconds: float = 1.0) -> None:
        self.policy = policy
        self.every_seconds = every_seconds
        self.listeners = 0
        self._changed: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    async def changes(self) -> AsyncIterator[None]:
        """Yields each time the flags differ from the last look: what ``tools/list_changed`` announces."""
        with self.listening():
            while True:
                await self.changed()
                yield

    @contextlib.contextmanager
    def listening(self) -> Iterator[None]:
        """Count one listener while the block runs; the watch runs while anyone listens."""
        self.listeners += 1
        if self._task is None or self._task.done():
            self._changed = asyncio.Event()
            self._task = asyncio.ensure_future(self._watch())
        try:
            yield
        finally:
            self.listeners -= 1
            if self.listeners == 0 and self._task is not None:
                self._task.cancel()
                self._task = None

    async def changed(self) -> None:
        """Return at the next change (inside :meth:`listening`)."""
        assert self._changed is not None
        await self._changed.wait()

    async def _watch(self) -> None:
        seen: dict[str, bool] | None = None
        failing = False
        while True:
            try:
                now = await self.policy.current()
            except Exception as error:  # noqa: BLE001 - a failed look is skipped; the watch goes on
                if not failing:
                    log.warning("tools/list_changed: the policy flags cannot be read (%s); retrying", error)
                failing, now = True, seen
            else:
                if failing:
                    log.info("tools/list_changed: the policy flags can be read again")
                failing = False
            if seen is not None and now != seen:
                assert self._changed is not None
                self._changed.set()
                self._changed = asyncio.Event()
            seen = now
            await asyncio.sleep(self.every_seconds)


def _invalid_retry(name: str, why: str) -> dict[str, Any]:
    """A retry that answers nothing: a tool error saying why, and nothing ran."""
    refused = Outcome(
        capability=name, version=None, stage=Stage.CONFIRM, status=Status.REJECTED, code=Code.INVALID_CONFIRMATION
    )
    return mcp_error(f"INVALID_CONFIRMATION: {why}", refused)


def _input_required(question: dict[str, Any], handle: str) -> dict[str, Any]:
    return {
        "resultType": "input_required",
        "inputRequests": {CONFIRM_KEY: {"method": "elicitation/create", "params": question}},
        "requestState": handle,
    }


def _arguments_digest(arguments: Any) -> str:
    """The same for the same arguments in any key order; what a retry is compared by."""
    try:
        encoded = msgspec.json.encode(arguments or {}, order="sorted")
    except (TypeError, msgspec.EncodeError):
        encoded = repr(arguments).encode()
    return hashlib.sha256(encoded).hexdigest()


def _handle_key(handle: str) -> str:
    return "ask:" + hashlib.sha256(handle.encode("utf-8", "surrogatepass")).hexdigest()


def _seal(value: str | bytes, handle: str) -> Any:
    """XOR with SHAKE-256 of the handle: seals the token (str → bytes) and unseals it (bytes → str).

    Each handle is random and used once, so the keystream is a one-time pad; the store keeps only
    the sealed bytes, the client only the handle.
    """
    data = value.encode() if isinstance(value, str) else value
    stream = hashlib.shake_256(handle.encode("utf-8", "surrogatepass")).digest(len(data))
    mixed = bytes(a ^ b for a, b in zip(data, stream, strict=True))
    return mixed if isinstance(value, str) else mixed.decode("utf-8", "replace")
