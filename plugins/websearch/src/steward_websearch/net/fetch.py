"""Fetching pages through the guard, under hard limits, without trusting a single header.

- :class:`GuardedNetworkBackend` is the httpcore network backend: when a connection is opened it
  resolves the name once, checks every answer, and dials the checked address literal. TLS SNI,
  certificate checks and the ``Host`` header keep the original name (httpcore takes them from the
  URL), and the pool stays keyed by name. There is no other way to open a socket from here.
- :class:`Fetcher` adds the limits: one deadline around the whole fetch (httpx's timeouts are per
  operation), a cap on wire bytes *and* on decoded bytes checked per chunk (httpx's decoders have
  no output limit; encodings can be stacked), a global and a per-host concurrency cap, no cookies,
  no proxies from the environment.
- :meth:`Fetcher.follow` follows redirects by hand, at most five hops, each through the whole
  guard, dropping credentials whenever the origin changes.
"""

from __future__ import annotations

import asyncio
import ssl
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import httpcore
import httpx
import msgspec

import steward
from steward_websearch.codes import WebsearchCode
from steward_websearch.net.guard import Guard, TargetRejected

ACCEPT = "text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,text/*;q=0.5"
CREDENTIAL_HEADERS = ("authorization", "cookie", "proxy-authorization")


class FetchFailed(Exception):
    """A fetch that did not produce a page; ``code`` is the outcome code to report."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


@dataclass(frozen=True)
class FetchLimits:
    connect_seconds: float = 5.0
    total_seconds: float = 20.0
    max_body_bytes: int = 5 * 1024 * 1024
    max_concurrency: int = 8
    max_per_host: int = 2
    max_redirects: int = 5


class FetchedPage(msgspec.Struct, kw_only=True):
    url: str
    final_url: str
    status: int
    headers: dict[str, str]
    body: bytes
    truncated: bool
    wire_bytes: int
    redirects: int = 0

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    @property
    def location(self) -> str | None:
        """The absolute redirect target, if this is a redirect."""
        if self.status in (301, 302, 303, 307, 308) and "location" in self.headers:
            return str(httpx.URL(self.url).join(self.headers["location"]))
        return None


class GuardedNetworkBackend(httpcore.AsyncNetworkBackend):
    def __init__(self, guard: Guard, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self.guard = guard
        self.inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await self.guard.resolve(host, port)
        failure: Exception | None = None
        for address in addresses:
            try:
                return await self.inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failure = error
        assert failure is not None
        raise failure

    async def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options=None):
        raise TargetRejected("blocked: unix sockets are never fetched", "unix socket")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class GuardedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport with the guarded backend under it.

    httpx has no public switch for the network backend (encode/httpx#3180, PR #3749), so the pool
    is replaced after construction; everything else (request mapping, exception mapping) is httpx's.
    """

    def __init__(
        self, guard: Guard, *, verify: ssl.SSLContext | bool = True, limits: FetchLimits = FetchLimits()
    ) -> None:
        context = verify if isinstance(verify, ssl.SSLContext) else httpx.create_ssl_context(verify=verify)
        super().__init__(verify=context, trust_env=False)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=context,
            max_connections=limits.max_concurrency,
            max_keepalive_connections=limits.max_concurrency,
            keepalive_expiry=5.0,
            network_backend=GuardedNetworkBackend(guard),
        )


class _BoundedInflate:
    """zlib decompression that never returns more than it is asked for."""

    def __init__(self, wbits: int) -> None:
        self.wbits = wbits
        self._decompressor = zlib.decompressobj(wbits)
        self._first = True

    def decode(self, data: bytes, room: int) -> bytes:
        try:
            output = self._decompressor.decompress(data, room)
        except zlib.error:
            if not (self._first and self.wbits == zlib.MAX_WBITS):
                raise
            self.wbits = -zlib.MAX_WBITS  # "deflate" sent raw, as some servers do
            self._decompressor = zlib.decompressobj(self.wbits)
            output = self._decompressor.decompress(data, room)
        self._first = False
        return output


def _decoders(content_encoding: str) -> list[_BoundedInflate]:
    encodings = [part.strip().lower() for part in content_encoding.split(",") if part.strip()]
    decoders = []
    for encoding in reversed(encodings):
        if encoding in ("gzip", "x-gzip"):
            decoders.append(_BoundedInflate(16 + zlib.MAX_WBITS))
        elif encoding == "deflate":
            decoders.append(_BoundedInflate(zlib.MAX_WBITS))
        elif encoding != "identity":
            raise FetchFailed(steward.Code.UNSUPPORTED_CONTENT_TYPE, f"unsupported content-encoding {encoding!r}")
    return decoders


async def read_capped(response: httpx.Response, limit: int) -> tuple[bytes, bool, int]:
    """(decoded body, truncated, wire bytes): stops as soon as either side passes ``limit``."""
    decoders = _decoders(response.headers.get("content-encoding", ""))
    body = bytearray()
    wire = 0
    async for chunk in response.aiter_raw():
        wire += len(chunk)
        data = chunk[: max(0, limit - (wire - len(chunk)) + 1)]
        try:
            for decoder in decoders:
                data = decoder.decode(data, limit - len(body) + 1)
        except zlib.error:
            raise FetchFailed(steward.Code.EXECUTION_FAILED, "the response body is not validly compressed") from None
        body += data
        if len(body) > limit or wire > limit:
            return bytes(body[:limit]), True, wire
    return bytes(body), False, wire


