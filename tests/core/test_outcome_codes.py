"""Outcome codes have one home: a plugin declares each once, with its status, and every route uses it."""

import logging
import types

import msgspec
import pytest

import steward
from steward import _codes as codes
from steward.testing import make_host, serve_host


class Empty(msgspec.Struct):
    pass


class ChoreCode(steward.OutcomeCode):
    CHORE_LIST_FULL = "CHORE_LIST_FULL", 409, "The chore list holds its maximum of chores."
    CHORE_SERVICE_ASLEEP = "CHORE_SERVICE_ASLEEP", 503, "The chore service sleeps at night."


def chores_plugin(*families: type) -> types.SimpleNamespace:
    async def add(arguments, context):
        raise steward.CapabilityError(ChoreCode.CHORE_LIST_FULL, "the list holds 50 chores", details={"limit": 50})

    def refuse_at_night(arguments, context):
        return steward.Rejection(ChoreCode.CHORE_SERVICE_ASLEEP, "asleep until 06:00", details={"until": "06:00"})

    async def undeclared(arguments, context):
        raise steward.CapabilityError("NEVER_DECLARED_ANYWHERE", "a code of nobody's")

    def capability(name, handler, **extra):
        return steward.Capability(name, 1, "A chore.", Empty, Empty, "read_only", "local", handler, **extra)

    @steward.hookimpl
    def register_outcome_codes():
        return list(families)

    @steward.hookimpl
    def register_capabilities():
        return [
            capability("chores.add", add),
            capability("chores.tonight", add, policy_check=refuse_at_night),
            capability("chores.odd", undeclared),
        ]

    return types.SimpleNamespace(
        register_outcome_codes=register_outcome_codes, register_capabilities=register_capabilities
    )


def test_members_are_codes_with_their_status():
    assert ChoreCode.CHORE_LIST_FULL == "CHORE_LIST_FULL"
    assert (ChoreCode.CHORE_LIST_FULL.status, steward.Code.TIMEOUT.status) == (409, 504)
    assert steward.Code.INVALID_ARGUMENTS.description


@pytest.mark.parametrize(
    ("value", "status", "problem"),
    [("lower_case", 400, "UPPER_SNAKE_CASE"), ("FINE_NAME", 99, "from 200 to 599"), ("FINE_NAME", True, "200 to 599")],
)
def test_a_bad_member_fails_where_it_is_written(value, status, problem):
    with pytest.raises(ValueError, match=problem):
        steward.OutcomeCode("Bad", [("FINE_NAME", (value, status, ""))])


def test_declared_status_and_details_reach_the_caller(tmp_path):
    with serve_host([steward.Plugin("chores", chores_plugin(ChoreCode))], data_dir=tmp_path) as server:
        client = server.client(["invoke", "settings"])
        failed = client.post("/api/v1/capabilities/chores.add/invoke", json={"arguments": {}})
        refused = client.post("/api/v1/capabilities/chores.tonight/invoke", json={"arguments": {}})
        plugins = client.get("/api/v1/plugins").json()["plugins"]
    assert failed.status_code == 409
    assert failed.json()["error"] == {
        "code": "CHORE_LIST_FULL",
        "message": "the list holds 50 chores",
        "details": {"limit": 50},
    }
    assert failed.json()["details"] == {"limit": 50}
    assert (refused.status_code, refused.json()["error"]["details"]) == (503, {"until": "06:00"})
    chores = next(plugin for plugin in plugins if plugin["name"] == "chores")
    assert chores["outcome_codes"] == ["CHORE_LIST_FULL", "CHORE_SERVICE_ASLEEP"]


def test_a_declared_code_is_known_by_its_string_alone(tmp_path):
    """After a process boundary (an isolated worker, a shared store) a code is a plain string."""
    host = make_host([steward.Plugin("chores", chores_plugin(ChoreCode))], data_dir=tmp_path)
    assert steward.http_status("CHORE_SERVICE_ASLEEP") == 503
    host.close()


def test_an_undeclared_code_answers_502_and_is_logged(tmp_path, caplog):
    plugin = steward.Plugin("chores", chores_plugin(ChoreCode))
    with serve_host([plugin], data_dir=tmp_path) as server, caplog.at_level(logging.WARNING, logger="steward.codes"):
        response = server.client(["invoke"]).post("/api/v1/capabilities/chores.odd/invoke", json={"arguments": {}})
    assert (response.status_code, response.json()["code"]) == (502, "NEVER_DECLARED_ANYWHERE")
    assert "NEVER_DECLARED_ANYWHERE was never declared" in caplog.text
    assert "details" not in response.json()["error"]


def test_a_code_that_clashes_is_a_load_error_and_the_rest_loads(tmp_path):
    class Clashing(steward.OutcomeCode):
        TIMEOUT = "TIMEOUT", 408, "Ours."

    class Misnamed(steward.OutcomeCode):
        SPELT_ONE_WAY = "SPELT_ANOTHER_WAY", 400, "Mismatch."

    host = make_host([steward.Plugin("chores", chores_plugin(ChoreCode, Clashing, Misnamed, str))], data_dir=tmp_path)
    messages = [error.message for error in host.load_errors]
    host.close()
    assert (
        "outcome codes: TIMEOUT is already declared by Code (status 504); reuse that code or pick another name"
        in messages
    )
    assert "outcome codes: Misnamed.SPELT_ONE_WAY must be spelt as its value 'SPELT_ANOTHER_WAY'" in messages
    assert "outcome codes: <class 'str'> is not a steward.OutcomeCode subclass" in messages
    assert steward.http_status("TIMEOUT") == 504
    assert codes.declared("SPELT_ANOTHER_WAY") is None
    assert len(host.registry) == 3
