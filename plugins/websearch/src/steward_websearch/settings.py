"""``[plugins.websearch]`` in steward.toml, with the fetch service's sub-tables."""

from __future__ import annotations

import ipaddress
from typing import Annotated, Literal

import msgspec

import steward
from steward_websearch.net.fetch import FetchLimits
from steward_websearch.net.guard import Guard


class DigestSettings(msgspec.Struct, forbid_unknown_fields=True):
    """``[plugins.websearch.digest]``: the OpenAI-compatible model that writes ``digest`` answers."""

    base_url: str = "http://127.0.0.1:8081/v1"
    model: str = "local"
    api_key: str = ""
    timeout: float = 45.0
    max_tokens: int = 600
    thinking: Literal["default", "off", "on"] = "default"
    """``off``: a thinking model answers digests without thinking first (``chat_template_kwargs``)."""

    def model_config(self) -> steward.ModelConfig:
        return steward.ModelConfig(
            base_url=self.base_url,
            model=self.model,
            api_key=self.api_key,
            timeout=self.timeout,
            max_tokens=self.max_tokens,
            temperature=0.0,
            thinking=self.thinking,
        )


class RerankSettings(msgspec.Struct, forbid_unknown_fields=True):
    """``[plugins.websearch.rerank]``: the OpenAI-compatible ``/embeddings`` endpoint ``rerank`` asks.

    llama-server serves one with ``--embeddings --pooling mean``; it may be the digest's server.
    """

    base_url: str = "http://127.0.0.1:8081/v1"
    model: str = "local"
    api_key: str = ""
    timeout: float = 10.0


class ContextSettings(msgspec.Struct, forbid_unknown_fields=True):
    """``[plugins.websearch.context]``: the memory store ``/v1/fetch {"context": true}`` reads.

    Memory context is off until ``honcho_url`` is set (or ``backend`` names a plugin's store).
    The API key is not a setting: ``steward websearch set-honcho-key`` keeps it in a 0600 file.
    ``workspaces`` maps key names to workspaces; a key without one gets ``default_workspace``,
    and with neither, no context.
    """

    backend: str = "honcho"
    honcho_url: str = ""
    default_workspace: str = ""
    workspaces: dict[str, str] = {}
    limit: Annotated[int, msgspec.Meta(ge=1, le=50)] = 5
    timeout: Annotated[float, msgspec.Meta(gt=0, le=30)] = 3.0
    max_chars: Annotated[int, msgspec.Meta(ge=100, le=100_000)] = 4000
    """All items' text together, at most; each item is also cut to 1,000 characters."""


class RecoverSettings(msgspec.Struct, forbid_unknown_fields=True):
    """``[plugins.websearch.recover]``: where ``recover`` looks for archived copies, in order.

    ``wayback_url`` is the base of a Wayback Machine (its availability API answers at
    ``/wayback/available``); ``archives`` are URL templates with ``{url}``, tried after it, that
    answer with the archived page itself (``Memento-Datetime`` dates it, when sent). Every hop
    goes through the guard like any fetch.
    """

    wayback_url: str = "https://archive.org"
    archives: list[str] = msgspec.field(default_factory=lambda: ["https://archive.ph/newest/{url}"])

    def __post_init__(self) -> None:
        for template in self.archives:
            if "{url}" not in template:
                raise ValueError(f"recover.archives: {template!r} has no {{url}} placeholder")


class CacheSettings(msgspec.Struct, forbid_unknown_fields=True):
    """``[plugins.websearch.cache]``: the service's page cache (SQLite in the data directory)."""

    enabled: bool = True
    default_ttl_seconds: int = 24 * 3600
    max_ttl_seconds: int = 7 * 24 * 3600
    max_bytes: int = 256 * 1024 * 1024


class ServiceSettings(msgspec.Struct, forbid_unknown_fields=True):
    """``[plugins.websearch.service]``: admission limits of the fetch service (for the whole fleet on redis)."""

    max_concurrent: int = 16
    max_per_host: int = 4
    requests_per_minute: int = 120
    max_tokens: int = 25_000


class WebsearchSettings(msgspec.Struct, forbid_unknown_fields=True):
    searxng_url: str = "http://127.0.0.1:8093"
    # Brave's LLM Context API, asked beside SearXNG once a key is set (steward websearch set-brave-key)
    brave_url: str = "https://api.search.brave.com"
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
    digest: DigestSettings = msgspec.field(default_factory=DigestSettings)
    rerank: RerankSettings = msgspec.field(default_factory=RerankSettings)
    context: ContextSettings = msgspec.field(default_factory=ContextSettings)
    recover: RecoverSettings = msgspec.field(default_factory=RecoverSettings)
    cache: CacheSettings = msgspec.field(default_factory=CacheSettings)
    service: ServiceSettings = msgspec.field(default_factory=ServiceSettings)

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