class Fetcher:
    """One per event loop and configuration; see :func:`fetcher_for`."""

    def __init__(
        self, guard: Guard, limits: FetchLimits = FetchLimits(), *, verify: ssl.SSLContext | bool = True
    ) -> None:
        self.guard = guard
        self.limits = limits
        self.client = steward.http_client(
            transport=GuardedTransport(guard, verify=verify, limits=limits),
            timeout=httpx.Timeout(limits.total_seconds, connect=limits.connect_seconds),
            headers={"Accept": ACCEPT, "Accept-Encoding": "gzip, deflate"},
        )
        self._everyone = asyncio.Semaphore(limits.max_concurrency)
        self._per_host: dict[str, asyncio.Semaphore] = {}

    async def get(self, url: str, headers: Mapping[str, str] | None = None) -> FetchedPage:
        """One GET, no redirects followed; :class:`FetchFailed` for anything that is not a page."""
        target = self.guard.check_url(url)
        try:
            async with asyncio.timeout(self.limits.total_seconds):
                host_slot = self._per_host.setdefault(target.host, asyncio.Semaphore(self.limits.max_per_host))
                async with self._everyone, host_slot:
                    request = self.client.build_request("GET", url, headers=headers)
                    response = await self.client.send(request, stream=True)
                    try:
                        body, truncated, wire = await read_capped(response, self.limits.max_body_bytes)
                    finally:
                        await response.aclose()
        except TargetRejected:
            raise
        except TimeoutError:
            raise FetchFailed(
                steward.Code.TIMEOUT, f"the fetch took longer than {self.limits.total_seconds:g} s"
            ) from None
        except httpx.TimeoutException as error:
            raise FetchFailed(
                steward.Code.TIMEOUT, f"the site did not answer in time ({type(error).__name__})"
            ) from None
        except httpx.ConnectError as error:
            raise FetchFailed(*_connect_failure(error)) from None
        except httpx.HTTPError as error:
            raise FetchFailed(steward.Code.UPSTREAM_UNAVAILABLE, _broken_answer(error)) from None
        return FetchedPage(
            url=url,
            final_url=url,
            status=response.status_code,
            headers={key.lower(): value for key, value in response.headers.items()},
            body=body,
            truncated=truncated,
            wire_bytes=wire,
        )

    async def follow(self, url: str, headers: Mapping[str, str] | None = None) -> FetchedPage:
        """GET, following up to ``max_redirects`` redirects, each hop through the whole guard."""
        current, sent = url, dict(headers or {})
        for hop in range(self.limits.max_redirects + 1):
            page = await self.get(current, sent)
            target = page.location
            if target is None:
                page.url, page.redirects = url, hop
                page.final_url = current
                return page
            if _origin(target) != _origin(current):
                sent = {key: value for key, value in sent.items() if key.lower() not in CREDENTIAL_HEADERS}
            current = target
        raise FetchFailed(WebsearchCode.TOO_MANY_REDIRECTS, f"more than {self.limits.max_redirects} redirects")

    async def aclose(self) -> None:
        await self.client.aclose()


def _origin(url: str) -> tuple[str, str, int | None]:
    parsed = httpx.URL(url)
    return parsed.scheme, parsed.host, parsed.port


def _broken_answer(error: httpx.HTTPError) -> str:
    """What went wrong in an answer that is not HTTP a client can use, for the caller to read."""
    if isinstance(error, httpx.RemoteProtocolError) and "location header" in str(error):
        return "the site redirected to an address that is not a URL"
    return f"the site broke off the response ({type(error).__name__})"


def _connect_failure(error: httpx.ConnectError) -> tuple[str, str]:
    """(code, message) for a failed connection; TLS failures have a code of their own."""
    text = str(error)
    if "CERTIFICATE_VERIFY_FAILED" in text or "SSL" in text:
        return WebsearchCode.TLS_FAILED, "the site's TLS certificate could not be verified"
    if "Name or service not known" in text or "nodename" in text:
        return steward.Code.UPSTREAM_UNAVAILABLE, "the site's name does not resolve"
    return steward.Code.UPSTREAM_UNAVAILABLE, "could not connect to the site"


async def fetcher_for(resources: steward.Resources, guard: Guard, limits: FetchLimits, ca_bundle: str = "") -> Fetcher:
    """This host's fetcher for this configuration on the running loop (pools and semaphores are per loop).

    Keyed by the configuration's values, so every request with the same settings shares one
    connection pool and one set of concurrency caps; the host closes it when it stops.
    """
    tls = steward.tls_context() if not ca_bundle else await _bundle_context(ca_bundle)
    return resources.get(
        ("fetcher", guard, limits, ca_bundle), lambda: Fetcher(guard, limits, verify=tls), per_loop=True
    )


_BUNDLE_CONTEXTS: dict[str, ssl.SSLContext] = {}


async def _bundle_context(ca_bundle: str) -> ssl.SSLContext:
    """One TLS context per configured CA bundle for the whole process, made in a thread: loading
    certificates takes 100-200 ms, which on the event loop stalled every other request (and marked
    the host degraded) at the first fetch. Without a bundle, the host's shared context serves."""
    context = _BUNDLE_CONTEXTS.get(ca_bundle)
    if context is None:
        context = await asyncio.to_thread(ssl.create_default_context, cafile=ca_bundle)
        _BUNDLE_CONTEXTS.setdefault(ca_bundle, context)
    return _BUNDLE_CONTEXTS[ca_bundle]
