"""Who may come in, and whether there is room: one gate for every way in.

REST, both MCP transports over HTTP, conversation turns, the console's API and plugin routes all
ask the same :class:`CallerGate` for the caller and for a slot, so a refusal reads the same
wherever it happens and ``server.max_concurrent_invocations`` is one cap across all of them.
Refusals are :class:`~steward.ApiError` with an outcome code; a surface with a wire format of its
own (MCP's JSON-RPC) translates them, and nothing else.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING

from starlette.requests import Request

from steward._admission import Admission, Busy
from steward._auth import KeysUnavailable, Principal
from steward._bodies import ApiError
from steward._codes import Code
from steward._state import StateUnavailable

if TYPE_CHECKING:
    from steward._host import Host

KEY_REQUIRED = "a valid key is required: Authorization: Bearer <key>"


class CallerGate:
    """The caller of a request and its scope, and a slot among the host's running invocations."""

    def __init__(self, host: Host) -> None:
        self.host = host

    async def caller(self, request: Request, *scopes: str) -> Principal:
        """The caller, who must hold one of ``scopes`` (any valid key when none are named).

        :class:`ApiError`: ``UNAUTHORIZED`` without a valid key, ``FORBIDDEN`` without the scope,
        ``KEYS_UNAVAILABLE`` while the key file cannot be read, ``STATE_UNAVAILABLE`` while the
        shared store cannot (or answers nonsense to an authenticator that reads it).
        """
        try:
            principal = await self.host.authenticate(request)
        except KeysUnavailable as error:
            raise ApiError(Code.KEYS_UNAVAILABLE, f"no key can be checked right now: {error}") from None
        except StateUnavailable as error:
            raise ApiError(Code.STATE_UNAVAILABLE, str(error)) from None
        except Exception:
            fault = await self.host.state_fault()
            if fault is None:
                raise
            raise ApiError(Code.STATE_UNAVAILABLE, str(fault)) from None
        if principal is None:
            raise ApiError(Code.UNAUTHORIZED, KEY_REQUIRED)
        if scopes and not any(principal.has_scope(scope) for scope in scopes):
            raise ApiError(Code.FORBIDDEN, f"this key lacks the scope for this endpoint ({' or '.join(scopes)})")
        return principal

    def admitted(self) -> _Admitted:
        """``with gate.admitted():`` holds one of the host's invocation slots while the block runs;
        ``ApiError(BUSY)`` when none is free."""
        return _Admitted(self.host.admission)


class _Admitted:
    """A class rather than a generator-based context manager: this runs on every invocation."""

    __slots__ = ("_admission",)

    def __init__(self, admission: Admission) -> None:
        self._admission = admission

    def __enter__(self) -> None:
        try:
            self._admission.__enter__()
        except Busy as busy:
            raise ApiError(Code.BUSY, str(busy)) from None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._admission.__exit__(kind, error, traceback)
