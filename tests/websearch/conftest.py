import pytest
from upstreams import SearxShaped

from steward.testing import serve_app


@pytest.fixture(scope="module")
def searx():
    """A SearXNG-shaped server on loopback, one per test module; tests set its ``mode``."""
    upstream = SearxShaped()
    with serve_app(upstream.app()) as url:
        yield upstream, url


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
