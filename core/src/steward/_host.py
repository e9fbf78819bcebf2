"""One Steward instance, wired once: plugins, registry, policy, confirmations, audit, keys, executor.

Both surfaces stand on it: ``app`` puts HTTP in front, ``cli`` calls it directly. Building a host
is where every plugin declaration is checked; what cannot be used is reported as a
:class:`~steward._health.LoadError` (or, with ``plugins.strict``, stops the start).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Sequence

import msgspec

from steward._admission import Admission
from steward._audit import AuditLog
from steward._auth import KeyStore, Principal, bearer_key
from steward._capability import Capability, InvalidCapability, collecting_declarations
from steward._codes import OutcomeCode
from steward._codes import declare as declare_codes
from steward._config import Config, decode_plugin_settings
from steward._confirmation import ConfirmationStore
from steward._context import InvocationContext
from steward._conversation import Conversation, PausedTurns
from steward._executor import Executor
from steward._files import make_directory
from steward._handlers import HandlerRunner
from steward._health import CheckResult, HealthCheck, HealthReport, LoadError, run_check
from steward._http_client import http_client, prepare_outgoing_requests
from steward._isolation import IsolatedShare, IsolatedWorkers
from steward._metrics import Metrics
from steward._model import ModelClient
from steward._panels import ConsolePanel
from steward._plugins import Plugin, PluginInfo, call_each, describe, discover, hooks_of, plugin_manager
from steward._policy import Policy, PolicyFlag, locations
from steward._registry import DuplicateCapability, Registered, Registry, register
from steward._resources import Resources
from steward._state import Clock, RedisState, ShelfLimits, StateStore, StateUnavailable, open_backend, redact
from steward._surfaces.builtin import BUILTIN
from steward.hookspecs import hookimpl

log = logging.getLogger("steward")


class PluginLoadFailed(RuntimeError):
    """Start-up refused: duplicate capability names, or any load error under ``strict``."""


class KeyAuthentication:
    """The core's ``authenticate``: a bearer key looked up in ``keys.toml``; runs after any plugin's."""

    def __init__(self, keys: KeyStore) -> None:
        self.keys = keys

    @hookimpl(trylast=True)
    async def authenticate(self, request) -> Principal | None:
        for name, value in request.scope["headers"]:
            if name == b"authorization":
                key = bearer_key(value.decode("latin-1"))
                return await self.keys.find(key) if key else None
        return None


class Host:
    """The plugins loaded, their declarations checked, and the executor, keys, policy and audit they run with."""

    def __init__(
        self, config: Config, plugins: Sequence[Plugin] | None = None, *, clock: Clock = time.monotonic
    ) -> None:
        self.config = config
        self.state = open_backend(config.state, clock)
        self.shared: RedisState | None = self.state if isinstance(self.state, RedisState) else None
        self._load_plugins(plugins)
        self.data_dir = config.data_dir
        make_directory(self.data_dir)
        self.policy = Policy(self._flags, self.state.flag_table(self.data_dir / "capabilities", locations(self._flags)))
        self.keys = KeyStore(self.state.key_table(self.data_dir))
        self.audit = AuditLog(
            self.data_dir / "capabilities" / "audit.jsonl",
            max_bytes=config.audit.max_bytes,
            backups=config.audit.backups,
        )
        self._stores: dict[str, StateStore] = {}
        self.resources = {plugin.name: Resources(plugin.name) for plugin in self.plugins}
        self._key_authentication = KeyAuthentication(self.keys)
        self.manager.register(self._key_authentication, name="steward.keys")
        self._plugin_authentication = any(
            implementation.plugin is not self._key_authentication
            for implementation in self.manager.hook.authenticate.get_hookimpls()
        )
        self.metrics = Metrics()
        prepare_outgoing_requests()
        self.isolated = IsolatedWorkers(
            config.isolation.workers,
            memory_bytes=config.isolation.memory_mb * 1024 * 1024,
            cpu_seconds=config.isolation.cpu_seconds,
            job_seconds=config.isolation.job_seconds,
        )
        self._isolated_shares: dict[str, IsolatedShare] = {}
        self._contexts: dict[tuple[str, str, str, str], InvocationContext] = {}
        self._loggers = {plugin.name: logging.getLogger(f"steward.plugins.{plugin.name}") for plugin in self.plugins}
        self.handlers = HandlerRunner(threads=config.server.blocking_threads, observe_block=self.metrics.loop_blocked)
        self.admission = Admission(config.server.max_concurrent_invocations)
        self._build_confirmations()
        self.model = ModelClient(config.model)
        self.conversation = Conversation(
            self.executor, self.registry, self.model, self.paused_turns, max_rounds=config.model.max_rounds
        )
        self.health_checks.append(("steward", HealthCheck("model", self.model.check)))
        if self.shared is not None:
            self.health_checks.insert(0, ("steward", HealthCheck("state", self._check_state)))
        self._health_cache_seconds = config.server.health_cache_seconds
        self._checked: tuple[asyncio.AbstractEventLoop, float, asyncio.Future[list[CheckResult]]] | None = None

    def _load_plugins(self, plugins: Sequence[Plugin] | None) -> None:
        """Load and check every declaration: what cannot be used becomes a load error (or, strict, a refusal)."""
        self.load_errors: list[LoadError] = []
        if plugins is None:
            plugins, errors = discover(self.config.plugins)
            self.load_errors += errors
        self.manager, errors = plugin_manager(plugins)
        self.load_errors += errors
        self.manager.register(BUILTIN, name="steward")
        self.plugins = [plugin for plugin in plugins if self.manager.is_registered(plugin.module)]
        self._decode_settings()
        self._flags = self._collect_flags()
        self.outcome_codes = self._collect_outcome_codes()
        self.registry = self._collect_capabilities({flag.name for flag in self._flags})
        self.health_checks = self._collect_health_checks()
        self.console_panels = self._collect_console_panels()
        for error in self.load_errors:
            log.error("plugin %s not fully loaded: %s", error.plugin, error.message)
        if self.config.plugins.strict and self.load_errors:
            raise PluginLoadFailed(
                "strict plugin loading: " + "; ".join(f"{e.plugin}: {e.message}" for e in self.load_errors)
            )

    def _build_confirmations(self) -> None:
        """The executor and what waits for a person: pending confirmations, paused turns, kept answers."""
        limits = self.config.confirmation
        keep = limits.lifetime_seconds + limits.expired_grace_seconds
        confirmations = self.state.shelf(
            "confirmations", ShelfLimits(limits.max_pending_per_caller, max_items=limits.max_pending)
        )
        turns = self.state.shelf(
            "turns", ShelfLimits(limits.max_paused_turns_per_caller, max_bytes=limits.max_paused_turn_bytes)
        )
        self.confirmations = ConfirmationStore(confirmations, limits.lifetime_seconds, limits.expired_grace_seconds)
        self.paused_turns = PausedTurns(turns, keep)
        self.executor = Executor(
            self.registry,
            self.policy,
            self.confirmations,
            self.audit,
            self._context_for,
            self.metrics.outcomes.observe,
            self.handlers,
            answers=self.core_state("answers"),
            keep_answers_seconds=keep,
        )

    def state_store(self, plugin: str) -> StateStore:
        """The shared store as plugin ``plugin`` sees it: its own key space, on this host's backend."""
        return self.core_state(f"plugins:{plugin}")

    def core_state(self, namespace: str) -> StateStore:
        """One key space of the shared store (``plugins:<name>`` for a plugin's, ``mcp`` for the MCP surface's)."""
        store = self._stores.get(namespace)
        if store is None:
            store = self._stores[namespace] = self.state.store(namespace)
        return store

    def resources_of(self, plugin: str) -> Resources:
        """Plugin ``plugin``'s long-lived objects on this host (closed when the host stops)."""
        resources = self.resources.get(plugin)
        if resources is None:
            resources = self.resources[plugin] = Resources(plugin)
        return resources

    async def state_fault(self) -> StateUnavailable | None:
        """Whether the shared store is at fault right now, asked when something failed unexpectedly.

        A Redis that answers every command with a well-formed reply of the wrong shape breaks
        whatever reads it in ways no one place can foresee; a request that ends in an unexpected
        error is therefore answered ``503 STATE_UNAVAILABLE``, not 500, when a real round trip to
        the store fails now. On the memory backend, never.
        """
        if self.shared is None:
            return None
        try:
            await self.shared.ping()
        except StateUnavailable as error:
            return error
        return None

    async def _check_state(self) -> str:
        assert self.shared is not None
        await self.shared.ping()
        return f"Redis at {redact(self.shared.url)}, prefix {self.shared.prefix!r}"

    async def authenticate(self, request) -> Principal | None:
        """Who sent ``request``: plugins' ``authenticate`` in hook order, the key check last.

        The first answer that is not ``None`` wins, awaited first if it is awaitable (which
        pluggy's own ``firstresult`` cannot do: a coroutine is never ``None``). With no plugin
        authenticator installed the key check is called directly, cheaper than any hook call.
        """
        if not self._plugin_authentication:
            return await self._key_authentication.authenticate(request)
        for implementation in reversed(self.manager.hook.authenticate.get_hookimpls()):
            principal = implementation.function(*(request for _ in implementation.argnames))
            if inspect.isawaitable(principal):
                principal = await principal
            if principal is not None:
                return principal
        return None

    def plugin_infos(self) -> list[PluginInfo]:
        return [
            PluginInfo(
                name=plugin.name,
                distribution=plugin.distribution,
                version=plugin.version,
                hooks=hooks_of(self.manager, plugin.module),
                capabilities=self.registry.of_plugin(plugin.name),
                outcome_codes=[code.value for code in self.outcome_codes.get(plugin.name, [])],
            )
            for plugin in self.plugins
        ]

    async def health(self) -> HealthReport:
        """The health report; dependency checks are run at most once per ``server.health_cache_seconds``.

        Whether the shared state store answers comes from the last command any request sent it
        (and from the cached ``state`` check), so an anonymous ``/healthz`` never reaches Redis.

        ``/healthz`` needs no key, so without this every anonymous request would reach every
        upstream: a flood of them would be a flood on SearXNG, the model and Home Assistant.
        Concurrent callers share one run of the checks.
        """
        checks = await self._dependency_checks()
        problems = self.policy.problems()
        self.keys.refresh()
        if self.keys.problem is not None:
            problems.append(self.keys.problem)
        if self.shared is None and self.state.problem is not None:
            problems.append(self.state.problem)
        problems += self.handlers.problems()
        healthy = not self.load_errors and not problems and all(check.ok for check in checks)
        status = "ok" if healthy else "degraded"
        if self.shared is not None and self.shared.problem is not None:
            status = "unavailable"
            problems.append(self.shared.problem)
        return HealthReport(
            status=status,
            plugins=[plugin.name for plugin in self.plugins],
            load_errors=list(self.load_errors),
            problems=problems,
            checks=list(checks),
        )

    async def _dependency_checks(self) -> list[CheckResult]:
        loop = asyncio.get_running_loop()
        cached = self._checked
        if cached is not None and cached[0] is loop and time.monotonic() - cached[1] < self._health_cache_seconds:
            return await asyncio.shield(cached[2])
        checks = asyncio.ensure_future(
            asyncio.gather(*(run_check(plugin, check) for plugin, check in self.health_checks))
        )
        self._checked = (loop, time.monotonic(), checks)
        return list(await asyncio.shield(checks))

    async def close_resources(self) -> None:
        """Close every plugin's objects of the running loop (the server's shutdown)."""
        for resources in self.resources.values():
            await resources.aclose()

    def close(self) -> None:
        for resources in self.resources.values():
            resources.close()
        self.isolated.close()
        self.handlers.close()
        self.audit.close()
        if self.shared is not None:
            self.shared.close()

    def _context_for(self, entry: Registered, caller: Principal, surface: str) -> InvocationContext:
        """The (frozen) context of a call: one per capability, caller and surface, made once.

        A bounded number are kept: a host serves a few agents and people, not thousands.
        """
        key = (entry.capability.name, entry.plugin, caller.name, surface)
        context = self._contexts.get(key)
        if context is None:
            if len(self._contexts) >= 1024:
                self._contexts.clear()
            context = self._contexts[key] = self._new_context(entry, caller, surface)
        return context

    def _new_context(self, entry: Registered, caller: Principal, surface: str) -> InvocationContext:
        return InvocationContext(
            capability=entry.capability.name,
            caller=caller.name,
            surface=surface,
            settings=self.config.plugin_settings(entry.plugin),
            data_dir=self.data_dir,
            logger=self._loggers.get(entry.plugin) or logging.getLogger(f"steward.plugins.{entry.plugin}"),
            http_client=http_client,
            health=self.health,
            isolated=self._isolated_share(caller.name),
            state=self.state_store(entry.plugin),
            resources=self.resources_of(entry.plugin),
        )

    def _isolated_share(self, caller: str) -> IsolatedShare:
        share = self._isolated_shares.get(caller)
        if share is None:
            if len(self._isolated_shares) >= 1024:
                self._isolated_shares.clear()
            share = self._isolated_shares[caller] = self.isolated.share(caller)
        return share

    def _decode_settings(self) -> None:
        for plugin, settings_type in call_each(self.manager, "register_settings"):
            if isinstance(settings_type, Exception):
                self._fail(plugin, f"register_settings raised {describe(settings_type)}")
            elif settings_type is not None:
                if not (isinstance(settings_type, type) and issubclass(settings_type, msgspec.Struct)):
                    self._fail(plugin, "register_settings must return a msgspec.Struct type")
                    continue
                self.config.plugins.settings[plugin] = decode_plugin_settings(self.config, plugin, settings_type)
        loaded = {plugin.name for plugin in self.plugins}
        for section in sorted(set(self.config.plugins.sections) - loaded):
            log.warning("[plugins.%s] is configured but no such plugin is loaded", section)

    def _collect_flags(self) -> list[PolicyFlag]:
        flags: dict[str, tuple[str, PolicyFlag]] = {}
        for plugin, declared in call_each(self.manager, "register_policy_flags", config=self.config):
            for flag in self._items(plugin, "register_policy_flags", declared, PolicyFlag):
                if flag.name in flags:
                    self._fail(plugin, f"policy flag {flag.name!r} is already owned by plugin {flags[flag.name][0]!r}")
                    continue
                flags[flag.name] = (plugin, flag)
        return [flag for _, flag in flags.values()]

    def _collect_outcome_codes(self) -> dict[str, list[OutcomeCode]]:
        """Each plugin's declared codes, by plugin; a family that clashes is reported and left out."""
        codes: dict[str, list[OutcomeCode]] = {}
        for plugin, declared in call_each(self.manager, "register_outcome_codes", config=self.config):
            for family in self._items(plugin, "register_outcome_codes", declared, type):
                problems = declare_codes(family)
                for problem in problems:
                    self._fail(plugin, f"outcome codes: {problem}")
                if not problems:
                    codes.setdefault(plugin, []).extend(family)
        return codes

    def _collect_capabilities(self, flag_names: set[str]) -> Registry:
        """Every valid declaration of every plugin; each invalid one is reported on its own."""
        registry = Registry()
        with collecting_declarations():
            declarations = list(call_each(self.manager, "register_capabilities", config=self.config))
        for plugin, declared in declarations:
            if isinstance(declared, InvalidCapability):
                self._fail(plugin, f"invalid capability: {declared}")
                continue
            for capability in self._items(plugin, "register_capabilities", declared, Capability):
                if capability.problems:
                    self._fail(plugin, f"invalid capability {capability.label}: {'; '.join(capability.problems)}")
                    continue
                if capability.policy_key is not None and capability.policy_key not in flag_names:
                    self._fail(
                        plugin,
                        f"invalid capability: {capability.name}: policy_key {capability.policy_key!r} "
                        "is not a registered policy flag",
                    )
                    continue
                try:
                    registry.add(register(capability, plugin))
                except InvalidCapability as error:
                    self._fail(plugin, f"invalid capability: {error}")
                except DuplicateCapability as error:
                    raise PluginLoadFailed(str(error)) from None
        return registry

    def _collect_health_checks(self) -> list[tuple[str, HealthCheck]]:
        return [
            (plugin, check)
            for plugin, declared in call_each(self.manager, "register_health_checks", config=self.config)
            for check in self._items(plugin, "register_health_checks", declared, HealthCheck)
        ]

    def _collect_console_panels(self) -> dict[str, ConsolePanel]:
        panels: dict[str, ConsolePanel] = {}
        owners: dict[str, str] = {}
        for plugin, declared in call_each(self.manager, "register_console_panels", config=self.config):
            for panel in self._items(plugin, "register_console_panels", declared, ConsolePanel):
                if panel.problems:
                    self._fail(plugin, f"console panel {panel.name!r}: {'; '.join(panel.problems)}")
                elif panel.name in panels:
                    self._fail(
                        plugin, f"console panel {panel.name!r} is already declared by plugin {owners[panel.name]!r}"
                    )
                else:
                    panels[panel.name], owners[panel.name] = panel, plugin
        return panels

    def _items(self, plugin: str, hook: str, declared: object, kind: type) -> list:
        if isinstance(declared, Exception):
            self._fail(plugin, f"{hook} raised {describe(declared)}")
            return []
        if declared is None:
            return []
        if not isinstance(declared, list | tuple):
            self._fail(plugin, f"{hook} must return a list of {kind.__name__}")
            return []
        good = [item for item in declared if isinstance(item, kind)]
        if len(good) != len(declared):
            self._fail(plugin, f"{hook} returned something that is not a steward.{kind.__name__}")
        return good

    def _fail(self, plugin: str, message: str) -> None:
        self.load_errors.append(LoadError(plugin=plugin, message=message))
