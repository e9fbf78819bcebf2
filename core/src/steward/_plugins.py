"""Finding plugins (entry-point group ``steward``), selecting them, and hooking them in with pluggy.

Nothing loads at import time: the host calls :func:`discover` with the configured selection, so a
test can build a host from an exact list of plugin objects instead. A plugin that cannot be used
is reported by name with the reason, and the others still load (unless ``strict``).
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import msgspec
import pluggy

from steward import hookspecs
from steward._config import PluginsConfig
from steward._health import LoadError

ENTRY_POINT_GROUP = "steward"
TRACE_VARIABLE = "STEWARD_TRACE_PLUGINS"
log = logging.getLogger("steward.plugins")


@dataclass(frozen=True)
class Plugin:
    """A plugin object (usually a module) under the name the host knows it by."""

    name: str
    module: Any
    distribution: str | None = None
    version: str | None = None


class PluginInfo(msgspec.Struct, kw_only=True):
    name: str
    distribution: str | None
    version: str | None
    hooks: list[str]
    capabilities: list[str]
    outcome_codes: list[str]


def discover(selection: PluginsConfig) -> tuple[list[Plugin], list[LoadError]]:
    """Import the selected plugins of the ``steward`` entry-point group."""
    plugins: list[Plugin] = []
    errors: list[LoadError] = []
    seen: dict[str, str] = {}
    disabled = set(selection.disabled)
    for entry_point in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name):
        distribution = entry_point.dist.name if entry_point.dist else None
        if entry_point.name in seen:
            errors.append(
                LoadError(
                    plugin=entry_point.name,
                    message=f"the name is claimed by both {seen[entry_point.name]} and {distribution}; "
                    "only the first was loaded",
                )
            )
            continue
        seen[entry_point.name] = distribution or "?"
        if entry_point.name in disabled or (
            selection.enabled is not None and entry_point.name not in selection.enabled
        ):
            continue
        try:
            module = entry_point.load()
        except Exception as error:  # noqa: BLE001 - any import failure is reported, never fatal by default
            errors.append(
                LoadError(plugin=entry_point.name, message=f"import of {entry_point.value} failed: {describe(error)}")
            )
            continue
        plugins.append(
            Plugin(entry_point.name, module, distribution, entry_point.dist.version if entry_point.dist else None)
        )
    for name in sorted(set(selection.enabled or ()) - set(seen)):
        errors.append(LoadError(plugin=name, message="enabled in the configuration but not installed"))
    return plugins, errors


def plugin_manager(plugins: Iterable[Plugin]) -> tuple[pluggy.PluginManager, list[LoadError]]:
    """Register the plugins; one with a misspelt or malformed hook is dropped and reported."""
    manager = pluggy.PluginManager(ENTRY_POINT_GROUP)
    manager.add_hookspecs(hookspecs)
    errors: list[LoadError] = []
    for plugin in plugins:
        try:
            manager.register(plugin.module, name=plugin.name)
        except (pluggy.PluginValidationError, ValueError) as error:
            errors.append(LoadError(plugin=plugin.name, message=f"invalid hook: {error}"))
    while True:
        try:
            manager.check_pending()
        except pluggy.PluginValidationError as error:
            name = manager.get_name(error.plugin) or repr(error.plugin)
            manager.unregister(error.plugin)
            errors.append(LoadError(plugin=name, message=f"unknown hook: {error}"))
            continue
        return manager, errors


def call_each(manager: pluggy.PluginManager, hook: str, **arguments: Any) -> Iterator[tuple[str, Any]]:
    """Call ``hook`` plugin by plugin, in pluggy's order, yielding ``(plugin, result)``.

    pluggy's own call stops at the first exception; the host needs to know *which* plugin failed
    and to carry on with the others, so a raised exception is the result (and its traceback goes
    to the log). The order is pluggy's (``tryfirst`` first, ``trylast`` last, else the last
    registered first): ``get_hookimpls`` lists them the other way round. With
    ``STEWARD_TRACE_PLUGINS=1`` every call is logged with its plugin and duration.
    """
    trace = os.environ.get(TRACE_VARIABLE, "") not in ("", "0")
    for implementation in reversed(getattr(manager.hook, hook).get_hookimpls()):
        started = time.perf_counter()
        try:
            result = implementation.function(*(arguments[name] for name in implementation.argnames))
        except Exception as error:
            log.error("plugin %s: %s raised %s", implementation.plugin_name, hook, describe(error), exc_info=error)
            result = error
        if trace:
            log.info(
                "hook %s of plugin %s: %.3f ms",
                hook,
                implementation.plugin_name,
                (time.perf_counter() - started) * 1000,
            )
        yield implementation.plugin_name, result


def hooks_of(manager: pluggy.PluginManager, plugin: Any) -> list[str]:
    return sorted(caller.name for caller in manager.get_hookcallers(plugin) or ())


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
