"""What a capability is: its declaration, bounds and classification.

A plugin declares each capability once, as a frozen :class:`Capability`. Everything the host
decides about it (confirmation, the tool schema models see, the bounds the executor enforces) is
derived from this declaration, so a plugin cannot forget a rule by omission: confirmation in
particular is never declared, only derived from ``side_effect`` and ``network``.
"""

from __future__ import annotations

import contextlib
import contextvars
import enum
import functools
import inspect
import re
import string
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

NAME_PATTERN = re.compile(r"^[a-z0-9_]+\.[a-z0-9_]+$")
POLICY_KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")


class InvalidCapability(ValueError):
    """A declaration that breaks the rules of SPEC §2; the message names the rule."""


_COLLECTING: contextvars.ContextVar[bool] = contextvars.ContextVar("steward_collecting_capabilities", default=False)


@contextlib.contextmanager
def collecting_declarations() -> Iterator[None]:
    """While the host collects a plugin's declarations, a bad one does not raise: it carries its
    ``problems``, so the host reports it alone and registers its valid siblings. Anywhere else
    (a plugin's own tests) a bad declaration raises :class:`InvalidCapability` at once."""
    token = _COLLECTING.set(True)
    try:
        yield
    finally:
        _COLLECTING.reset(token)


class SideEffect(enum.StrEnum):
    """Whether a capability changes anything (``mutating`` always asks a person first)."""

    READ_ONLY = "read_only"
    MUTATING = "mutating"


class Network(enum.StrEnum):
    """Whether a capability leaves the device (``external``, the household LAN included, asks first)."""

    LOCAL = "local"
    EXTERNAL = "external"


class Surface(enum.StrEnum):
    """Where a request comes from; pre-approval applies only on ``invoke``, ``service`` and ``mcp``.

    ``console`` is where a household answers confirmations asked on any other surface; it offers
    no capability (a capability's ``surfaces`` never hold it), and an answer given there runs the
    call, and audits it, on the surface that asked.
    """

    CONVERSATION = "conversation"
    INVOKE = "invoke"
    SERVICE = "service"
    CLI = "cli"
    MCP = "mcp"
    CONSOLE = "console"


EVERY_SURFACE = frozenset(Surface) - {Surface.CONSOLE}
"""Every surface a capability can be offered on."""

Confirmation = Literal["automatic", "required", "preapproved"]


class Classification(msgspec.Struct, frozen=True):
    """How a capability touches the world, as clients and the audit log see it."""

    side_effect: SideEffect
    """``read_only`` or ``mutating``, as declared."""
    network: Network
    """``local`` or ``external`` (which includes the household LAN), as declared."""
    confirmation: Confirmation
    """Derived, never declared: ``automatic``, ``required``, or ``preapproved`` when a key skipped it."""


