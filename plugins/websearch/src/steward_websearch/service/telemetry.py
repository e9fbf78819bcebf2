"""What the fetch service tells operators about each request: one log line and the metrics.

Neither ever holds a body, a query, a full URL or a key: the log line names the key by its
name and the target by its host; metrics are counts by route, status, reason and host.
"""

from __future__ import annotations

import logging

from prometheus_client import Counter

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
MAX_HOST_LABELS = 200


class Telemetry:
    """One host's view: which site hosts already have a metrics label (at most ``MAX_HOST_LABELS``).

    The counters themselves are the process's (Prometheus's default registry, which ``/metrics``
    serves); what is per host is the choice of labels, made by the host's own routes.
    """

    def __init__(self) -> None:
        self.hosts_seen: set[str] = set()

    def host_label(self, host: str) -> str:
        if host in self.hosts_seen or len(self.hosts_seen) < MAX_HOST_LABELS:
            self.hosts_seen.add(host)
            return host
        return "other"

    def observe(self, route: str, key: str, host: str, status: int, outcome: steward.Outcome | None) -> None:
        """Count one finished request and write its log line."""
        REQUESTS.labels(route, str(status)).inc()
        verdict, size, raw, returned, cached = "-", 0, 0, 0, "-"
        if outcome is not None and outcome.status is steward.Status.OK:
            result = outcome.result
            sizes = result.sizes
            raw, returned = sizes.raw_tokens, sizes.returned_tokens
            TOKENS.labels("raw").inc(raw)
            TOKENS.labels("returned").inc(returned)
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
