"""steward.http_client: the one way Steward code makes outgoing requests."""

import asyncio
import ssl

import steward
from steward._http_client import tls_context


def test_clients_share_one_verifying_tls_context_and_ignore_the_environment(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9/")

    async def make_two():
        first, second = steward.http_client(), steward.http_client(timeout=3)
        try:
            return first, second
        finally:
            await first.aclose()
            await second.aclose()

    first, second = asyncio.run(make_two())
    contexts = {id(client._transport._pool._ssl_context) for client in (first, second)}
    assert contexts == {id(tls_context())}, "loading CA certificates per client stalled the event loop"
    assert tls_context().verify_mode is ssl.CERT_REQUIRED
    assert tls_context().check_hostname
    assert first._mounts == {}, "no proxy taken from the environment"
    assert first.headers["user-agent"].startswith("steward/")
