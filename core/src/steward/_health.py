"""Health: dependency checks contributed by plugins, and the report built from them."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

import msgspec


@dataclass(frozen=True)
class HealthCheck:
    """``check`` returns a short detail when healthy and raises when not; it gets ``timeout_seconds``."""

    name: str
    """Shown in ``/healthz`` and ``system.health`` beside the plugin's name."""
    check: Callable[[], Awaitable[str | None]]
    """``async () -> str | None``: a short detail when healthy; raises (with a reason) when not."""
    timeout_seconds: float = 3.0
    """A check that has not answered by then counts as failed."""


class CheckResult(msgspec.Struct, kw_only=True):
    name: str
    plugin: str
    ok: bool
    detail: str


class LoadError(msgspec.Struct, kw_only=True):
    """A plugin (or one of its declarations) that could not be used, and why."""

    plugin: str
    message: str


class HealthReport(msgspec.Struct, kw_only=True):
    """``degraded`` when a plugin failed to load, a declaration broke a rule, or a check failed; it says which.

    ``unavailable`` when the shared state store cannot be reached: this host refuses whatever
    needs it, so ``/healthz`` answers 503 and a load balancer sends work elsewhere.
    """

    status: Literal["ok", "degraded", "unavailable"]
    plugins: list[str]
    load_errors: list[LoadError]
    problems: list[str]
    checks: list[CheckResult]

    @property
    def reasons(self) -> list[str]:
        """Why it is ``degraded``, one sentence per cause (empty when ``ok``), for a person to act on."""
        return [
            *(f"plugin {error.plugin} is not in use: {error.message}" for error in self.load_errors),
            *self.problems,
            *(f"{check.plugin}'s check {check.name!r} failed: {check.detail}" for check in self.checks if not check.ok),
        ]


async def run_check(plugin: str, check: HealthCheck) -> CheckResult:
    try:
        async with asyncio.timeout(check.timeout_seconds):
            detail = await check.check()
    except TimeoutError:
        return CheckResult(
            name=check.name, plugin=plugin, ok=False, detail=f"no answer within {check.timeout_seconds:g} s"
        )
    except Exception as error:  # noqa: BLE001 - a failing check is a result, not a crash
        return CheckResult(name=check.name, plugin=plugin, ok=False, detail=str(error) or type(error).__name__)
    return CheckResult(name=check.name, plugin=plugin, ok=True, detail=detail or "ok")
