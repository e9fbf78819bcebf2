"""What the fetch service tells operators about each request: one log line and the metrics.

Neither ever holds a body, a query, a full URL or a key: the log line names the key by its
name and the target by its host; metrics are counts by route, status, reason and host.
"""

from __future__ import annotations

import logging

from prometheus_client import Counter, Gauge, Histogram

import steward
from steward_websearch.codes import WebsearchCode

log = logging.getLogger("steward.plugins.websearch.service")

REQUESTS = Counter("steward_service_requests", "Fetch service requests by route and HTTP status.", ["route", "status"])
GUARD_BLOCKS = Counter("steward_service_guard_blocks", "Targets the guard refused, by reason.", ["reason"])
CACHE_LOOKUPS = Counter("steward_service_cache_lookups", "Page cache lookups by result (hit, miss).", ["result"])
FETCHED_BYTES = Counter("steward_service_fetched_bytes", "Body bytes of pages fetched (not from the cache).")
TOKENS = Counter("steward_service_tokens", "Estimated tokens of pages (raw) and of what was returned.", ["kind"])
DIGEST_FALLBACKS = Counter("steward_service_digest_fallbacks", "Digests that fell back to clean content.")
UPSTREAM_REFUSALS = Counter(
    "steward_service_upstream_refusals", "Sites answering 403 or 429, by host.", ["host", "status"]
)
CALLER_REQUESTS = Counter(
    "steward_service_caller_requests",
    "Fetch service requests by caller (the key's name) and route.",
    ["caller", "route"],
)
CALLER_TOKENS = Counter(
    "steward_service_caller_tokens", "Estimated tokens by caller: of pages (raw) and returned.", ["caller", "kind"]
)
RETURNED_RATIO = Histogram(
    "steward_service_returned_ratio",
    "Per answered request, returned tokens over raw tokens (what the service spared the caller's context).",
    buckets=(0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0),
)
TOKEN_SAVINGS = Gauge(
    "steward_service_token_ratio", "Returned tokens over raw tokens, all answered requests of this process so far."
)
MAX_HOST_LABELS = 200
MAX_CALLER_LABELS = 100


class Telemetry:
    """One host's view: which site hosts already have a metrics label (at most ``MAX_HOST_LABELS``).

    The counters themselves are the process's (Prometheus's default registry, which ``/metrics``
    serves); what is per host is the choice of labels, made by the host's own routes.
    """

    def __init__(self) -> None:
        self.hosts_seen: set[str] = set()
        self.callers_seen: set[str] = set()
        self.raw_tokens = 0
        self.returned_tokens = 0

    def host_label(self, host: str) -> str:
        return _bounded(host, self.hosts_seen, MAX_HOST_LABELS)

    def caller_label(self, key: str) -> str:
        """The key's name, for the first ``MAX_CALLER_LABELS`` keys seen; ``other`` after them."""
        return _bounded(key, self.callers_seen, MAX_CALLER_LABELS)

    def observe(self, route: str, key: str, host: str, status: int, outcome: steward.Outcome | None) -> None:
        """Count one finished request and write its log line."""
        REQUESTS.labels(route, str(status)).inc()
        caller = self.caller_label(key)
        CALLER_REQUESTS.labels(caller, route).inc()
        verdict, size, raw, returned, cached = "-", 0, 0, 0, "-"
        if outcome is not None and outcome.status is steward.Status.OK:
            result = outcome.result
            sizes = result.sizes
            raw, returned = sizes.raw_tokens, sizes.returned_tokens
            TOKENS.labels("raw").inc(raw)
            TOKENS.labels("returned").inc(returned)
            CALLER_TOKENS.labels(caller, "raw").inc(raw)
            CALLER_TOKENS.labels(caller, "returned").inc(returned)
            self._saved(raw, returned)
            source = getattr(result, "source", None)
            if source is not None:
                verdict, size, cached = "pass", source.bytes, "hit" if source.cached else "miss"
                CACHE_LOOKUPS.labels(cached).inc()
                if not source.cached:
                    FETCHED_BYTES.inc(source.bytes)
                fell_back = any(warning.startswith("digest unavailable") for warning in result.warnings)
                if result.mode == "clean" and fell_back:
                    DIGEST_FALLBACKS.inc()
        elif outcome is not None and outcome.code in (
            steward.Code.FETCH_TARGET_REJECTED,
            WebsearchCode.DNS_RESOLUTION_FAILED,
        ):
            reason = (outcome.details or {}).get("reason", "other")
            verdict = f"blocked ({reason})"
            GUARD_BLOCKS.labels(reason).inc()
        elif outcome is not None and outcome.code == WebsearchCode.UPSTREAM_BLOCKED:
            status = (outcome.details or {}).get("upstream_status", "?")
            UPSTREAM_REFUSALS.labels(self.host_label(host), str(status)).inc()
        log.info(
            "service %s key=%s host=%s status=%d bytes=%d tokens=%d/%d cache=%s guard=%s",
            route,
            key,
            host or "-",
            status,
            size,
            raw,
            returned,
            cached,
            verdict,
        )

    def _saved(self, raw: int, returned: int) -> None:
        if raw > 0:
            RETURNED_RATIO.observe(returned / raw)
        self.raw_tokens += raw
        self.returned_tokens += returned
        if self.raw_tokens:
            TOKEN_SAVINGS.set(self.returned_tokens / self.raw_tokens)


def _bounded(value: str, seen: set[str], limit: int) -> str:
    if value in seen or len(seen) < limit:
        seen.add(value)
        return value
    return "other"
