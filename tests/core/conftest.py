from collections.abc import Iterator

import pytest
from sample_plugin import SamplePlugin

import steward
from steward.testing import FakeClock, ServedHost, make_host, serve_host


@pytest.fixture
def sample() -> SamplePlugin:
    return SamplePlugin()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def host(sample, clock, tmp_path) -> Iterator[steward.Host]:
    built = make_host([steward.Plugin("sample", sample)], data_dir=tmp_path / "data", clock=clock)
    yield built
    built.close()


@pytest.fixture
def served(sample, clock, tmp_path) -> Iterator[ServedHost]:
    with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path / "data", clock=clock) as server:
        yield server
