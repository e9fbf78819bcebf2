"""The fetch service's admission: global and per-host caps, and a token bucket per key."""

import contextlib

import pytest
from steward_websearch.service.admission import Admission, Busy
from steward_websearch.settings import ServiceSettings

from steward.testing import FakeClock


def admitted(admission: Admission, key: str, host: str | None) -> bool:
    """Whether one more request would get in now (its slot is given back at once)."""
    try:
        with admission.admit(key, host):
            return True
    except Busy:
        return False


def test_caps_count_requests_in_flight_and_free_their_slots():
    admission = Admission(ServiceSettings(max_concurrent=3, max_per_host=2, requests_per_minute=100))
    with contextlib.ExitStack() as held:
        held.enter_context(admission.admit("a", "one.example"))
        held.enter_context(admission.admit("b", "one.example"))
        with pytest.raises(Busy, match=r"already 2 requests in flight to one\.example") as busy:
            held.enter_context(admission.admit("c", "one.example"))
        assert busy.value.retry_after == 1
        held.enter_context(admission.admit("c", "two.example"))
        assert not admitted(admission, "d", None), "three in flight is the global cap"
    assert (admission.in_flight, admission.per_host) == (0, {})
    assert admitted(admission, "a", "one.example")


def test_a_slot_is_freed_when_the_request_fails():
    admission = Admission(ServiceSettings(max_concurrent=1))
    with pytest.raises(RuntimeError), admission.admit("a", "one.example"):
        raise RuntimeError("upstream broke")
    assert admitted(admission, "a", "one.example")


def test_each_key_has_its_own_bucket_refilled_over_time():
    clock = FakeClock()
    admission = Admission(ServiceSettings(requests_per_minute=2), clock=clock)
    assert [admitted(admission, "fleet", None) for _ in range(3)] == [True, True, False]
    with pytest.raises(Busy, match="2 requests per minute") as busy, admission.admit("fleet", None):
        pass
    assert busy.value.retry_after == 30
    assert admitted(admission, "other", None)
    clock.advance(30)
    assert [admitted(admission, "fleet", None) for _ in range(2)] == [True, False]
