"""The one way Steward code makes outgoing HTTP requests.

Every client ignores the environment's proxies and ``.netrc`` (``trust_env=False``): a capability
host must not send household traffic somewhere because of an inherited variable. It names itself
``steward/<version>`` and keeps no cookies between requests.

Every client also shares one TLS context (certifi's CA bundle, as httpx's default): building one
loads the CA certificates, 100-200 ms of CPU, and a client made per request on the event loop
stalled every other request that long. The host calls :func:`prepare_outgoing_requests` before it serves, which
builds it and loads what httpcore loads lazily at its first request (anyio's asyncio backend,
another 100-200 ms that the first request of every process used to spend on the event loop).
"""

from __future__ import annotations

import functools
import importlib
import ssl
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any

import httpx

from steward._version import __version__

USER_AGENT = f"steward/{__version__}"
DEFAULT_TIMEOUT = httpx.Timeout(10.0, connect=5.0)


def http_client(**options: Any) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` with Steward's defaults; ``options`` override them (``timeout=``, ``transport=`` …)."""
    headers = {"User-Agent": USER_AGENT, **options.pop("headers", {})}
    settings: dict[str, Any] = {"timeout": DEFAULT_TIMEOUT, "follow_redirects": False, **options}
    if "transport" not in settings:
        settings.setdefault("verify", tls_context())
    refuse_all = CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))
    return httpx.AsyncClient(headers=headers, trust_env=False, cookies=refuse_all, **settings)


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The process's client TLS context: verifying, with certifi's CA bundle; made once (the host
    makes it before it serves), so a transport built on the event loop loads no certificates."""
    return httpx.create_ssl_context(trust_env=False)


def prepare_outgoing_requests() -> None:
    """Do now, once, what the first outgoing request would do on the event loop."""
    tls_context()
    importlib.import_module("anyio._backends._asyncio")
