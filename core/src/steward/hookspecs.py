"""The plugin API: every hook a plugin may implement, in the order the host calls them.

A plugin is a module (or any object) with functions marked ``@steward.hookimpl`` whose names and
parameters match the specs below; it may implement any subset, and may leave out parameters it
does not use. A misspelt hook name stops the host at start-up rather than being ignored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import click
    import msgspec
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.routing import BaseRoute

    from steward._auth import Principal
    from steward._capability import Capability
    from steward._codes import OutcomeCode
    from steward._config import Config
    from steward._health import HealthCheck
    from steward._panels import ConsolePanel
    from steward._policy import PolicyFlag

hookspec = pluggy.HookspecMarker("steward")
hookimpl = pluggy.HookimplMarker("steward")


@hookspec
def register_settings() -> type[msgspec.Struct] | None:
    """The struct that ``[plugins.<name>]`` decodes into (unknown keys are start-up errors).

    The decoded value reaches handlers as ``context.settings`` and other hooks through
    ``config.plugin_settings(name)``.
    """


@hookspec
def register_policy_flags(config: Config) -> list[PolicyFlag]:
    """The boolean switches this plugin owns; a capability's ``policy_key`` must name one."""


@hookspec
def register_outcome_codes(config: Config) -> list[type[OutcomeCode]]:
    """The plugin's own outcome codes, as :class:`~steward.OutcomeCode` subclasses.

    Each member names its HTTP status once; every route (invoke, a plugin's own API) answers a
    refusal or failure with it. A code already declared elsewhere is a load error.
    """


@hookspec
def register_capabilities(config: Config) -> list[Capability]:
    """The capabilities this plugin offers."""


@hookspec
def register_health_checks(config: Config) -> list[HealthCheck]:
    """Dependency checks shown in ``/healthz`` and ``system.health`` (is SearXNG up? …)."""


@hookspec
def register_routes(config: Config) -> list[BaseRoute]:
    """Extra Starlette routes; they are mounted as given, so protect them with ``require_scope``."""


@hookspec
def register_console_panels(config: Config) -> list[ConsolePanel]:
    """Sections this plugin adds to the household console, each drawn by a script it ships
    (see :class:`~steward.ConsolePanel`); shown only to a key holding the panel's scope."""


@hookspec
def register_commands(cli: click.Group, config: Config) -> None:
    """Add click commands to the ``steward`` command line.

    ``config`` is what the environment and ``STEWARD_CONFIG`` say when the command line starts
    (enough to decide which commands to offer); a command's own ``--config``/``--data-dir`` are
    parsed later, so inside a command use ``steward.current_config()``.
    """


@hookspec(firstresult=True)
def authenticate(request: Request) -> Principal | Any | None:
    """Who sent ``request``: a ``Principal``, or ``None`` for nobody (401).

    The first non-``None`` answer wins and the core's key check runs last, so an appliance can
    delegate to its own auth service. May return an awaitable.
    """


@hookspec
def startup(app: Starlette) -> Any:
    """Called once when the server starts (may return an awaitable)."""


@hookspec
def shutdown(app: Starlette) -> Any:
    """Called once when the server stops (may return an awaitable)."""