@dataclass(frozen=True)
class Bounds:
    """Hard limits the executor enforces on every invocation of a capability."""

    timeout_seconds: float = 10
    """Wall-clock limit for one invocation; past it the caller gets ``TIMEOUT`` (and an isolated job is killed)."""
    max_result_bytes: int = 65536
    """Largest encoded result; a bigger one is ``RESULT_TOO_LARGE``, never truncated silently."""
    max_invocations_per_turn: int = 1
    """How often a model may call it in one conversation turn before ``INVOCATION_LIMIT_EXCEEDED``."""

    def __post_init__(self) -> None:
        for name in ("timeout_seconds", "max_result_bytes", "max_invocations_per_turn"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise InvalidCapability(f"bounds.{name} must be a positive number, not {value!r}")
        for name in ("max_result_bytes", "max_invocations_per_turn"):
            if not isinstance(getattr(self, name), int):
                raise InvalidCapability(f"bounds.{name} must be an integer")


class Citation(msgspec.Struct, frozen=True):
    """A source a result came from, shown to people apart from the model's prose."""

    title: str
    """What a person sees for the source."""
    url: str
    """Where the source is."""


Handler = Callable[[Any, Any], Awaitable[Any]] | Callable[[Any, Any], Any]
PolicyCheck = Callable[[Any, Any], Any]
CitationsOf = Callable[[Any], Iterable[Citation]]


@dataclass(frozen=True)
class Capability:
    """One capability a plugin offers.

    ``arguments`` and ``result`` are :class:`msgspec.Struct` types: their JSON Schemas are what
    models and clients see, and the executor decodes arguments strictly (unknown fields are
    refused even when the struct would accept them) and validates every result against
    ``result``. ``handler`` is ``async (arguments, context) -> result``, or a plain function for
    work that blocks (a synchronous library, a long computation): it then runs in a bounded
    thread pool so the event loop never waits for it (see :mod:`steward._handlers`). ``policy_check``, if
    given, is ``(arguments, context) -> Rejection | None`` (sync or async) and runs at stage 3,
    before any confirmation is issued, so it must not touch the network. ``citations``, if given,
    turns a result into the :class:`Citation` list a conversation shows beside the answer.

    ``surfaces`` narrows where the capability is offered (every surface by default). One name may
    be declared twice by one plugin for disjoint surfaces: the fetch service's ``web.fetch`` takes
    a service request (modes, jq, redirects followed) where the model's takes a bare URL, yet both
    are "web.fetch" to the household's policy, to pre-approval and to the audit log.
    """

    name: str
    """``family.verb`` (lower-case letters, digits, underscores); what callers invoke."""
    version: int
    """Positive integer; raise it when arguments or result change incompatibly."""
    description: str
    """What models and people read to decide whether to call it."""
    arguments: type[msgspec.Struct]
    """A ``msgspec.Struct`` type; its JSON Schema is published and calls are decoded strictly against it."""
    result: type[msgspec.Struct]
    """A ``msgspec.Struct`` type every result is validated against before it leaves the executor."""
    side_effect: SideEffect
    """``read_only`` or ``mutating``; mutating always needs a person's confirmation."""
    network: Network
    """``local`` or ``external``; external (the LAN counts) needs confirmation too."""
    handler: Handler
    """``async (arguments, context) -> result``, or a plain function that runs in a thread."""
    policy_key: str | None = None
    """The :class:`PolicyFlag` that switches it off and on (``None``: always allowed)."""
    policy_check: PolicyCheck | None = None
    """``(arguments, context) -> Rejection | None``, run at stage 3 before any confirmation; no network."""
    bounds: Bounds = field(default_factory=Bounds)
    """The :class:`Bounds` the executor enforces."""
    citations: CitationsOf | None = None
    """``result -> Iterable[Citation]``, shown beside a conversation's answer."""
    surfaces: frozenset[Surface] = EVERY_SURFACE
    """The :class:`Surface` values it is offered on; every surface by default."""
    idempotent: bool | None = None
    """``True`` when running it twice with the same arguments changes nothing more than once (a switch
    set to a state); ``None`` when undeclared. MCP clients read it as ``idempotentHint``."""
    title: str = ""
    """A few plain words for people ("Read a web page"); the name when empty."""
    action: str = ""
    """What one call will do, in a sentence a person reads before saying yes, with the arguments
    in braces: ``"Read the page {url}"``. Only top-level argument names; empty: the title."""

    problems: tuple[str, ...] = field(default=(), init=False, compare=False, repr=False)
    """What breaks the rules, when the host collects declarations (they are reported one by one)."""

    def __post_init__(self) -> None:
        problems = list(self._problems())
        if problems and not _COLLECTING.get():
            raise InvalidCapability(f"{self.label}: {problems[0]}")
        object.__setattr__(self, "problems", tuple(problems))

    @property
    def label(self) -> str:
        """The name, or its repr when it is not a valid name (for messages)."""
        return self.name if isinstance(self.name, str) and NAME_PATTERN.match(self.name) else repr(self.name)

    def _problems(self) -> Iterator[str]:
        """Each rule this declaration breaks, saying what would be valid; valid enums are converted."""
        if not isinstance(self.name, str) or not NAME_PATTERN.match(self.name):
            yield "a capability name must look like 'family.verb' (lower-case letters, digits and underscores)"
        if isinstance(self.version, bool) or not isinstance(self.version, int) or self.version < 1:
            yield "version must be a positive integer"
        if not isinstance(self.description, str) or not self.description.strip():
            yield "description must be a non-empty string"
        for role in ("arguments", "result"):
            schema = getattr(self, role)
            if not (isinstance(schema, type) and issubclass(schema, msgspec.Struct)):
                yield f"{role} must be a msgspec.Struct type"
        for role, kind in (("side_effect", SideEffect), ("network", Network)):
            try:
                object.__setattr__(self, role, kind(getattr(self, role)))
            except ValueError:
                valid = " or ".join(repr(member.value) for member in kind)
                yield f"unknown classification: {role} {getattr(self, role)!r} (valid: {valid})"
        if not callable(self.handler):
            yield "handler must be callable (async def, or def for blocking work)"
        if self.policy_key is not None and not (
            isinstance(self.policy_key, str) and POLICY_KEY_PATTERN.match(self.policy_key)
        ):
            yield f"policy_key {self.policy_key!r} is not a flag name (lower-case letters, digits, underscores)"
        if self.policy_check is not None and not callable(self.policy_check):
            yield "policy_check must be callable"
        if self.citations is not None and not callable(self.citations):
            yield "citations must be callable"
        if not isinstance(self.bounds, Bounds):
            yield "bounds must be a steward.Bounds"
        try:
            offered = frozenset(Surface(surface) for surface in self.surfaces) & EVERY_SURFACE
            object.__setattr__(self, "surfaces", offered)
        except (TypeError, ValueError) as error:
            valid = ", ".join(sorted(EVERY_SURFACE))
            yield f"surfaces: {error} (valid: {valid})"
        else:
            if not self.surfaces:
                yield "surfaces must name at least one surface"
        if not isinstance(self.title, str):
            yield "title must be a string"
        yield from self._action_problems()

    def _action_problems(self) -> Iterator[str]:
        if not isinstance(self.action, str):
            yield "action must be a string"
            return
        fields = set(getattr(self.arguments, "__struct_fields__", ()))
        try:
            named = [name for _, name, _, _ in string.Formatter().parse(self.action) if name is not None]
        except ValueError as error:
            yield f"action {self.action!r} is not a template: {error}"
            return
        for name in named:
            if name not in fields:
                yield f"action names {{{name}}}, which is not one of the arguments ({', '.join(sorted(fields))})"

    def says(self, arguments: Mapping[str, Any]) -> str:
        """The ``action`` sentence with these arguments in it (each cut at 120 characters), else the title."""
        if not self.action:
            return self.title or self.name
        values = {name: _shown(arguments.get(name)) for name in getattr(self.arguments, "__struct_fields__", ())}
        return self.action.format_map(values)

    @functools.cached_property
    def has_policy(self) -> bool:
        """Whether stage 3 has anything to ask of it beyond a turn's bound (a flag, a check)."""
        return self.policy_key is not None or self.policy_check is not None

    @functools.cached_property
    def blocking(self) -> bool:
        """A plain function handler: it runs in a thread, never on the event loop."""
        return not _is_async_callable(self.handler)

    @functools.cached_property
    def requires_confirmation(self) -> bool:
        """Only what stays on the device and changes nothing runs without a person's yes."""
        return not (self.side_effect is SideEffect.READ_ONLY and self.network is Network.LOCAL)

    @functools.cached_property
    def classification(self) -> Classification:
        return Classification(
            side_effect=self.side_effect,
            network=self.network,
            confirmation="required" if self.requires_confirmation else "automatic",
        )


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else "" if value is None else msgspec.json.encode(value).decode()
    return text if len(text) <= 120 else text[:119] + "…"


def _is_async_callable(candidate: object) -> bool:
    return inspect.iscoroutinefunction(candidate) or inspect.iscoroutinefunction(
        getattr(candidate, "__call__", None)  # noqa: B004 - callable objects with async __call__
    )
