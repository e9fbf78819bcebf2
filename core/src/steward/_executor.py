"""The six stages every invocation goes through, whoever asks and however.

resolve → validate → policy → confirm → execute → result. Each stage is one small method that
either hands its product to the next or stops the invocation with a :class:`_Stop`; whatever
happens, the invocation ends as exactly one :class:`~steward._outcome.Outcome` and exactly one
audit record. A person's answer to a confirmation re-enters at stage 1 with the arguments the
token was issued for, so a capability disabled while the person was deciding does not run.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from steward._audit import AuditLog
from steward._auth import Principal
from steward._capability import Classification, Surface
from steward._codes import Code
from steward._confirmation import (
    ConfirmationRequest,
    ConfirmationStore,
    InvalidConfirmation,
    TooManyPending,
    may_answer,
    token_digest,
)
from steward._context import InvocationContext
from steward._deadlines import Deadlines
from steward._handlers import HandlerRunner
from steward._outcome import CapabilityError, Outcome, PendingConfirmation, Rejection, Stage, Status
from steward._policy import Policy
from steward._registry import Registered, Registry
from steward._state import StateStore, StateUnavailable

log = logging.getLogger("steward.executor")

_encode = msgspec.json.Encoder().encode


PREAPPROVAL_SURFACES = frozenset({Surface.INVOKE, Surface.SERVICE, Surface.MCP})


@dataclass
class Turn:
    """How often each capability ran in one turn, against ``max_invocations_per_turn``."""

    counts: dict[str, int] = field(default_factory=dict)


class _Stop(Exception):
    def __init__(
        self, stage: Stage, status: Status, code: str, message: str, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.stage, self.status, self.code, self.message, self.details = stage, status, code, message, details


class _Answered(msgspec.Struct, frozen=True):
    """An outcome reached by someone other than the asker, waiting for the asker to collect it."""

    asker: str
    capability: str
    outcome: bytes


_decode_answered = msgspec.json.Decoder(_Answered).decode
_decode_outcome = msgspec.json.Decoder(Outcome).decode


def _answered_key(confirmation_id: str) -> str:
    return "answered:" + confirmation_id


_CALLER_GONE = _Stop(Stage.EXECUTE, Status.FAILED, Code.CALLER_GONE, "the caller went away; the work was stopped")
"""What an invocation cancelled from outside (its HTTP client disconnected) is audited as."""

ContextFactory = Callable[[Registered, Principal, str], InvocationContext]
OutcomeObserver = Callable[[Outcome], None]


class Executor:
    def __init__(
        self,
        registry: Registry,
        policy: Policy,
        confirmations: ConfirmationStore,
        audit: AuditLog,
        context_for: ContextFactory,
        observe: OutcomeObserver | None = None,
        runner: HandlerRunner | None = None,
        answers: StateStore | None = None,
        keep_answers_seconds: float = 720,
    ) -> None:
        self.registry = registry
        self.answers = answers
        """Where an outcome reached by someone other than the asker waits for the asker to collect it."""
        self.keep_answers_seconds = keep_answers_seconds
        self.policy = policy
        self.confirmations = confirmations
        self.audit = audit
        self.context_for = context_for
        self.observe = observe
        self.runner = runner or HandlerRunner()
        self.deadlines = Deadlines()

    async def invoke(
        self,
        name: str,
        arguments: bytes | str | Mapping[str, Any] | None,
        *,
        caller: Principal,
        surface: str,
        version: int | None = None,
        turn: Turn | None = None,
    ) -> Outcome:
        """Run a proposed call; may end ``pending`` with a confirmation for a person to answer.

        ``turn`` counts calls against ``max_invocations_per_turn`` across a conversation turn;
        without one, the call is a turn of its own, which every bound (at least 1) allows.
        """
        started = time.perf_counter()
        entry: Registered | None = None
        confirmation: str | None = None
        try:
            entry = self._resolve(name, version, surface)
            validated = self._validate(entry, arguments)
            context = self.context_for(entry, caller, surface)
            if entry.capability.has_policy or turn is not None:
                await self._check_policy(entry, validated, context, turn)
            if self._needs_person(entry, caller, surface):
                pending = await self._issue(entry, validated, caller, surface)
                outcome = self._outcome(entry, name, Stage.CONFIRM, Status.PENDING, started)
                outcome.pending_confirmation = pending
            else:
                if entry.capability.requires_confirmation:
                    confirmation = "preapproved"
                outcome = await self._run(entry, validated, context, started, caller, confirmation)
        except _Stop as stop:
            outcome = self._stopped(entry, name, stop, started)
        except asyncio.CancelledError:
            self._record(self._stopped(entry, name, _CALLER_GONE, started), caller, surface, confirmation)
            raise
        return self._record(outcome, caller, surface, confirmation)

    async def answer(
        self,
        confirmation_id: str,
        approve: bool,
        *,
        caller: Principal,
        surface: Surface,
        capability: str | None = None,
    ) -> Outcome:
        """Apply a person's answer to a pending confirmation (by its id): consume it, then run or not.

        Who may answer, and where, is :func:`~steward._confirmation.may_answer`; anyone else's
        answer is as invalid as an unknown one. An answer on the ``console`` surface runs the
        call, and audits it, on the surface that asked. The asker's own late answer collects
        the outcome someone else reached for it.
        """
        started = time.perf_counter()
        name = capability or "<unknown>"
        entry: Registered | None = None
        asked_on: str = surface
        asker: str | None = None
        request: ConfirmationRequest | None = None
        try:
            request, expired = await self._consume(confirmation_id, caller, surface, capability)
            name, asked_on = request.capability, request.surface
            if request.asker != caller.identity:
                asker = request.caller
            entry = self._resolve(request.capability, request.version, asked_on)
            if expired:
                raise _Stop(
                    Stage.CONFIRM,
                    Status.DENIED,
                    Code.CONFIRMATION_EXPIRED,
                    "the confirmation expired before the person answered; it did not run",
                )
            if not approve:
                raise _Stop(Stage.CONFIRM, Status.DENIED, Code.CONFIRMATION_DENIED, "the person declined; do not retry")
            validated = self._validate(entry, request.arguments)
            context = self.context_for(entry, caller, asked_on)
            await self._check_policy(entry, validated, context, turn=None)
            outcome = await self._run(entry, validated, context, started, caller, None, asker)
        except _Stop as stop:
            if stop.code == Code.INVALID_CONFIRMATION and surface is not Surface.CONSOLE:
                collected = await self._collect(confirmation_id, caller, capability)
                if collected is not None:
                    return collected
            outcome = self._stopped(entry, name, stop, started)
        except asyncio.CancelledError:
            self._record(self._stopped(entry, name, _CALLER_GONE, started), caller, asked_on, None, asker)
            raise
        if asker is not None and request is not None:
            await self._keep_for_asker(confirmation_id, request, outcome)
        return self._record(outcome, caller, asked_on, None, asker)

    async def withdraw(self, confirmation_id: str, *, caller: Principal) -> Outcome:
        """The asker takes back its own pending confirmation before anyone answered it: nothing runs.

        Only the key it was issued to may withdraw it (a console declines instead); anyone
        else's, an unknown or an answered token is ``INVALID_CONFIRMATION``, and is not spent. A
        CLI that exits without an answer withdraws what it asked, so no card is left behind that
        would run later. Audited as ``CONFIRMATION_WITHDRAWN``.
        """
        started = time.perf_counter()
        entry: Registered | None = None
        name, asked_on = "<unknown>", Surface.INVOKE.value
        try:
            try:
                consumed = await self.confirmations.consume(
                    confirmation_id, lambda request: request.asker == caller.identity
                )
            except InvalidConfirmation as error:
                raise _Stop(Stage.CONFIRM, Status.REJECTED, Code.INVALID_CONFIRMATION, str(error)) from None
            except StateUnavailable as error:
                raise _Stop(Stage.CONFIRM, Status.FAILED, Code.STATE_UNAVAILABLE, str(error)) from None
            request = consumed.request
            name, asked_on = request.capability, request.surface
            entry = self.registry.get(request.capability, asked_on)
            raise _Stop(
                Stage.CONFIRM, Status.DENIED, Code.CONFIRMATION_WITHDRAWN, "the asker withdrew it; it did not run"
            )
        except _Stop as stop:
            outcome = self._stopped(entry, name, stop, started)
        return self._record(outcome, caller, asked_on, None)

    async def _keep_for_asker(self, confirmation_id: str, request: ConfirmationRequest, outcome: Outcome) -> None:
        """Whoever answers, the asker gets its answer: keep the outcome for the asker's key to
        collect once, with its own token, for the token's lifetime and grace period."""
        if self.answers is None:
            return
        kept = _Answered(asker=request.asker, capability=request.capability, outcome=_encode(outcome))
        try:
            await self.answers.set(_answered_key(confirmation_id), _encode(kept), ttl_seconds=self.keep_answers_seconds)
        except StateUnavailable as error:
            log.warning("an outcome answered for %s could not be kept for it to collect: %s", request.caller, error)

    async def _collect(self, confirmation_id: str, caller: Principal, capability: str | None) -> Outcome | None:
        """The outcome someone else reached for this caller's confirmation, once; ``None`` if there is none.

        Already audited when it was reached: collecting it is no second outcome.
        """
        if self.answers is None:
            return None
        key = _answered_key(confirmation_id)
        try:
            raw = await self.answers.take(key)
            if raw is None:
                return None
            kept = _decode_answered(raw)
            if kept.asker != caller.identity or capability not in (None, kept.capability):
                await self.answers.set(key, raw, ttl_seconds=self.keep_answers_seconds, only_if_absent=True)
                return None
        except StateUnavailable:
            return None
        return _decode_outcome(kept.outcome)

    async def discard(self, token: str) -> None:
        """Forget a token this host just issued and that nobody will be asked about (its turn was not kept)."""
        with contextlib.suppress(InvalidConfirmation, StateUnavailable):
            await self.confirmations.consume(token_digest(token), lambda request: True)

    # stage 1
    def _resolve(self, name: str, version: int | None, surface: str) -> Registered:
        entry = self.registry.get(name, surface)
        if entry is None:
            reason = f"no capability named {name!r}"
            if self.registry.get(name) is not None:
                reason = f"{name} is not offered on the {surface} surface"
            raise _Stop(Stage.RESOLVE, Status.REJECTED, Code.CAPABILITY_NOT_FOUND, reason)
        if version is not None and version != entry.capability.version:
            raise _Stop(
                Stage.RESOLVE,
                Status.REJECTED,
                Code.CAPABILITY_NOT_FOUND,
                f"{name} is at version {entry.capability.version}, not {version}",
            )
        return entry

    # stage 2
    def _validate(self, entry: Registered, arguments: bytes | str | Mapping[str, Any] | None) -> msgspec.Struct:
        try:
            if arguments is None:
                return entry.arguments_decoder.decode(b"{}")
            if isinstance(arguments, bytes | str):
                return entry.arguments_decoder.decode(arguments)
            return msgspec.convert(arguments, type=entry.arguments_type)
        except (msgspec.ValidationError, msgspec.DecodeError) as error:
            raise _Stop(
                Stage.VALIDATE, Status.REJECTED, Code.INVALID_ARGUMENTS, f"invalid arguments: {error}"
            ) from None
        except RecursionError:
            raise _Stop(
                Stage.VALIDATE, Status.REJECTED, Code.INVALID_ARGUMENTS, "arguments nested too deeply"
            ) from None

    # stage 3
    async def _check_policy(
        self, entry: Registered, arguments: msgspec.Struct, context: InvocationContext, turn: Turn | None
    ) -> None:
        capability = entry.capability
        if capability.policy_key is not None and not await self._enabled(capability.policy_key):
            raise _Stop(
                Stage.POLICY,
                Status.REJECTED,
                Code.CAPABILITY_DISABLED,
                f"{capability.name} is disabled by the household's policy ({capability.policy_key} is off)",
            )
        if capability.policy_check is not None:
            rejection = capability.policy_check(arguments, context)
            if inspect.isawaitable(rejection):
                rejection = await rejection
            if isinstance(rejection, Rejection):
                raise _Stop(Stage.POLICY, Status.REJECTED, rejection.code, rejection.message, rejection.details)
        if turn is not None:
            used = turn.counts.get(capability.name, 0)
            if used >= capability.bounds.max_invocations_per_turn:
                raise _Stop(
                    Stage.POLICY,
                    Status.REJECTED,
                    Code.INVOCATION_LIMIT_EXCEEDED,
                    f"{capability.name} may run {capability.bounds.max_invocations_per_turn} time(s) per turn",
                )
            turn.counts[capability.name] = used + 1

    async def _enabled(self, flag: str) -> bool:
        try:
            return await self.policy.enabled(flag)
        except StateUnavailable as error:
            raise _Stop(Stage.POLICY, Status.FAILED, Code.STATE_UNAVAILABLE, str(error)) from None

    # stage 4
    @staticmethod
    def _needs_person(entry: Registered, caller: Principal, surface: str) -> bool:
        if not entry.capability.requires_confirmation:
            return False
        return not (surface in PREAPPROVAL_SURFACES and entry.capability.name in caller.preapproved)

    async def _issue(
        self, entry: Registered, arguments: msgspec.Struct, caller: Principal, surface: str
    ) -> PendingConfirmation:
        capability = entry.capability
        canonical = _encode(arguments)
        try:
            token = await self.confirmations.issue(
                ConfirmationRequest(
                    capability=capability.name,
                    version=capability.version,
                    arguments=canonical,
                    caller=caller.name,
                    surface=surface,
                    asker=caller.identity,
                )
            )
        except TooManyPending as error:
            raise _Stop(Stage.CONFIRM, Status.REJECTED, Code.TOO_MANY_PENDING, str(error)) from None
        except StateUnavailable as error:
            raise _Stop(Stage.CONFIRM, Status.FAILED, Code.STATE_UNAVAILABLE, str(error)) from None
        return PendingConfirmation(
            token=token,
            capability=capability.name,
            version=capability.version,
            arguments=msgspec.json.decode(canonical),
            expires_in_seconds=int(self.confirmations.lifetime_seconds),
        )

    async def _consume(
        self, confirmation_id: str, caller: Principal, surface: Surface, capability: str | None
    ) -> tuple[ConfirmationRequest, bool]:
        """The request the confirmation was issued for, and whether it expired."""
        try:
            consumed = await self.confirmations.consume(
                confirmation_id, lambda request: may_answer(request, caller, surface, capability)
            )
        except InvalidConfirmation as error:
            raise _Stop(Stage.CONFIRM, Status.REJECTED, Code.INVALID_CONFIRMATION, str(error)) from None
        except StateUnavailable as error:
            raise _Stop(Stage.CONFIRM, Status.FAILED, Code.STATE_UNAVAILABLE, str(error)) from None
        return consumed.request, consumed.expired

    # stages 5 and 6
    async def _run(
        self,
        entry: Registered,
        arguments: msgspec.Struct,
        context: InvocationContext,
        started: float,
        caller: Principal,
        confirmation: str | None,
        asker: str | None = None,
    ) -> Outcome:
        if entry.capability.requires_confirmation:
            self._record_start(entry, caller, context.surface, confirmation, asker)
        result = await self._execute(entry, arguments, context)
        validated = self._check_result(entry, result)
        outcome = self._outcome(entry, entry.capability.name, Stage.RESULT, Status.OK, started)
        outcome.result = validated
        return outcome

    def _record_start(
        self, entry: Registered, caller: Principal, surface: str, confirmation: str | None, asker: str | None
    ) -> None:
        """What leaves the device or changes something runs only once the audit log says so."""
        starting = self._outcome(entry, entry.capability.name, Stage.EXECUTE, Status.OK, time.perf_counter())
        try:
            self.audit.record_start(
                self._confirmed_as(starting, confirmation), caller=caller.name, surface=surface, asker=asker
            )
        except OSError as error:
            log.error("audit log cannot be written (%s); %s did not run", error, entry.capability.name)
            raise _Stop(
                Stage.EXECUTE,
                Status.FAILED,
                Code.AUDIT_UNAVAILABLE,
                f"the audit log cannot be written ({error.strerror or error}); {entry.capability.name} did not run",
            ) from None

    async def _execute(self, entry: Registered, arguments: msgspec.Struct, context: InvocationContext) -> Any:
        capability = entry.capability
        started = time.perf_counter()
        try:
            finished, running = self.runner.start(
                capability.name, capability.handler, capability.blocking, arguments, context
            )
            if finished:
                return running
            with self.deadlines.limit(capability.bounds.timeout_seconds - (time.perf_counter() - started)):
                return await running
        except TimeoutError:
            raise _Stop(
                Stage.EXECUTE,
                Status.FAILED,
                Code.TIMEOUT,
                f"{capability.name} did not finish within {capability.bounds.timeout_seconds:g} s",
            ) from None
        except CapabilityError as error:
            raise _Stop(Stage.EXECUTE, Status.FAILED, error.code, error.message, error.details) from None
        except StateUnavailable as error:
            raise _Stop(Stage.EXECUTE, Status.FAILED, Code.STATE_UNAVAILABLE, str(error)) from None
        except Exception as error:
            log.exception("%s raised %s", capability.name, type(error).__name__)
            raise _Stop(
                Stage.EXECUTE,
                Status.FAILED,
                Code.EXECUTION_FAILED,
                f"{capability.name} failed with {type(error).__name__}; the server log has details",
            ) from None

    @staticmethod
    def _check_result(entry: Registered, result: Any) -> Any:
        capability = entry.capability
        if not isinstance(result, capability.result | dict):
            raise _Stop(
                Stage.RESULT,
                Status.FAILED,
                Code.INVALID_RESULT,
                f"{capability.name} returned {type(result).__name__}, not {capability.result.__name__}",
            )
        try:
            encoded = _encode(result)
            validated = entry.result_decoder.decode(encoded)
        except (msgspec.ValidationError, msgspec.EncodeError, TypeError) as error:
            raise _Stop(
                Stage.RESULT, Status.FAILED, Code.INVALID_RESULT, f"{capability.name} result: {error}"
            ) from None
        if len(encoded) > capability.bounds.max_result_bytes:
            raise _Stop(
                Stage.RESULT,
                Status.FAILED,
                Code.RESULT_TOO_LARGE,
                f"{capability.name} result is {len(encoded)} bytes; the bound is {capability.bounds.max_result_bytes}",
            )
        return validated

    # outcomes
    @staticmethod
    def _outcome(entry: Registered | None, name: str, stage: Stage, status: Status, started: float) -> Outcome:
        capability = entry.capability if entry else None
        return Outcome(
            capability=capability.name if capability else name,
            version=capability.version if capability else None,
            stage=stage,
            status=status,
            classification=capability.classification if capability else None,
            duration_ms=(time.perf_counter() - started) * 1000,
        )

    def _stopped(self, entry: Registered | None, name: str, stop: _Stop, started: float) -> Outcome:
        outcome = self._outcome(entry, name, stop.stage, stop.status, started)
        outcome.code = stop.code
        outcome.message = stop.message
        outcome.details = stop.details
        return outcome

    @staticmethod
    def _confirmed_as(outcome: Outcome, confirmation: str | None) -> Outcome:
        """The outcome with its classification saying how it was confirmed (``preapproved``)."""
        if confirmation is not None and outcome.classification is not None:
            outcome.classification = Classification(
                outcome.classification.side_effect, outcome.classification.network, confirmation
            )
        return outcome

    def _record(
        self, outcome: Outcome, caller: Principal, surface: str, confirmation: str | None, asker: str | None = None
    ) -> Outcome:
        self.audit.record(self._confirmed_as(outcome, confirmation), caller=caller.name, surface=surface, asker=asker)
        if self.observe is not None:
            self.observe(outcome)
        return outcome
