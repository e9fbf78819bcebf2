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
import collections
import threading
from collections.abc import Iterator

import prometheus_client
from prometheus_client import CollectorRegistry, Counter
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.utils import floatToGoString

from steward._outcome import Outcome

CONTENT_TYPE = prometheus_client.CONTENT_TYPE_LATEST
LATENCY_BUCKETS = (0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 20)
FOLD_EVERY = 1024
"""How many outcomes wait, at most, to be counted: a host nobody scrapes holds no more."""


class OutcomeCollector:
    """``steward_outcomes`` by capability, status and code; ``steward_invocation_seconds`` by stage."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._outcomes: dict[tuple[str, str, str], int] = {}
        self._latency: dict[tuple[str, str], list[float]] = {}  # a count per bucket, +Inf's, then the sum
        self._seen: collections.deque[tuple[str, int | None, str, str | None, str, float]] = collections.deque()

    def observe(self, outcome: Outcome) -> None:
        """Note the outcome (its labels and duration, never its result); it is counted when scraped
        (or once ``FOLD_EVERY`` wait), not now.

        A deque's ``append`` and ``popleft`` are atomic, so the invocation's path takes no lock and
        does no arithmetic, and no outcome noted while another thread folds is lost.
        """
        self._seen.append(
            (outcome.capability, outcome.version, outcome.status, outcome.code, outcome.stage, outcome.duration_ms)
        )
        if len(self._seen) >= FOLD_EVERY:
            self._fold()

    def _fold(self) -> None:
        with self._lock:
            while self._seen:
                capability, version, status, code, stage, milliseconds = self._seen.popleft()
                name = capability if version is not None else "<unknown>"
                counted = (name, status, code or "")
                self._outcomes[counted] = self._outcomes.get(counted, 0) + 1
                timed = (name, stage)
                row = self._latency.get(timed)
                if row is None:
                    row = self._latency[timed] = [0] * (len(LATENCY_BUCKETS) + 2)
                seconds = milliseconds / 1000
                row[bisect.bisect_left(LATENCY_BUCKETS, seconds)] += 1
                row[-1] += seconds

    def collect(self) -> Iterator[Metric]:
        self._fold()
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


class RequestCollector:
    """``steward_http_requests`` by route and status, counted in a plain dictionary (see above)."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, int], int] = {}

    def count(self, route: str, status: int) -> None:
        """One response; called on the event loop's thread only, so no lock is taken."""
        key = (route, status)
        self._counts[key] = self._counts.get(key, 0) + 1

    def collect(self) -> Iterator[Metric]:
        counter = CounterMetricFamily(
            "steward_http_requests", "HTTP requests by route and status.", labels=["route", "status"]
        )
        for (route, status), count in list(self._counts.items()):
            counter.add_metric([route, str(status)], count)
        yield counter


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = RequestCollector()
        self.registry.register(self.requests)
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
