"""The shipped systemd unit: hardened, yet letting Steward do what it must (limit its own workers)."""

from pathlib import Path

UNIT = (Path(__file__).parents[2] / "contrib" / "systemd" / "steward.service").read_text()


def directives() -> list[tuple[str, str]]:
    lines = [line.strip() for line in UNIT.splitlines() if "=" in line and not line.lstrip().startswith("#")]
    return [tuple(line.split("=", 1)) for line in lines]


def test_refused_system_calls_fail_with_eperm_instead_of_killing_the_service():
    assert ("SystemCallErrorNumber", "EPERM") in directives()


def test_proc_shows_only_processes():
    assert ("ProcSubset", "pid") in directives()


def test_the_isolated_workers_may_set_their_own_limits_after_resources_are_refused():
    filters = [value for name, value in directives() if name == "SystemCallFilter"]
    refused = next(index for index, value in enumerate(filters) if value.startswith("~") and "@resources" in value)
    allowed_again = [value for value in filters[refused + 1 :] if not value.startswith("~")]
    assert any({"setrlimit", "prlimit64"} <= set(value.split()) for value in allowed_again)


def test_the_install_lines_work_on_a_fresh_machine():
    assert "install -D -m 0644 steward.service /etc/systemd/system/steward.service" in UNIT
    assert "journalctl" not in UNIT, "the first key is never in the journal"
