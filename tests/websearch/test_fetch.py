"""The guarded fetcher against real servers on loopback (127.0.0.2, the only address the test guard allows)."""

import asyncio
import gzip
import ssl
import tracemalloc

import httpcore
import pytest
import trustme
from loopback import TEST_ADDRESS, guard_for, raw_server
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route
from steward_websearch.net.fetch import FetchedPage, Fetcher, FetchFailed, FetchLimits, GuardedNetworkBackend
from steward_websearch.net.guard import Guard, TargetRejected

import steward
from steward.testing import serve_app

pytestmark = pytest.mark.anyio


IN_FLIGHT = {"now": 0, "most": 0}
BOMB = gzip.compress(bytes(100 * 1024 * 1024), compresslevel=9)  # 100 MB of zeros in about 100 kB


class RecordingBackend(httpcore.AsyncNetworkBackend):
    """Records where a socket would go, and never opens one."""

    def __init__(self) -> None:
        self.dialled: list[tuple[str, int]] = []

    async def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        self.dialled.append((host, port))
        raise httpcore.ConnectError("recording only")

    async def sleep(self, seconds):
        await asyncio.sleep(seconds)


async def test_an_answer_that_changes_after_the_check_is_refused_at_connect():
    answers = iter([["93.184.216.34"], ["169.254.169.254"]])

    async def rebinding(host, port):
        return next(answers)

    guard = Guard(resolver=rebinding)
    assert await guard.resolve("rebind.example", 80) == ["93.184.216.34"]
    inner = RecordingBackend()
    with pytest.raises(TargetRejected, match=r"link-local address 169\.254\.169\.254"):
        await GuardedNetworkBackend(guard, inner).connect_tcp("rebind.example", 80)
    assert inner.dialled == []


async def test_the_socket_goes_only_to_the_checked_address():
    async def public(host, port):
        return ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]

    inner = RecordingBackend()
    with pytest.raises(httpcore.ConnectError):
        await GuardedNetworkBackend(Guard(resolver=public), inner).connect_tcp("example.com", 443)
    assert inner.dialled == [("93.184.216.34", 443), ("2606:2800:220:1:248:1893:25c8:1946", 443)]


async def test_unix_sockets_are_refused():
    with pytest.raises(TargetRejected):
        await GuardedNetworkBackend(Guard()).connect_unix_socket("/var/run/docker.sock")


def site() -> Starlette:
    async def hello(request: Request) -> Response:
        return PlainTextResponse(f"hello from {request.headers['host']}")

    async def chain(request: Request) -> Response:
        left = int(request.path_params["left"])
        if left == 0:
            return PlainTextResponse("end of chain")
        return RedirectResponse(f"/chain/{left - 1}", status_code=302)

    async def away(request: Request) -> Response:
        return RedirectResponse(request.query_params["to"], status_code=307)

    async def echo_headers(request: Request) -> Response:
        return PlainTextResponse(
            f"authorization={request.headers.get('authorization')} cookie={request.headers.get('cookie')}"
        )

    async def bomb(request: Request) -> Response:
        return Response(BOMB, headers={"content-encoding": "gzip", "content-type": "text/plain"})

    async def double_gzip(request: Request) -> Response:
        payload = gzip.compress(gzip.compress(b"stacked " * 10))
        return Response(payload, headers={"content-encoding": "gzip, gzip", "content-type": "text/plain"})

    async def huge(request: Request) -> Response:
        async def chunks():
            for _ in range(50 * 16):
                yield b"x" * 65536

        return StreamingResponse(chunks(), media_type="text/plain")

    async def trickle(request: Request) -> Response:
        async def drip():
            for _ in range(30):
                yield b"."
                await asyncio.sleep(1)

        return StreamingResponse(drip(), media_type="text/plain")

    async def slow(request: Request) -> Response:
        IN_FLIGHT["now"] += 1
        IN_FLIGHT["most"] = max(IN_FLIGHT["most"], IN_FLIGHT["now"])
        await asyncio.sleep(0.2)
        IN_FLIGHT["now"] -= 1
        return PlainTextResponse("slow")

    async def set_cookie(request: Request) -> Response:
        response = PlainTextResponse("cookie set")
        response.set_cookie("session", "secret")
        return response

    return Starlette(
        routes=[
            Route("/", hello),
            Route("/chain/{left}", chain),
            Route("/away", away),
            Route("/headers", echo_headers),
            Route("/bomb", bomb),
            Route("/double", double_gzip),
            Route("/huge", huge),
            Route("/trickle", trickle),
            Route("/cookie", set_cookie),
            Route("/slow", slow),
        ]
    )


