"""The SSRF guard: every destination a model, an agent or a page can influence passes here.

Three layers, each importable on its own for review and tests:

1. :func:`check_url` parses with the parser that makes the request (httpx's) and refuses, with no
   network at all, anything whose meaning could differ between parsers or resolvers: other
   schemes, userinfo (even empty), backslashes, whitespace, control characters, ``%`` in the host,
   IPv6 zone ids, ports not allowed, and numeric hosts that are not canonical dotted quads
   (``2130706433``, ``0x7f.1``, ``127.1``, ``0177.0.0.1``: the system resolver turns them into
   addresses).
2. :func:`check_address` accepts only public unicast addresses, from an explicit table, not from
   ``ipaddress.is_global`` (on Python 3.11 that calls ``192.0.0.192``, ``2002:7f00:1::``,
   multicast and NAT64 forms global).
3. :func:`resolve` checks *every* A/AAAA answer; the connect-time backend in ``fetch`` calls it
   when it dials and dials the checked address itself, so an answer that changes between a check
   and the connection is still refused.

An operator may allow named networks (a LAN service; loopback for tests): explicit configuration,
logged at start-up, never a default.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

import httpx

Resolver = Callable[[str, int], Awaitable[list[str]]]

DNS_TIMEOUT_SECONDS = 5.0

_DENIED_V4 = tuple(
    (ipaddress.IPv4Network(network), reason)
    for network, reason in (
        ("0.0.0.0/8", "unspecified address"),
        ("10.0.0.0/8", "private address"),
        ("100.64.0.0/10", "shared (CGNAT) address"),
        ("127.0.0.0/8", "loopback address"),
        ("169.254.0.0/16", "link-local address"),
        ("172.16.0.0/12", "private address"),
        ("192.0.0.0/24", "IETF protocol address"),
        ("192.0.2.0/24", "documentation address"),
        ("192.88.99.0/24", "6to4 relay address"),
        ("192.168.0.0/16", "private address"),
        ("198.18.0.0/15", "benchmarking address"),
        ("198.51.100.0/24", "documentation address"),
        ("203.0.113.0/24", "documentation address"),
        ("224.0.0.0/4", "multicast address"),
        ("240.0.0.0/4", "reserved address"),
        ("255.255.255.255/32", "broadcast address"),
    )
)

_GLOBAL_UNICAST_V6 = ipaddress.IPv6Network("2000::/3")
_DENIED_V6 = tuple(
    (ipaddress.IPv6Network(network), reason)
    for network, reason in (
        ("2001::/23", "IETF protocol address (Teredo, benchmarking, ORCHID …)"),
        ("2001:db8::/32", "documentation address"),
        # IANA lists 6to4 as not global and RFC 7526 deprecated it; a household never needs it
        ("2002::/16", "6to4 address"),
        ("3fff::/20", "documentation address"),
    )
)

_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")
_CANONICAL_QUAD = re.compile(
    r"^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$"
)
_FORBIDDEN_IN_URL = re.compile(r"[\x00-\x20\x7f\\]")


class TargetRejected(Exception):
    """A destination the guard refuses; the message says why (``blocked: private address 10.0.0.5``)
    and ``reason`` which rule, without the address (``private address``, ``port``, ``url``), for
    metrics and clients that branch on it."""

    def __init__(self, message: str, reason: str = "url") -> None:
        super().__init__(message)
        self.reason = reason


class UnresolvableHost(TargetRejected):
    """A name with no usable DNS answer: nothing can be dialled, so it stops a fetch like a refusal,
    but it is a network failure, not the guard's verdict (``DNS_RESOLUTION_FAILED``, never "blocked")."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "dns")


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    ip: str | None


