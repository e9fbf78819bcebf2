"""What an attacker found on the fetch service's isolated workers: jq compiled in the server (files
read at compile time), jobs running to the CPU limit, a pool one caller could hold, work that kept
burning after its client left. Real HTTP on loopback, real worker processes."""

from __future__ import annotations

import asyncio
import concurrent.futures
import time

import httpx
import pytest
import steward_websearch
from test_service import SERVICE_KEY, settings_for

from steward.testing import serve_host

RUNAWAY = "0 | until(false; . + 1)"


@pytest.fixture
def served(site, searx, model, tmp_path):
    _, site_url = site
    config = {
        "plugins": {"websearch": settings_for(site_url, searx[1], model[1])},
        "isolation": {"workers": 2, "job_seconds": 2},
    }
    with serve_host([steward_websearch], data_dir=tmp_path, config=config) as server:
        server.set_policy("web_search_enabled", True)
        yield server


@pytest.mark.parametrize(
    "program",
    [
        'import "/etc/passwd" as p; .',
        'include "/etc/hostname"; .',
        'import "/etc/os-release" as $f; $f',
        '# a comment\n import "x" as m; .',
        '"m" | modulemeta',
    ],
)
def test_jq_may_not_reach_modules_and_says_so_without_a_path(served, site, program):
    _, base = site
    answer = served.client(**SERVICE_KEY).post("/v1/fetch", json={"url": f"{base}/data.json", "jq": program})
    assert answer.status_code == 400
    message = answer.json()["error"]["message"]
    assert "not allowed here" in message
    assert "/etc" not in message
    assert "root:" not in answer.text


def test_jq_is_compiled_in_a_worker_not_in_the_server(served, site, monkeypatch):
    import jq

    def not_here(program):
        raise AssertionError("jq compiled in the server process")

    monkeypatch.setattr(jq, "compile", not_here)
    _, base = site
    agent = served.client(**SERVICE_KEY)
    assert agent.post("/v1/fetch", json={"url": f"{base}/data.json", "jq": ".kettles[0].name"}).status_code == 200
    broken = agent.post("/v1/fetch", json={"url": f"{base}/data.json", "jq": ".kettles[ | nope"})
    assert broken.status_code == 400
    assert "syntax error" in broken.json()["error"]["message"]


def test_a_job_without_a_timeout_ends_at_the_default_deadline(served, site):
    _, base = site
    started = time.monotonic()
    answer = served.client(**SERVICE_KEY).post("/v1/fetch", json={"url": f"{base}/data.json", "jq": RUNAWAY})
    took = time.monotonic() - started
    assert answer.json()["error"]["code"] in ("JQ_FAILED", "TIMEOUT")
    assert took < 10, f"stopped at isolation.job_seconds (2 s), not at the CPU limit (60 s): {took:.1f} s"
    assert served.host.isolated.killed >= 1


def test_one_caller_cannot_hold_the_whole_pool(served, site):
    _, base = site
    greedy, other = served.client(**SERVICE_KEY), served.client(**SERVICE_KEY)
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        runaways = [
            pool.submit(greedy.post, "/v1/fetch", json={"url": f"{base}/data.json", "jq": RUNAWAY}) for _ in range(3)
        ]
        time.sleep(0.5)
        started = time.monotonic()
        answer = other.post("/v1/fetch", json={"url": f"{base}/data.json", "jq": ".kettles[0].name"})
        took = time.monotonic() - started
        for each in runaways:
            each.result()
    assert answer.status_code == 200
    assert took < 1.5, f"the other caller waited {took:.1f} s for a worker"


def test_a_client_that_disconnects_stops_its_job(served, site):
    _, base = site
    key = served.key(**SERVICE_KEY)

    async def leave_early() -> None:
        async with httpx.AsyncClient(base_url=served.base_url, headers={"Authorization": f"Bearer {key}"}) as client:
            with pytest.raises(httpx.ReadTimeout):
                await client.post(
                    "/v1/fetch", json={"url": f"{base}/data.json", "jq": RUNAWAY, "timeout": 60}, timeout=2.0
                )

    asyncio.run(leave_early())
    deadline = time.monotonic() + 3
    while served.host.isolated.killed == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert served.host.isolated.killed == 1, "the worker was killed when its client left, before any deadline"
    records = [record for record in served.audit_records() if record["code"] == "CALLER_GONE"]
    assert len(records) == 1