@pytest.fixture(scope="module")
def server():
    with serve_app(site(), host=TEST_ADDRESS) as base_url:
        yield base_url, int(base_url.rsplit(":", 1)[1])


def fetcher(port: int, answers=None, **limits) -> Fetcher:
    return Fetcher(guard_for(port, answers), FetchLimits(**limits))


async def test_two_names_on_one_address_each_connect_with_their_own_host_header(server):
    _, port = server
    client = fetcher(port, {"a.test": [TEST_ADDRESS], "b.test": [TEST_ADDRESS]})
    first = await client.get(f"http://a.test:{port}/")
    second = await client.get(f"http://b.test:{port}/")
    assert (first.body, second.body) == (f"hello from a.test:{port}".encode(), f"hello from b.test:{port}".encode())
    await client.aclose()


async def test_redirects_are_followed_through_the_guard(server):
    base, port = server
    client = fetcher(port)
    page = await client.follow(f"{base}/chain/5")
    assert (page.body, page.redirects, page.final_url) == (b"end of chain", 5, f"{base}/chain/0")
    with pytest.raises(FetchFailed, match="more than 5 redirects"):
        await client.follow(f"{base}/chain/6")
    for target in (
        "http://127.0.0.1/",
        "http://[::ffff:7f00:1]/",
        f"http://127.0.0.1:{port}/",
        "http://169.254.169.254/",
    ):
        with pytest.raises(TargetRejected):
            await client.follow(f"{base}/away?to={target}")
    single = await client.get(f"{base}/chain/1")
    assert (single.status, single.location) == (302, f"{base}/chain/0")
    await client.aclose()


async def test_credentials_are_dropped_when_the_origin_changes(server):
    base, port = server
    client = fetcher(port, {"other.test": [TEST_ADDRESS]})
    secret = {"Authorization": "Bearer s3cret", "Cookie": "a=b"}
    same = await client.follow(f"{base}/away?to=/headers", headers=secret)
    assert same.body == b"authorization=Bearer s3cret cookie=a=b"
    moved = await client.follow(f"{base}/away?to=http://other.test:{port}/headers", headers=secret)
    assert moved.body == b"authorization=None cookie=None"
    await client.aclose()


async def test_no_cookies_are_kept(server):
    base, port = server
    client = fetcher(port)
    await client.get(f"{base}/cookie")
    page = await client.get(f"{base}/headers")
    assert page.body.endswith(b"cookie=None")
    await client.aclose()


async def test_a_gzip_bomb_stops_at_the_cap_with_flat_memory(server):
    base, port = server
    client = fetcher(port, max_body_bytes=1024 * 1024)
    tracemalloc.start()
    page = await client.get(f"{base}/bomb")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert page.truncated
    assert len(page.body) == 1024 * 1024
    assert peak < 12 * 1024 * 1024
    await client.aclose()


async def test_stacked_encodings_are_undone(server):
    base, port = server
    client = fetcher(port)
    assert (await client.get(f"{base}/double")).body == b"stacked " * 10
    await client.aclose()


async def test_a_50_megabyte_body_is_cut_at_the_cap(server):
    base, port = server
    client = fetcher(port)
    page = await client.get(f"{base}/huge")
    assert page.truncated
    assert len(page.body) == 5 * 1024 * 1024
    assert page.wire_bytes < 6 * 1024 * 1024
    await client.aclose()


async def test_a_trickle_hits_the_overall_deadline(server):
    """The trickle would take 30 s, each byte well inside the read timeout: only the deadline ends it."""
    base, port = server
    client = fetcher(port, total_seconds=1.5)
    with pytest.raises(FetchFailed, match=r"longer than 1\.5 s") as failure:
        await client.get(f"{base}/trickle")
    assert failure.value.code == "TIMEOUT"
    await client.aclose()


