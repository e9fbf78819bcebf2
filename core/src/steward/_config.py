"""Server configuration: one TOML file, decoded section by section into typed structs.

Precedence, highest first: command-line flags, ``STEWARD_*`` environment variables, the file,
the defaults below. Environment variables name a key as ``STEWARD_<SECTION>__<KEY>`` (for a
plugin: ``STEWARD_PLUGINS__<PLUGIN>__<KEY>``), plus the shortcuts ``STEWARD_DATA_DIR``,
``STEWARD_CONFIG``, ``STEWARD_PLUGINS`` (= ``plugins.enabled``, comma-separated) and
``STEWARD_PLUGINS_DISABLED``. Unknown keys and wrong types stop the start with a message that
names the key, because a silently ignored setting is a setting the operator thinks they have.
"""

from __future__ import annotations

import os
import tomllib
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

DEFAULT_DATA_DIR = Path("~/.local/state/steward")


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the key."""


class _Section(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class ServerConfig(_Section):
    host: str = "127.0.0.1"
    port: int = 8092
    workers: int = 1
    max_body_bytes: int = 1024 * 1024
    max_concurrent_invocations: int = 64
    health_cache_seconds: float = 10.0
    header_timeout_seconds: Annotated[float, msgspec.Meta(gt=0)] = 10.0
    blocking_threads: Annotated[int, msgspec.Meta(gt=0)] = 8
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    public_url: str = ""
    """Where people reach this server (``https://steward.home.example``), when not at the address it
    is bound to: the console link MCP clients are given, and an origin ``/mcp`` accepts. Never
    taken from a request's ``Host`` header, which whoever sends the request chooses."""


class PluginsConfig(_Section):
    """Which installed plugins load; ``None`` for ``enabled`` means all of them."""

    enabled: list[str] | None = None
    disabled: list[str] = []
    strict: bool = False
    sections: dict[str, dict[str, Any]] = {}
    environment: dict[str, dict[str, str]] = {}
    settings: dict[str, Any] = {}


Positive = Annotated[int, msgspec.Meta(gt=0)]


class ConfirmationConfig(_Section):
    """How long a person has to answer, and how much may wait for them."""

    lifetime_seconds: Positive = 120
    expired_grace_seconds: Annotated[int, msgspec.Meta(ge=0)] = 600
    max_pending_per_caller: Positive = 32
    max_pending: Positive = 4096
    max_paused_turns_per_caller: Positive = 8
    max_paused_turn_bytes: Positive = 64 * 1024 * 1024


class McpConfig(_Section):
    """The MCP surface at ``/mcp``; a request with an ``Origin`` header from elsewhere is refused (403)."""

    allowed_origins: list[str] = []
    """Browser origins besides Steward's own that may call ``/mcp`` (``"https://console.example"``)."""
    max_streams_per_key: Positive = 4
    """Notification streams (``GET /mcp``, ``subscriptions/listen``) one key may hold open on a worker."""
    max_streams: Positive = 256
    """Notification streams open on a worker in all; each holds a connection and a file descriptor."""
    stream_idle_seconds: Positive = 300
    """A notification stream that has carried nothing for this long is closed (clients reconnect)."""
    max_sessions_per_key: Positive = 16
    """Handshake-era sessions one key may have; a new ``initialize`` past it ends the key's oldest."""
    session_idle_seconds: Positive = 24 * 3600
    """A handshake-era session unused for this long is forgotten (404: initialize again)."""


class AuditConfig(_Section):
    max_bytes: int = 10 * 1024 * 1024
    backups: int = 5


class ModelConfig(_Section):
    """The OpenAI-compatible chat-completions server conversations use (llama-server, Ollama, vLLM)."""

    base_url: str = "http://127.0.0.1:8081/v1"
    model: str = "local"
    api_key: str = ""
    timeout: float = 60.0
    max_rounds: int = 4
    max_tokens: int | None = None
    temperature: float | None = None
    thinking: Literal["default", "off", "on"] = "default"
    """``off`` asks a thinking model (Qwen3's template, say) not to think first, ``on`` to think,
    through ``chat_template_kwargs: {enable_thinking}`` (llama-server, vLLM); ``default`` sends
    nothing. Thinking is never shown or stored either way: ``reasoning_content`` is ignored and
    ``<think>`` blocks are cut from the text."""


class IsolationConfig(_Section):
    """The worker processes that run work on untrusted input (parsing pages, callers' jq programs)."""

    workers: int = 2
    memory_mb: int = 1024
    cpu_seconds: int = 60
    job_seconds: Annotated[float, msgspec.Meta(gt=0)] = 20.0
    """A job given no deadline of its own is stopped after this long; a caller's jobs use at most
    ``workers - 1`` workers at once, so no caller can hold them all."""


class StateConfig(_Section):
    """Where the state several workers or hosts must share lives (see :mod:`steward._state`).

    ``memory``: pending confirmations and paused turns in this process, keys and policy in the
    data directory's files; one worker, one server per data directory. ``redis``: all of them in
    the Redis at ``url``, shared by every worker and host configured with the same ``url`` and
    ``prefix``.
    """

    backend: Literal["memory", "redis"] = "memory"
    url: str = "redis://127.0.0.1:6379/0"
    prefix: str = "steward:"
    timeout_seconds: Annotated[float, msgspec.Meta(gt=0)] = 2.0
    max_connections: Positive = 64


class Config(_Section):
    """``steward.toml`` with the environment on top; ``plugin_settings(name)`` is a plugin's decoded section."""

    data_dir: Path = DEFAULT_DATA_DIR
    server: ServerConfig = msgspec.field(default_factory=ServerConfig)
    plugins: PluginsConfig = msgspec.field(default_factory=PluginsConfig)
    confirmation: ConfirmationConfig = msgspec.field(default_factory=ConfirmationConfig)
    audit: AuditConfig = msgspec.field(default_factory=AuditConfig)
    model: ModelConfig = msgspec.field(default_factory=ModelConfig)
    isolation: IsolationConfig = msgspec.field(default_factory=IsolationConfig)
    state: StateConfig = msgspec.field(default_factory=StateConfig)
    mcp: McpConfig = msgspec.field(default_factory=McpConfig)

    def plugin_section(self, plugin: str) -> dict[str, Any]:
        """The raw ``[plugins.<plugin>]`` table (empty when absent)."""
        return self.plugins.sections.get(plugin, {})

    def plugin_settings(self, plugin: str) -> Any:
        """The plugin's decoded settings struct (``None`` if it declares none), once the host loaded it."""
        return self.plugins.settings.get(plugin)

    def plugin_environment(self, plugin: str) -> dict[str, str]:
        """``STEWARD_PLUGINS__<PLUGIN>__<KEY>`` values, still strings until the plugin's type is known."""
        return self.plugins.environment.get(plugin, {})


_PLUGIN_SELECTION_KEYS = ("enabled", "disabled", "strict")


def load_config(
    path: Path | None = None,
    *,
    data_dir: Path | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Config:
    """Read the file (if any), apply the environment and ``overrides`` (``{"server": {"port": 1}}``)."""
    environ = os.environ if environ is None else environ
    if path is None and environ.get("STEWARD_CONFIG"):
        path = Path(environ["STEWARD_CONFIG"])
    raw: dict[str, Any] = {}
    if path is not None:
        try:
            raw = tomllib.loads(Path(path).expanduser().read_text())
        except FileNotFoundError:
            raise ConfigError(f"configuration file {path} does not exist") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise ConfigError(f"configuration file {path} is not valid TOML: {error}") from None
    raw = _split_plugin_sections(raw)
    _apply_environment(raw, environ)
    for section, values in (overrides or {}).items():
        if isinstance(values, Mapping):
            raw.setdefault(section, {}).update(values)
        else:
            raw[section] = values
    if data_dir is not None:
        raw["data_dir"] = str(data_dir)
    elif environ.get("STEWARD_DATA_DIR"):
        raw["data_dir"] = environ["STEWARD_DATA_DIR"]
    try:
        config = msgspec.convert(raw, type=Config, dec_hook=_decode_path)
    except msgspec.ValidationError as error:
        raise ConfigError(_name_the_key(str(error))) from None
    config.data_dir = config.data_dir.expanduser()
    return config


def _decode_path(kind: type, value: Any) -> Any:
    if kind is Path and isinstance(value, str):
        return Path(value)
    raise NotImplementedError


def decode_plugin_settings(config: Config, plugin: str, settings_type: type) -> Any:
    """Decode ``[plugins.<plugin>]`` into the plugin's settings struct, naming any bad key."""
    fields = {field.name: field.type for field in msgspec.structs.fields(settings_type)}
    raw = dict(config.plugin_section(plugin))
    for key, value in config.plugin_environment(plugin).items():
        variable = f"STEWARD_PLUGINS__{plugin.upper()}__{key.upper()}"
        if key not in fields:
            raise ConfigError(f"{variable}: plugins.{plugin} has no key {key!r}")
        raw[key] = _from_environment(value, fields[key], variable)
    try:
        return msgspec.convert(raw, type=settings_type, dec_hook=_decode_path)
    except msgspec.ValidationError as error:
        raise ConfigError(_name_the_key(str(error), prefix=f"plugins.{plugin}")) from None


def _split_plugin_sections(raw: dict[str, Any]) -> dict[str, Any]:
    plugins = raw.get("plugins")
    if plugins is None:
        return raw
    if not isinstance(plugins, dict):
        raise ConfigError("plugins: must be a table")
    selection = {key: plugins[key] for key in _PLUGIN_SELECTION_KEYS if key in plugins}
    sections = {}
    for key, value in plugins.items():
        if key in _PLUGIN_SELECTION_KEYS:
            continue
        if not isinstance(value, dict):
            raise ConfigError(f"plugins.{key}: unknown key (plugin settings go in a [plugins.{key}] table)")
        sections[key] = value
    return {**raw, "plugins": {**selection, "sections": sections}}


def _apply_environment(raw: dict[str, Any], environ: Mapping[str, str]) -> None:
    shortcuts = {"STEWARD_PLUGINS": "enabled", "STEWARD_PLUGINS_DISABLED": "disabled"}
    for variable, key in shortcuts.items():
        if variable in environ:
            raw.setdefault("plugins", {})[key] = _split_list(environ[variable])
    for variable, value in environ.items():
        if not variable.startswith("STEWARD_") or "__" not in variable:
            continue
        parts = variable.removeprefix("STEWARD_").lower().split("__")
        if parts[0] == "plugins" and len(parts) == 3:
            environment = raw.setdefault("plugins", {}).setdefault("environment", {})
            environment.setdefault(parts[1], {})[parts[2]] = value
        elif len(parts) == 2:
            section_type = _section_types().get(parts[0])
            if section_type is None:
                raise ConfigError(f"{variable}: no configuration section named {parts[0]!r}")
            field_type = {field.name: field.type for field in msgspec.structs.fields(section_type)}.get(parts[1])
            if field_type is None:
                raise ConfigError(f"{variable}: {parts[0]} has no key {parts[1]!r}")
            raw.setdefault(parts[0], {})[parts[1]] = _from_environment(value, field_type, variable)
        else:
            raise ConfigError(f"{variable}: expected STEWARD_<SECTION>__<KEY> or STEWARD_PLUGINS__<PLUGIN>__<KEY>")


def _section_types() -> dict[str, type]:
    hints = typing.get_type_hints(Config)
    return {name: hint for name, hint in hints.items() if isinstance(hint, type) and issubclass(hint, _Section)}


def _from_environment(value: str, field_type: Any, variable: str) -> Any:
    """Environment values are strings; turn them into the field's type (lists are comma-separated)."""
    if _is_list(field_type):
        return _split_list(value)
    try:
        return msgspec.convert(value, type=field_type, strict=False)
    except msgspec.ValidationError as error:
        raise ConfigError(f"{variable}: {error}") from None


def _is_list(field_type: Any) -> bool:
    if typing.get_origin(field_type) in (typing.Union, types.UnionType):
        return any(_is_list(member) for member in typing.get_args(field_type))
    return typing.get_origin(field_type) is list


def _split_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _name_the_key(message: str, prefix: str = "") -> str:
    """msgspec says ``… - at `$.server.port```; operators think in ``server.port``."""
    text, _, location = message.partition(" - at `$")
    location = location.rstrip("`").lstrip(".")
    key = ".".join(part for part in (prefix, location) if part)
    if "unknown field" in text:
        field = text.split("`")[1]
        return f"{'.'.join(p for p in (key, field) if p)}: unknown key"
    return f"{key}: {text}" if key else text
