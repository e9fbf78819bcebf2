"""The OpenAPI document is true of the running server: schemathesis fuzzes every operation of a
server with all bundled plugins for a bounded time, with every check it has, and finds nothing.

It runs in a network namespace that has only loopback (``unshare --net``), so whatever a fuzzed
request makes the server try (a Home Assistant URL it was sent, a page to fetch) reaches nothing
else. tests/core/contract/ holds the driver, the server's configuration and schemathesis's.
"""

import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

import steward
from steward.testing import serve_host

CONTRACT = Path(__file__).parent / "contract"
SECONDS = 45


@pytest.mark.requires("network-namespace")
def test_schemathesis_finds_no_server_error_and_no_contract_failure(tmp_path):
    run = subprocess.run(
        ["unshare", "--net", "--map-root-user", sys.executable, CONTRACT / "run.py", tmp_path, str(SECONDS)],
        capture_output=True,
        text=True,
        timeout=SECONDS + 120,
    )
    summary = run.stdout[run.stdout.rfind("SUMMARY") :][:3000]
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    generated = re.search(r"(\d+) generated, (\d+) passed", summary)
    assert generated, summary
    assert int(generated.group(1)) > 1000, "a real run, not an empty one"
    assert "Failures" not in summary


def test_every_post_requires_a_body_and_refusals_are_documented_in_their_own_shape(sample, tmp_path):
    import steward_websearch

    with serve_host([steward.Plugin("sample", sample), steward_websearch], data_dir=tmp_path) as served:
        document = served.client(["admin"]).get("/openapi.json").json()
    for path, operations in document["paths"].items():
        if "post" in operations:
            body = operations["post"]["requestBody"]
            assert body["required"] is True, path
    scrape_error = document["paths"]["/v2/scrape"]["post"]["responses"]["default"]["content"]["application/json"]
    assert scrape_error["schema"]["$ref"].endswith(".error")
    metrics = document["paths"]["/metrics"]["get"]["responses"]["200"]["content"]
    assert list(metrics) == ["text/plain"]
    policy = document["paths"]["/api/v1/conversation/policy"]["post"]["requestBody"]["content"]["application/json"]
    assert policy["schema"]["additionalProperties"] is False
    assert set(policy["schema"]["properties"]) == {"sample_enabled", "other_enabled", "web_search_enabled"}


def test_405_names_every_method_of_the_path(served):
    response = httpx.request("DELETE", f"{served.base_url}/api/v1/conversation/policy")
    assert response.status_code == 405
    assert set(response.headers["allow"].split(", ")) == {"GET", "HEAD", "POST"}
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