def answering(response: bytes):
    """A raw server handler that reads one request, writes ``response`` as it is, and hangs up."""

    async def handler(reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        writer.write(response)
        await writer.drain()
        writer.close()

    return handler


async def test_a_lying_content_length_is_a_clear_failure():
    liar = answering(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nonly ten b")
    with raw_server(liar) as port:
        client = fetcher(port)
        with pytest.raises(FetchFailed, match="broke off") as failure:
            await client.get(f"http://{TEST_ADDRESS}:{port}/")
        assert failure.value.code == "UPSTREAM_UNAVAILABLE"
        await client.aclose()


@pytest.mark.parametrize("location", [b"http://[ccpa-preferences]/", b"http://a.test:port/"])
async def test_a_redirect_to_no_url_says_so(location):
    redirect = answering(b"HTTP/1.1 302 Found\r\nLocation: " + location + b"\r\nContent-Length: 0\r\n\r\n")
    with raw_server(redirect) as port:
        client = fetcher(port)
        with pytest.raises(FetchFailed, match="redirected to an address that is not a URL") as failure:
            await client.follow(f"http://{TEST_ADDRESS}:{port}/")
        assert failure.value.code == "UPSTREAM_UNAVAILABLE"
        await client.aclose()


async def test_connection_refused_is_upstream_unavailable():
    client = fetcher(9)
    with pytest.raises(FetchFailed, match="could not connect"):
        await client.get(f"http://{TEST_ADDRESS}:9/")
    await client.aclose()


async def test_tls_keeps_the_name_for_sni_certificate_and_host():
    authority = trustme.CA()
    certificate = authority.issue_cert("steward-test.example")
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    certificate.configure_cert(server_context)
    seen: dict[str, str] = {}
    server_context.sni_callback = lambda connection, name, context: seen.__setitem__("sni", name)

    async def handler(reader, writer):
        head = await reader.readuntil(b"\r\n\r\n")
        host = next(line for line in head.decode().split("\r\n") if line.lower().startswith("host:"))
        seen["host"] = host.split(":", 1)[1].strip()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok")
        await writer.drain()
        writer.close()

    client_context = ssl.create_default_context()
    authority.configure_trust(client_context)
    with raw_server(handler, ssl=server_context) as port:
        client = Fetcher(
            guard_for(port, {"steward-test.example": [TEST_ADDRESS]}), FetchLimits(), verify=client_context
        )
        page = await client.get(f"https://steward-test.example:{port}/")
        assert page.body == b"ok"
        assert seen == {"sni": "steward-test.example", "host": f"steward-test.example:{port}"}
        other = Fetcher(guard_for(port, {"wrong-name.example": [TEST_ADDRESS]}), FetchLimits(), verify=client_context)
        with pytest.raises(FetchFailed, match="certificate"):
            await other.get(f"https://wrong-name.example:{port}/")
        await client.aclose()


def test_location_is_absolute():
    page = FetchedPage(
        url="http://a.test/x/y",
        final_url="",
        status=301,
        headers={"location": "../z"},
        body=b"",
        truncated=False,
        wire_bytes=0,
    )
    assert page.location == "http://a.test/z"


async def most_at_once(*requests) -> int:
    IN_FLIGHT["most"] = 0
    await asyncio.gather(*requests)
    return IN_FLIGHT["most"]


async def test_per_host_and_global_concurrency_caps(server):
    base, port = server
    names = {"a.test": [TEST_ADDRESS], "b.test": [TEST_ADDRESS]}
    per_host = fetcher(port, names, max_per_host=1)
    assert (
        await most_at_once(per_host.get(f"{base}/slow"), per_host.get(f"{base}/slow"), per_host.get(f"{base}/slow"))
        == 1
    )
    assert (
        await most_at_once(per_host.get(f"http://a.test:{port}/slow"), per_host.get(f"http://b.test:{port}/slow")) == 2
    )
    await per_host.aclose()
    overall = fetcher(port, names, max_concurrency=1)
    assert await most_at_once(overall.get(f"http://a.test:{port}/slow"), overall.get(f"http://b.test:{port}/slow")) == 1
    await overall.aclose()


async def test_requests_with_the_same_settings_share_one_fetcher_which_the_host_closes():
    from steward_websearch.net.fetch import fetcher_for

    resources = steward.Resources("websearch")
    first = await fetcher_for(resources, Guard.configured(allowed_networks=["127.0.0.2/32"]), FetchLimits())
    again = await fetcher_for(resources, Guard.configured(allowed_networks=["127.0.0.2/32"]), FetchLimits())
    other = await fetcher_for(resources, Guard.configured(allowed_networks=["127.0.0.3/32"]), FetchLimits())
    assert first is again
    assert other is not first
    elsewhere = await fetcher_for(steward.Resources("websearch"), first.guard, first.limits)
    assert elsewhere is not first, "one per host"
    assert elsewhere.client._transport._pool._ssl_context is first.client._transport._pool._ssl_context, (
        "one TLS context for the process: loading the CA certificates takes 100-200 ms"
    )
    await elsewhere.aclose()
    await resources.aclose()
    assert first.client.is_closed
    assert other.client.is_closed
