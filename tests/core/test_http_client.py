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


def test_a_host_loads_before_it_serves_what_the_first_request_would_load_on_the_event_loop(tmp_path):
    import subprocess
    import sys

    program = (
        "import sys; from steward.testing import make_host; "
        f"make_host([], data_dir={str(tmp_path)!r}).close(); "
        "print('anyio._backends._asyncio' in sys.modules)"
    )
    loaded = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "True", "anyio's asyncio backend: 230 ms at the first request otherwise"
