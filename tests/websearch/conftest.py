import pytest
from loopback import TEST_ADDRESS
from upstreams import SearxShaped, Site

from steward.testing import Rule, ScriptedModel, serve_app


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


@pytest.fixture(scope="module")
def site_server():
    upstream = Site()
    with serve_app(upstream.app(), host=TEST_ADDRESS) as url:
        yield upstream, url


@pytest.fixture
def site(site_server):
    site_server[0].reset()
    return site_server


@pytest.fixture(scope="module")
def model_server():
    scripted = ScriptedModel(rules=[Rule(r"kettle", text="Kettles boil water quietly (from the page).")])
    with serve_app(scripted.app()) as url:
        yield scripted, url


@pytest.fixture
def model(model_server):
    """The scripted model, answering promptly with an empty request log whatever the last test did."""
    scripted, _ = model_server
    scripted.requests.clear()
    scripted.failure, scripted.delay_seconds = None, 0.0
    return model_server


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
