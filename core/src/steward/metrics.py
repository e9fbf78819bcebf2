"""Prometheus metrics of one host: HTTP requests, outcomes by code, latency by stage reached.

Each host has its own registry (several hosts in one test process must not collide); plugins that
count their own things (fetch bytes, cache hits, guard blocks) use prometheus_client's default
registry, which ``/metrics`` serves as well.

Outcomes are counted in plain dictionaries and turned into metric families only when scraped:
every invocation is observed, and prometheus_client's Counter and Histogram cost a lock and
half a dozen calls per observation, a tenth of what an invocation cost over HTTP
(``bench/http_throughput.py``).
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterator

import prometheus_client
from prometheus_client import CollectorRegistry, Counter
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.utils import floatToGoString

from steward.outcome import Outcome

CONTENT_TYPE = prometheus_client.CONTENT_TYPE_LATEST
LATENCY_BUCKETS = (0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 20)


class OutcomeCollector:
    """``steward_outcomes`` by capability, status and code; ``steward_invocation_seconds`` by stage."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._outcomes: dict[tuple[str, str, str], int] = {}
        self._latency: dict[tuple[str, str], list[float]] = {}  # a count per bucket, +Inf's, then the sum

    def observe(self, outcome: Outcome) -> None:
        name = outcome.capability if outcome.version is not None else "<unknown>"
        seconds = outcome.duration_ms / 1000
        counted = (name, outcome.status, outcome.code or "")
        timed = (name, outcome.stage)
        with self._lock:
            self._outcomes[counted] = self._outcomes.get(counted, 0) + 1
            row = self._latency.get(timed)
            if row is None:
                row = self._latency[timed] = [0] * (len(LATENCY_BUCKETS) + 2)
            row[bisect.bisect_left(LATENCY_BUCKETS, seconds)] += 1
            row[-1] += seconds

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            outcomes = dict(self._outcomes)
            latency = {labels: list(row) for labels, row in self._latency.items()}
        counter = CounterMetricFamily(
            "steward_outcomes",
            "Invocation outcomes by capability, status and code.",
            labels=["capability", "status", "code"],
        )
        for labels, count in outcomes.items():
            counter.add_metric(labels, count)
        histogram = HistogramMetricFamily(
            "steward_invocation_seconds",
            "Invocation duration by capability and the stage it reached.",
            labels=["capability", "stage"],
        )
        bounds = [floatToGoString(bound) for bound in LATENCY_BUCKETS] + ["+Inf"]
        for labels, row in latency.items():
            cumulative, buckets = 0.0, []
            for bound, count in zip(bounds, row[:-1], strict=True):
                cumulative += count
                buckets.append((bound, cumulative))
            histogram.add_metric(labels, buckets, sum_value=row[-1])
        yield counter
        yield histogram


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "steward_http_requests", "HTTP requests by route and status.", ["route", "status"], registry=self.registry
        )
        self.outcomes = OutcomeCollector()
        self.registry.register(self.outcomes)
        self.blocked = Counter(
            "steward_loop_blocked",
            "Times an async handler ran longer than 100 ms without yielding, by capability.",
            ["capability"],
            registry=self.registry,
        )

    def loop_blocked(self, capability: str, seconds: float) -> None:
        self.blocked.labels(capability).inc()

    def render(self) -> bytes:
        return prometheus_client.generate_latest(self.registry) + prometheus_client.generate_latest()
