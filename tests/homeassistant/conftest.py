import pytest
from ha_shaped import HomeAssistantShaped

from steward.testing import serve_app


@pytest.fixture(scope="module")
def ha_server():
    upstream = HomeAssistantShaped()
    with serve_app(upstream.app()) as url:
        yield upstream, url


@pytest.fixture
def ha(ha_server):
    """A Home Assistant-shaped server on loopback (one per module), reset for each test."""
    ha_server[0].reset()
    return ha_server


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
