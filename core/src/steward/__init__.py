"""Steward: a capability host that asks a person before anything leaves the house.

Everything a plugin or an embedding program needs is importable from here; other modules are
private and may change.
"""

from steward.app import create_app
from steward.auth import Principal
from steward.capability import (
    Bounds,
    Capability,
    Citation,
    Classification,
    InvalidCapability,
    Network,
    SideEffect,
    Surface,
)
from steward.client import (
    ClientSettings,
    ClientSettingsError,
    cannot_reach,
    load_client_settings,
    server_client,
)
from steward.codes import Code, OutcomeCode, http_status
from steward.config import Config, ConfigError, ModelConfig, load_config
from steward.context import InvocationContext
from steward.executor import Turn
from steward.files import CorruptFile, locked, read_json_object, write_atomic
from steward.health import HealthCheck, HealthReport
from steward.hookspecs import hookimpl
from steward.host import Host, PluginLoadFailed
from steward.http_client import http_client
from steward.isolation import IsolatedJobFailed, IsolatedWorkers
from steward.model import ModelClient, ModelUnavailable
from steward.outcome import CapabilityError, Outcome, PendingConfirmation, Rejection, Stage, Status
from steward.panels import ConsolePanel
from steward.plugins import Plugin
from steward.policy import PolicyFlag
from steward.resources import Resources
from steward.state import Lease, StateStore, StateUnavailable
from steward.version import __version__
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
    "write_atomic",
]
