"""The plugin's own tests: a real Steward server on loopback, with only this plugin loaded."""

import pytest

import steward_example
from steward.testing import serve_host


@pytest.fixture
def server(tmp_path):
    with serve_host([steward_example], data_dir=tmp_path) as served:
        yield served


def invoke(server, name, arguments):
    return server.client(["invoke"]).post(f"/api/v1/capabilities/{name}/invoke", json={"arguments": arguments})


def test_greet_runs_without_confirmation(server):
    response = invoke(server, "example.greet", {"name": "Ada"})
    assert (response.status_code, response.json()["result"]) == (200, {"text": "Hello, Ada!"})
    assert [record["capability"] for record in server.audit_records()] == ["example.greet"]


def test_arguments_are_checked_before_the_handler_runs(server):
    response = invoke(server, "example.greet", {"name": ""})
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_ARGUMENTS")
