"""Steward plugin ``system``: the host describes its own health."""

import steward
from steward_system.health import health_capability


@steward.hookimpl
def register_capabilities(config: steward.Config) -> list[steward.Capability]:
    return [health_capability()]
