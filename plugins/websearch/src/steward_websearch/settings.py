"""``[plugins.websearch]`` in steward.toml."""

from __future__ import annotations

import ipaddress

import msgspec

from steward_websearch.fetch import FetchLimits
from steward_websearch.guard import Guard


class WebsearchSettings(msgspec.Struct, forbid_unknown_fields=True):
    searxng_url: str = "http://127.0.0.1:8093"
    # Networks the guard lets web.fetch reach although they are not public: a LAN service, or
    # loopback in tests. Explicit, logged at start-up, never a default.
    allowed_networks: list[str] = []
    allowed_ports: list[int] = msgspec.field(default_factory=lambda: [80, 443])
    connect_timeout: float = 5.0
    total_timeout: float = 20.0
    max_body_bytes: int = 5 * 1024 * 1024
    max_concurrency: int = 8
    max_per_host: int = 2
    ca_bundle: str = ""

    def __post_init__(self) -> None:
        for network in self.allowed_networks:
            try:
                ipaddress.ip_network(network)
            except ValueError as error:
                raise ValueError(f"allowed_networks: {error}") from None

    def guard(self) -> Guard:
        return Guard.configured(self.allowed_ports, self.allowed_networks)

    def limits(self) -> FetchLimits:
        return FetchLimits(
            connect_seconds=self.connect_timeout,
            total_seconds=self.total_timeout,
            max_body_bytes=self.max_body_bytes,
            max_concurrency=self.max_concurrency,
            max_per_host=self.max_per_host,
        )
