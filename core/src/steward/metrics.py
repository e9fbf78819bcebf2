"""Prometheus metrics of one host: HTTP requests, outcomes by code, latency by stage reached.

Each host has its own registry (several hosts in one test process must not collide); plugins that
count their own things (fetch bytes, cache hits, guard blocks) use prometheus_client's default
registry, which ``/metrics`` serves as well.
"""

from __future__ import annotations

from typing import Any

import prometheus_client
from prometheus_client import CollectorRegistry, Counter, Histogram

from steward.outcome import Outcome

CONTENT_TYPE = prometheus_client.CONTENT_TYPE_LATEST


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "steward_http_requests", "HTTP requests by route and status.", ["route", "status"], registry=self.registry
        )
        self.outcomes = Counter(
            "steward_outcomes",
            "Invocation outcomes by capability, status and code.",
            ["capability", "status", "code"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "steward_invocation_seconds",
            "Invocation duration by capability and the stage it reached.",
            ["capability", "stage"],
            registry=self.registry,
            buckets=(0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 20),
        )

        self._children: dict[tuple[str, str, str, str], tuple[Any, Any]] = {}

    def observe_outcome(self, outcome: Outcome) -> None:
        name = outcome.capability if outcome.version is not None else "<unknown>"
        key = (name, outcome.status, outcome.code or "", outcome.stage)
        children = self._children.get(key)
        if children is None:
            children = self._children[key] = (self.outcomes.labels(*key[:3]), self.latency.labels(name, outcome.stage))
        children[0].inc()
        children[1].observe(outcome.duration_ms / 1000)

    def render(self) -> bytes:
        return prometheus_client.generate_latest(self.registry) + prometheus_client.generate_latest()
