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
_hosts_seen: set[str] = set()


def _host_label(host: str) -> str:
    if host in _hosts_seen or len(_hosts_seen) < MAX_HOST_LABELS:
        _hosts_seen.add(host)
        return host
    return "other"


def observe(route: str, key: str, host: str, status: int, outcome: steward.Outcome | None) -> None:
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
            if result.mode == "clean" and any(warning.startswith("digest unavailable") for warning in result.warnings):
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
        UPSTREAM_REFUSALS.labels(_host_label(host), str(status)).inc()
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
