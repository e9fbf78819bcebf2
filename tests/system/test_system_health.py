"""system.health over the real HTTP API, its figures checked against the machine itself."""

import os
import types
from pathlib import Path

import pytest

import steward
import steward_system
from steward.testing import serve_host
from steward_system.health import read_meminfo, read_uptime, sysinfo


@pytest.fixture
def served(tmp_path):
    with serve_host([steward_system], data_dir=tmp_path) as server:
        yield server


def invoke(server):
    return server.client(["invoke"]).post("/api/v1/capabilities/system.health/invoke", json={"arguments": {}})


def test_runs_automatically_with_real_figures(served, tmp_path):
    response = invoke(served)
    assert response.status_code == 200
    body = response.json()
    assert body["classification"] == {"side_effect": "read_only", "network": "local", "confirmation": "automatic"}
    result = body["result"]
    lines = Path("/proc/meminfo").read_text().splitlines()
    meminfo = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in lines}
    assert result["memory"]["total_bytes"] == meminfo["MemTotal"]
    assert 0 < result["memory"]["available_bytes"] <= result["memory"]["total_bytes"]
    stats = os.statvfs(tmp_path)
    assert result["data_disk"]["total_bytes"] == stats.f_blocks * stats.f_frsize
    assert result["system_uptime_seconds"] >= float(Path("/proc/uptime").read_text().split()[0]) - 5
    assert result["process_uptime_seconds"] >= 0
    assert result["load"]["one_minute"] >= 0
    assert result["plugins"] == ["system"]
    assert result["load_errors"] == []
    assert [(check["plugin"], check["name"]) for check in result["checks"]] == [("steward", "model")]


def test_listed_with_schemas(served):
    capabilities = served.client().get("/api/v1/capabilities").json()["capabilities"]
    health = next(item for item in capabilities if item["name"] == "system.health")
    assert health["policy_key"] is None
    assert health["arguments_schema"]["$defs"]["NoArguments"]["additionalProperties"] is False
    assert "memory" in health["result_schema"]["$defs"]["Health"]["properties"]


def test_includes_dependency_checks_of_other_plugins(tmp_path):
    async def searx_down():
        raise ConnectionError("connection refused to 127.0.0.1:8093")

    async def model_up():
        return "model answers"

    dependencies = types.SimpleNamespace(
        register_health_checks=steward.hookimpl(
            lambda: [steward.HealthCheck("searxng", searx_down), steward.HealthCheck("model", model_up)]
        )
    )
    with serve_host([steward_system, steward.Plugin("deps", dependencies)], data_dir=tmp_path) as server:
        result = invoke(server).json()["result"]
    assert result["status"] == "degraded"
    assert [reason for reason in result["degraded_because"] if reason.startswith("deps")] == [
        "deps's check 'searxng' failed: connection refused to 127.0.0.1:8093"
    ]
    assert [check for check in result["checks"] if check["plugin"] == "deps"] == [
        {"name": "searxng", "plugin": "deps", "ok": False, "detail": "connection refused to 127.0.0.1:8093"},
        {"name": "model", "plugin": "deps", "ok": True, "detail": "model answers"},
    ]


def test_a_fresh_machine_says_why_it_is_degraded(tmp_path):
    """No model, a plugin that cannot load, a policy file nobody can read: each one named, with the way out."""

    def register_capabilities():
        raise ImportError("No module named 'weatherlib'")

    broken = types.SimpleNamespace(register_capabilities=steward.hookimpl(register_capabilities))
    chores = types.SimpleNamespace(
        register_policy_flags=steward.hookimpl(lambda: [steward.PolicyFlag("chores_enabled", "Chores may change.")])
    )
    (tmp_path / "capabilities").mkdir()
    (tmp_path / "capabilities" / "policy.json").write_text("{not json")
    config = {"model": {"base_url": "http://127.0.0.1:9/v1"}}
    plugins = [steward_system, steward.Plugin("weather", broken), steward.Plugin("chores", chores)]
    with serve_host(plugins, data_dir=tmp_path, config=config) as server:
        result = invoke(server).json()["result"]
    assert result["status"] == "degraded"
    load_error, policy_problem, model_check = result["degraded_because"]
    assert load_error.startswith("plugin weather is not in use: ")
    assert "weatherlib" in load_error
    assert "policy.json" in policy_problem
    assert model_check.startswith("steward's check 'model' failed: cannot be reached at http://127.0.0.1:9/v1")
    assert "steward dev-model" in model_check


def test_healthy_means_no_reasons(tmp_path):
    async def up():
        return "fine"

    deps = types.SimpleNamespace(register_health_checks=steward.hookimpl(lambda: [steward.HealthCheck("db", up)]))
    report = steward.HealthReport(status="ok", plugins=["deps"], load_errors=[], problems=[], checks=[])
    assert report.reasons == []
    with serve_host([steward_system, steward.Plugin("deps", deps)], data_dir=tmp_path) as server:
        result = invoke(server).json()["result"]
    assert [check["ok"] for check in result["checks"] if check["plugin"] == "deps"] == [True]
    assert [reason for reason in result["degraded_because"] if "deps" in reason] == []


def test_meminfo_parser_falls_back_to_memfree(tmp_path):
    path = tmp_path / "meminfo"
    path.write_text("MemTotal:       1000 kB\nMemFree:         200 kB\n")
    assert read_meminfo(path) == steward_system.health.Memory(total_bytes=1024000, available_bytes=204800)


def test_refuses_arguments(served):
    response = served.client(["invoke"]).post("/api/v1/capabilities/system.health/invoke", json={"arguments": {"x": 1}})
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_ARGUMENTS")


def test_figures_without_proc_come_from_sysinfo(tmp_path):
    """systemd's ProcSubset=pid hides /proc/meminfo and /proc/uptime; the figures must not vanish."""
    hidden = tmp_path / "hidden"
    from_proc = read_meminfo()
    from_kernel = read_meminfo(hidden)
    assert from_kernel.total_bytes == from_proc.total_bytes
    assert 0 < from_kernel.available_bytes <= from_kernel.total_bytes
    assert abs(read_uptime(hidden) - read_uptime()) < 5
    assert sysinfo().loads[0] / 65536 == pytest.approx(os.getloadavg()[0], abs=1.0)
