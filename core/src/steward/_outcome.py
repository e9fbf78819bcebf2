"""What an invocation ends as: an :class:`Outcome`, and the two ways a plugin says no."""

from __future__ import annotations

import enum
from typing import Any

import msgspec

from steward._capability import Classification
from steward._codes import CODE_PATTERN


class Stage(enum.StrEnum):
    """The six executor stages, in order; an outcome names the last one it reached."""

    RESOLVE = "resolve"
    VALIDATE = "validate"
    POLICY = "policy"
    CONFIRM = "confirm"
    EXECUTE = "execute"
    RESULT = "result"


class Status(enum.StrEnum):
    """How an invocation ended: ``pending`` waits for a person, ``denied`` is the person's no."""

    OK = "ok"
    PENDING = "pending"
    REJECTED = "rejected"
    DENIED = "denied"
    FAILED = "failed"


class PendingConfirmation(msgspec.Struct, frozen=True, kw_only=True):
    """What a person is asked to approve: the literal arguments that will be used."""

    token: str
    """Single-use; approving it runs exactly these arguments once."""
    capability: str
    """What will run."""
    version: int
    """The capability's version."""
    arguments: dict[str, Any]
    """The literal arguments that will be used, as the person sees them."""
    expires_in_seconds: int
    """Seconds until the token is no longer accepted."""


class Outcome(msgspec.Struct, kw_only=True):
    """The single answer of the executor, whatever the surface and however far it got."""

    capability: str
    """The name asked for."""
    version: int | None
    """The capability's version, once resolved."""
    stage: Stage
    """The last stage reached (``resolve`` … ``result``)."""
    status: Status
    """``ok``, ``pending``, ``rejected``, ``denied`` or ``failed``."""
    classification: Classification | None = None
    """How the capability touches the world, once resolved."""
    code: str | None = None
    """The outcome code when not ``ok`` (see the codes table)."""
    message: str | None = None
    """Human-readable reason when not ``ok``; never page content or secrets."""
    result: Any = None
    """The validated result when ``ok``."""
    pending_confirmation: PendingConfirmation | None = None
    """What a person must approve when ``pending``."""
    duration_ms: float = 0.0
    """Time spent in the executor."""
    details: dict[str, Any] | None = None
    """Facts about a refusal or failure that a client or a route branches on (an upstream's HTTP
    status, which guard rule refused), so nothing has to parse ``message``."""

    @property
    def ok(self) -> bool:
        return self.status is Status.OK


class Rejection(msgspec.Struct, frozen=True):
    """A ``policy_check``'s refusal at stage 3, e.g. ``Rejection(Code.ENTITY_NOT_ALLOWLISTED, …)``."""

    code: str
    """An ``UPPER_SNAKE_CASE`` outcome code (core's or the plugin's own)."""
    message: str
    """Why, for the caller and the model."""
    details: dict[str, Any] | None = None
    """JSON facts a program branches on."""

    def __post_init__(self) -> None:
        if not CODE_PATTERN.match(self.code):
            raise ValueError(f"rejection code {self.code!r} must be UPPER_SNAKE_CASE")


class CapabilityError(Exception):
    """Raised by a handler for a failure the caller should see with its own code.

    ``code`` is one of :class:`~steward.Code` or of the plugin's own declared codes (it answers
    with the status declared there). The message reaches the caller and the model, so it must say
    what went wrong without carrying secrets or page content; ``details`` (JSON values) carry what
    a program branches on. Any other exception is reported as ``EXECUTION_FAILED`` with only its
    type name.
    """

    def __init__(self, code: str, message: str, *, details: dict[str, Any] | None = None) -> None:
        if not CODE_PATTERN.match(code):
            raise ValueError(f"error code {code!r} must be UPPER_SNAKE_CASE")
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
