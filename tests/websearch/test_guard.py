"""The guard against every known way around it; no test here touches the network (resolvers are injected)."""

import asyncio

import pytest
from steward_websearch.net import guard
from steward_websearch.net.guard import Guard, TargetRejected, UnresolvableHost, check_address, check_url, resolve

REFUSED_URLS = [
    # schemes
    "ftp://example.com/",
    "file:///etc/passwd",
    "gopher://example.com/",
    "javascript:alert(1)",
    "data:text/html,<b>x</b>",
    "ws://example.com/",
    "//example.com/",
    "example.com",
    "httpx://example.com/",
    # userinfo, even empty, and tricks built on it
    "http://user:pass@example.com/",
    "http://@example.com/",
    "http://user@example.com/",
    "http://example.com@127.0.0.1/",
    "http://example.com:80@10.0.0.1/",
    "http://example.com%40127.0.0.1/",
    "http://127.0.0.1#@example.com/",
    "http://127.0.0.1?@example.com/",
    # parser differentials: backslashes, whitespace, control characters
    "http://example.com\\@127.0.0.1/",
    "http://127.0.0.1\\@example.com/",
    "http:\\\\127.0.0.1\\",
    "http://exa mple.com/",
    " http://example.com/",
    "http://example.com/\n",
    "http://example.com\t/",
    "http://ex\x00ample.com/",
    "http://example.com\x7f/",
    "http://example.com\r\nHost: 127.0.0.1/",
    # percent-encoding and zone ids in the host
    "http://ex%41mple.com/",
    "http://127.0.0.1%2e/",
    "http://%31%32%37.0.0.1/",
    "http://[fe80::1%25eth0]/",
    "http://[fe80::1%eth0]/",
    # ports
    "http://example.com:22/",
    "http://example.com:8080/",
    "https://example.com:0/",
    "http://example.com:65536/",
    "http://example.com:-1/",
    "http://example.com:6379/",
    # numeric hosts that the system resolver would turn into addresses
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0x7f.1/",
    "http://127.1/",
    "http://127.0.1/",
    "http://0177.0.0.1/",
    "http://017700000001/",
    "http://0/",
    "http://0x0a.0.0.1/",
    "http://10.0.0.010/",
    "http://1.2.3.4.5/",
    "http://4294967295/",
    "http://example.123/",
    "http://0x/",
    "http://08.8.8.8/",
    # loopback, private and special IPv4 literals
    "http://127.0.0.1/",
    "http://127.255.255.254/",
    "http://10.0.0.5/",
    "http://172.16.0.1/",
    "http://172.31.255.255/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.64.0.1/",
    "http://100.127.255.255/",
    "http://0.0.0.0/",
    "http://224.0.0.1/",
    "http://239.255.255.250/",
    "http://240.0.0.1/",
    "http://255.255.255.255/",
    "http://192.0.0.192/",
    "http://192.0.0.8/",
    "http://192.0.2.1/",
    "http://198.51.100.7/",
    "http://203.0.113.9/",
    "http://198.18.0.1/",
    "http://198.19.255.255/",
    "http://192.88.99.1/",
    # IPv6 literals: loopback, unspecified, every embedding of a refused IPv4, non-global ranges
    "http://[::1]/",
    "http://[::]/",
    "http://[0:0:0:0:0:0:0:1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::ffff:10.0.0.1]/",
    "http://[::127.0.0.1]/",
    "http://[::ffff:0:7f00:1]/",
    "http://[64:ff9b::7f00:1]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[64:ff9b:1::a00:1]/",
    "http://[2002:7f00:1::]/",
    "http://[2002:5db8:d822::1]/",
    "http://[2002:808:808::1]/",
    "http://[2002:a00:5::1]/",
    "http://[2002:c0a8:101::]/",
    "http://[2002:a9fe:a9fe::]/",
    "http://[2001::1]/",
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
    "http://[2001:db8::1]/",
    "http://[2001:2::1]/",
    "http://[2001:10::1]/",
    "http://[3fff::1]/",
    "http://[fc00::1]/",
    "http://[fd00::1]/",
    "http://[fd7a:115c:a1e0::1]/",
    "http://[fe80::1]/",
    "http://[fec0::1]/",
    "http://[ff02::1]/",
    "http://[ff05::1:3]/",
    "http://[100::1]/",
    "http://[5f00::1]/",
    # IDNA and look-alike dots that normalise to refused addresses
    "http://127。0。0。1/",
    "http://127．0．0．1/",
    "http://127｡0｡0｡1/",
    "http://①②⑦.0.0.1/",
    "http://127.0.0.1./",
    "http://10.0.0.1../",
    # hosts that are not hosts
    "http:///path",
    "http://:80/",
    "http://a..b/",
    "http://./",
    "",
]

ALLOWED_URLS = [
    ("http://example.com/", "example.com", 80, None),
    ("https://example.com/path?q=1#top", "example.com", 443, None),
    ("HTTP://EXAMPLE.COM/", "example.com", 80, None),
    ("http://example.com./", "example.com", 80, None),
    ("https://example.com:443/", "example.com", 443, None),
    ("http://93.184.216.34/", "93.184.216.34", 80, "93.184.216.34"),
    ("http://8.8.8.8/", "8.8.8.8", 80, "8.8.8.8"),
    ("http://[2606:4700:4700::1111]/", "2606:4700:4700::1111", 80, "2606:4700:4700::1111"),
    ("http://例え.jp/", "xn--r8jz45g.jp", 80, None),
    ("http://xn--r8jz45g.jp/", "xn--r8jz45g.jp", 80, None),
    ("http://sub.domain-with-dash.example.org/a/b", "sub.domain-with-dash.example.org", 80, None),
    ("http://127.0.0.1.nip.io/", "127.0.0.1.nip.io", 80, None),
]


