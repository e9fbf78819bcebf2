import pytest
from upstreams import SearxShaped

from steward.testing import serve_app


@pytest.fixture(scope="module")
def searx_server():
    upstream = SearxShaped()
    with serve_app(upstream.app()) as url:
        yield upstream, url


@pytest.fixture
def searx(searx_server):
    """A SearXNG-shaped server on loopback (one per module), reset for each test; tests set its ``mode``."""
    searx_server[0].reset()
    return searx_server


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
