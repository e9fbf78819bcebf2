"""Steward plugin ``example``: the hooks, and nothing else."""

import steward
from steward_example.greet import greet_capability
from steward_example.quote import QUOTES_FLAG, QuoteSettings, quote_capability, quote_health_check


@steward.hookimpl
def register_settings() -> type[QuoteSettings]:
    return QuoteSettings


@steward.hookimpl
def register_policy_flags() -> list[steward.PolicyFlag]:
    return [QUOTES_FLAG]


@steward.hookimpl
def register_capabilities() -> list[steward.Capability]:
    return [greet_capability(), quote_capability()]


@steward.hookimpl
def register_health_checks(config: steward.Config) -> list[steward.HealthCheck]:
    return [quote_health_check(config.plugin_settings("example"))]