@dataclass(frozen=True)
class Guard:
    """The guard's policy: which ports, and which networks an operator explicitly allowed."""

    allowed_ports: frozenset[int] = frozenset({80, 443})
    allowed_networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    resolver: Resolver | None = field(default=None, compare=False)

    @classmethod
    def configured(
        cls,
        allowed_ports: Iterable[int] = (80, 443),
        allowed_networks: Iterable[str] = (),
        resolver: Resolver | None = None,
    ) -> Guard:
        return cls(
            frozenset(allowed_ports), tuple(ipaddress.ip_network(network) for network in allowed_networks), resolver
        )

    def check_url(self, url: str) -> Target:
        if not isinstance(url, str) or not url:
            raise TargetRejected("blocked: empty URL")
        if _FORBIDDEN_IN_URL.search(url):
            raise TargetRejected("blocked: whitespace, control characters or backslashes in the URL")
        scheme, separator, rest = url.partition("://")
        if not separator or scheme.lower() not in ("http", "https"):
            raise TargetRejected("blocked: only http and https URLs can be fetched")
        authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
        if "@" in authority:
            raise TargetRejected("blocked: credentials (userinfo) in the URL")
        if "%" in authority:
            raise TargetRejected("blocked: percent-encoding or a zone id in the host")
        try:
            parsed = httpx.URL(url)
        except (httpx.InvalidURL, ValueError) as error:
            raise TargetRejected(f"blocked: not a valid URL ({error})") from None
        host = parsed.raw_host.decode("ascii").lower()
        if not host:
            raise TargetRejected("blocked: the URL names no host")
        port = parsed.port if parsed.port is not None else (443 if parsed.scheme == "https" else 80)
        if port not in self.allowed_ports:
            raise TargetRejected(f"blocked: port {port} is not allowed", "port")
        if host.startswith("["):
            host = host[1:-1]
        ip = _ip_literal(host)
        if ip is None:
            host = host.rstrip(".")
            labels = host.split(".")
            if not host or any(not label for label in labels):
                raise TargetRejected("blocked: the host has an empty label")
            if _NUMERIC_LABEL.match(labels[-1]):
                if not _CANONICAL_QUAD.match(host):
                    raise TargetRejected(f"blocked: numeric host {host!r} is not a canonical dotted-quad address")
                ip = host
        if ip is not None:
            self.check_address(ip)
        return Target(scheme=parsed.scheme, host=host, port=port, ip=ip)

    def check_address(self, ip: str) -> None:
        try:
            address = ipaddress.ip_address(ip)
        except ValueError:
            raise TargetRejected(f"blocked: {ip!r} is not an IP address") from None
        if any(address in network for network in self.allowed_networks if network.version == address.version):
            return
        reason = refusal_reason(address)
        if reason is not None:
            raise TargetRejected(f"blocked: {reason} {address}", reason)

    async def resolve(self, host: str, port: int, resolver: Resolver | None = None) -> list[str]:
        ip = _ip_literal(host.strip("[]"))
        if ip is not None:
            self.check_address(ip)
            return [ip]
        resolver = resolver or self.resolver or system_resolver
        try:
            async with asyncio.timeout(DNS_TIMEOUT_SECONDS):
                answers = await resolver(host, port)
        except TimeoutError:
            raise UnresolvableHost(f"no DNS answer for {host} within {DNS_TIMEOUT_SECONDS:g} s") from None
        except OSError as error:
            raise UnresolvableHost(f"{host} does not resolve ({error.strerror or error})") from None
        if not answers:
            raise UnresolvableHost(f"{host} has no addresses")
        for answer in answers:
            try:
                self.check_address(answer)
            except TargetRejected as error:
                raise TargetRejected(f"{error} (an address of {host})", error.reason) from None
        return list(dict.fromkeys(answers))


def refusal_reason(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why ``address`` is not public unicast, or ``None`` when it is."""
    if address.version == 4:
        for network, reason in _DENIED_V4:
            if address in network:
                return reason
        return None
    if address not in _GLOBAL_UNICAST_V6:
        if address.ipv4_mapped is not None:
            return "IPv4-mapped address"
        return "non-global IPv6 address (loopback, unique-local, link-local, multicast, NAT64, mapped …)"
    for network, reason in _DENIED_V6:
        if address in network:
            return reason
    return None


def _ip_literal(host: str) -> str | None:
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return None


async def system_resolver(host: str, port: int) -> list[str]:
    """Every A and AAAA answer of the system resolver (off the event loop)."""
    loop = asyncio.get_running_loop()
    answers = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return [str(answer[4][0]) for answer in answers]


DEFAULT_GUARD = Guard()


def check_url(url: str) -> Target:
    """Parse and check ``url`` with no network; raises :class:`TargetRejected`."""
    return DEFAULT_GUARD.check_url(url)


def check_address(ip: str) -> None:
    """Raise :class:`TargetRejected` unless ``ip`` is a public unicast address."""
    DEFAULT_GUARD.check_address(ip)


async def resolve(host: str, port: int, resolver: Resolver | None = None) -> list[str]:
    """Every A/AAAA address of ``host``; :class:`TargetRejected` if none, or if any is refused."""
    return await DEFAULT_GUARD.resolve(host, port, resolver)
