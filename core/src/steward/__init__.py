"""Steward: a capability host that asks a person before anything leaves the house.

Everything a plugin or an embedding program needs is importable from here. The same names,
gathered by audience, are in ``steward.web`` (a plugin's routes), ``steward.commands`` (a plugin's
commands) and ``steward.testing`` (its tests); ``steward.hookspecs`` is the plugin API's table of
contents. Every other module's name starts with an underscore: private, and it may change.
"""

from steward._app import create_app
from steward._auth import Principal
from steward._capability import (
    Bounds,
    Capability,
    Citation,
    Classification,
    InvalidCapability,
    Network,
    SideEffect,
    Surface,
)
from steward._client import (
    ClientSettings,
    ClientSettingsError,
    cannot_reach,
    load_client_settings,
    server_client,
)
from steward._codes import Code, OutcomeCode, http_status
from steward._config import Config, ConfigError, ModelConfig, load_config
from steward._context import InvocationContext
from steward._executor import Turn
from steward._files import CorruptFile, locked, read_json_object, write_atomic
from steward._health import HealthCheck, HealthReport
from steward._host import Host, PluginLoadFailed
from steward._http_client import http_client, tls_context
from steward._isolation import IsolatedJobFailed, IsolatedWorkers
from steward._model import ModelClient, ModelUnavailable
from steward._outcome import CapabilityError, Outcome, PendingConfirmation, Rejection, Stage, Status
from steward._panels import ConsolePanel
from steward._plugins import Plugin
from steward._policy import PolicyFlag
from steward._resources import Resources
from steward._state import Lease, StateStore, StateUnavailable
from steward._version import __version__
from steward.hookspecs import hookimpl
from steward.web import (
    ApiError,
    authenticate,
    invoke_capability,
    json_response,
    openapi_operation,
    plugin_state,
    policy_of,
    read_body,
    read_json,
    require_scope,
)


def _claim_public_names() -> None:
    """Say ``steward.X``, not ``steward._module.X``, as httpx's names do.

    A class's own postponed annotations are evaluated first, where they were written: msgspec and
    ``typing`` look string annotations up through ``__module__`` (a subclass's decoder too), and
    ``steward`` does not hold the names they use.
    """
    import inspect
    import typing

    for name in __all__:
        public = globals().get(name)
        if isinstance(public, type):
            own = inspect.get_annotations(public)
            if any(isinstance(annotation, str) for annotation in own.values()):
                hints = typing.get_type_hints(public, include_extras=True)
                public.__annotations__ = resolved = {field: hints[field] for field in own}
                for field in getattr(public, "__dataclass_fields__", {}).values():
                    field.type = resolved.get(field.name, field.type)
        if inspect.isfunction(public) or isinstance(public, type):
            public.__module__ = "steward"


def __getattr__(name: str) -> object:
    """``current_config`` lives with the command line, which ``import steward`` does not load."""
    if name == "current_config":
        from steward.commands import current_config

        return current_config
    raise AttributeError(f"module 'steward' has no attribute {name!r}")


__all__ = [
    "ApiError",
    "Bounds",
    "Capability",
    "CapabilityError",
    "Citation",
    "Classification",
    "ClientSettings",
    "ClientSettingsError",
    "Code",
    "Config",
    "ConfigError",
    "ConsolePanel",
    "CorruptFile",
    "HealthCheck",
    "HealthReport",
    "Host",
    "InvalidCapability",
    "InvocationContext",
    "IsolatedJobFailed",
    "IsolatedWorkers",
    "Lease",
    "ModelClient",
    "ModelConfig",
    "ModelUnavailable",
    "Network",
    "Outcome",
    "OutcomeCode",
    "PendingConfirmation",
    "Plugin",
    "PluginLoadFailed",
    "PolicyFlag",
    "Principal",
    "Rejection",
    "Resources",
    "SideEffect",
    "Stage",
    "StateStore",
    "StateUnavailable",
    "Status",
    "Surface",
    "Turn",
    "__version__",
    "authenticate",
    "cannot_reach",
    "create_app",
    "current_config",
    "hookimpl",
    "http_client",
    "http_status",
    "invoke_capability",
    "json_response",
    "load_client_settings",
    "load_config",
    "locked",
    "openapi_operation",
    "plugin_state",
    "policy_of",
    "read_body",
    "read_json",
    "read_json_object",
    "require_scope",
    "server_client",
    "tls_context",
    "write_atomic",
]

_claim_public_names()