@pytest.mark.parametrize("url", REFUSED_URLS)
def test_refused_before_any_network(url):
    with pytest.raises(TargetRejected, match=r"^blocked: "):
        check_url(url)


@pytest.mark.parametrize(("url", "host", "port", "ip"), ALLOWED_URLS)
def test_public_controls_pass(url, host, port, ip):
    target = check_url(url)
    assert (target.host, target.port, target.ip) == (host, port, ip)
    assert target.scheme in ("http", "https")


def test_reason_names_the_address():
    with pytest.raises(TargetRejected, match=r"^blocked: private address 10\.0\.0\.5$"):
        check_url("http://10.0.0.5/")
    with pytest.raises(TargetRejected, match=r"blocked: link-local address 169\.254\.169\.254"):
        check_address("169.254.169.254")
    with pytest.raises(TargetRejected, match=r"6to4 address 2002:808:808::1"):
        check_address("2002:808:808::1")


@pytest.mark.parametrize(
    "address",
    [
        "10.1.2.3",
        "127.0.0.53",
        "::1",
        "fd7a:115c:a1e0:ab12::1",
        "64:ff9b::808:808",
        "::ffff:8.8.8.8",
        "224.0.0.251",
        "ff02::fb",
        "not an ip",
    ],
)
def test_check_address_refuses(address):
    with pytest.raises(TargetRejected):
        check_address(address)


@pytest.mark.parametrize("address", ["1.1.1.1", "93.184.216.34", "2606:4700::6810:85e5", "2a00:1450:4001:80b::200e"])
def test_check_address_accepts_public_unicast(address):
    check_address(address)


def fixed(answers):
    async def resolver(host, port):
        return list(answers)

    return resolver


WILDCARD_NAMES = [
    ("127.0.0.1.nip.io", ["127.0.0.1"]),
    ("10.0.0.1.sslip.io", ["10.0.0.1"]),
    ("localtest.me", ["127.0.0.1", "::1"]),
    ("169.254.169.254.nip.io", ["169.254.169.254"]),
    ("metadata.google.internal", ["169.254.169.254"]),
    ("mixed.example", ["93.184.216.34", "10.0.0.1"]),
    ("mixed6.example", ["2606:4700::1", "fd00::1"]),
    ("mapped.example", ["::ffff:127.0.0.1"]),
    ("nat64.example", ["64:ff9b::a9fe:a9fe"]),
    ("tailnet.example", ["100.100.100.100"]),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("host", "answers"), WILDCARD_NAMES)
async def test_resolve_refuses_if_any_answer_is_refused(host, answers):
    with pytest.raises(TargetRejected, match=r"^blocked: "):
        await resolve(host, 80, resolver=fixed(answers))


@pytest.mark.anyio
async def test_resolve_returns_every_public_answer_once():
    assert await resolve("multi.example", 443, resolver=fixed(["1.1.1.1", "2606:4700::1", "1.1.1.1"])) == [
        "1.1.1.1",
        "2606:4700::1",
    ]


@pytest.mark.anyio
async def test_a_name_with_no_addresses_is_unresolvable_not_blocked():
    with pytest.raises(UnresolvableHost, match=r"^empty.example has no addresses$"):
        await resolve("empty.example", 80, resolver=fixed([]))


@pytest.mark.anyio
async def test_resolve_reports_resolver_failures_and_slowness(monkeypatch):
    async def failing(host, port):
        raise OSError(-2, "Name or service not known")

    with pytest.raises(TargetRejected, match="does not resolve"):
        await resolve("nowhere.example", 80, resolver=failing)

    async def slow(host, port):
        await asyncio.sleep(10)
        return ["1.1.1.1"]

    monkeypatch.setattr(guard, "DNS_TIMEOUT_SECONDS", 0.05)
    with pytest.raises(TargetRejected, match="no DNS answer"):
        await resolve("slow.example", 80, resolver=slow)


@pytest.mark.anyio
async def test_ip_literals_skip_the_resolver_but_not_the_check():
    async def never(host, port):
        raise AssertionError("resolver called for a literal")

    assert await resolve("93.184.216.34", 80, resolver=never) == ["93.184.216.34"]
    with pytest.raises(TargetRejected):
        await resolve("[::1]", 80, resolver=never)


@pytest.mark.anyio
async def test_allowed_networks_are_explicit_and_narrow():
    lan = Guard.configured(allowed_ports=[80, 8123], allowed_networks=["192.168.1.10/32", "127.0.0.0/8"])
    assert lan.check_url("http://192.168.1.10:8123/").ip == "192.168.1.10"
    lan.check_address("127.0.0.1")
    with pytest.raises(TargetRejected):
        lan.check_address("192.168.1.11")
    with pytest.raises(TargetRejected):
        lan.check_address("::1")
    with pytest.raises(TargetRejected):
        lan.check_url("http://192.168.1.10:22/")
    assert await lan.resolve("ha.lan", 8123, resolver=fixed(["192.168.1.10"])) == ["192.168.1.10"]
    assert Guard().allowed_networks == ()
