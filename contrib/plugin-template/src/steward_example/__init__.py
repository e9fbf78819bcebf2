"""Steward plugin ``example``: the hooks, and nothing else."""

import steward
from steward_example.greet import greet_capability


@steward.hookimpl
def register_capabilities() -> list[steward.Capability]:
    return [greet_capability()]
