import prometheus_client
from prometheus_client.parser import text_string_to_metric_families

from steward._metrics import Metrics
from steward._outcome import Outcome


def samples(metrics):
    text = prometheus_client.generate_latest(metrics.registry).decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_outcomes_are_counted_by_code_and_timed_into_cumulative_buckets():
    metrics = Metrics()
    for milliseconds in (0.3, 1.0, 2.0, 30_000.0):
        metrics.outcomes.observe(
            Outcome(capability="a.b", version=1, stage="result", status="ok", duration_ms=milliseconds)
        )
    metrics.outcomes.observe(
        Outcome(capability="a.b", version=1, stage="execute", status="failed", code="TIMEOUT", duration_ms=10_000.0)
    )
    metrics.outcomes.observe(Outcome(capability="free text", version=None, stage="resolve", status="rejected"))
    seen = samples(metrics)

    def count(capability, status, code):
        return seen[("steward_outcomes_total", (("capability", capability), ("code", code), ("status", status)))]

    def bucket(stage, le):
        return seen[("steward_invocation_seconds_bucket", (("capability", "a.b"), ("le", le), ("stage", stage)))]

    assert count("a.b", "ok", "") == 4
    assert count("a.b", "failed", "TIMEOUT") == 1
    assert count("<unknown>", "rejected", "") == 1
    assert [bucket("result", le) for le in ("0.0005", "0.001", "0.005", "20.0", "+Inf")] == [1, 2, 3, 3, 4]
    assert bucket("execute", "5.0") == 0
    assert bucket("execute", "10.0") == 1
    result = (("capability", "a.b"), ("stage", "result"))
    assert seen[("steward_invocation_seconds_count", result)] == 4
    assert abs(seen[("steward_invocation_seconds_sum", result)] - 30.0033) < 1e-9
