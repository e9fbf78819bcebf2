import pytest
from ha_shaped import HomeAssistantShaped

from steward.testing import serve_app


@pytest.fixture(scope="module")
def ha():
    upstream = HomeAssistantShaped()
    with serve_app(upstream.app()) as url:
        yield upstream, url


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
