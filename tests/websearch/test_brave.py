"""A second search backend, Brave's LLM Context API, against a Brave-shaped server on loopback."""

import json
import logging

import pytest
import steward_websearch
from click.testing import CliRunner
from steward_websearch.service.search import canonical_url
from test_service import SERVICE_KEY
from upstreams import BRAVE_KEY, BraveShaped

from steward._cli import cli
from steward.testing import serve_app, serve_host


@pytest.fixture(scope="module")
def brave_server():
    upstream = BraveShaped()
    with serve_app(upstream.app()) as url:
        yield upstream, url


@pytest.fixture
def brave(brave_server):
    brave_server[0].reset()
    return brave_server


@pytest.fixture
def served(brave, searx, tmp_path):
    config = {"plugins": {"websearch": {"searxng_url": searx[1], "brave_url": brave[1]}}}
    with serve_host([steward_websearch], data_dir=tmp_path, config=config) as server:
        server.set_policy("web_search_enabled", True)
        yield server


def set_key(served, key=BRAVE_KEY):
    if "websearch" not in cli.commands:
        steward_websearch.register_commands(cli)
    result = CliRunner().invoke(cli, ["--data-dir", str(served.host.data_dir), "websearch", "set-brave-key"], input=key)
    assert result.exit_code == 0, result.output
    assert key not in result.output


def web_search(served, arguments):
    client = served.client(["invoke"], preapproved=["web.search"])
    return client.post("/api/v1/capabilities/web.search/invoke", json={"arguments": arguments}).json()


def test_without_a_key_brave_is_never_asked(served, brave):
    result = web_search(served, {"query": "kettles"})["result"]
    assert all(hit["found_by"] == ["searxng"] for hit in result["results"])
    assert brave[0].requests == []


def test_both_backends_merged_deduplicated_and_each_hit_names_its_finders(served, brave):
    set_key(served)
    body = served.client(**SERVICE_KEY).post("/v1/search", json={"query": "kettles", "k": 20}).json()
    by_url = {hit["url"]: hit for hit in body["results"]}
    page_one = [hit for hit in body["results"] if canonical_url(hit["url"]) == "example.org/1"]
    assert len(page_one) == 1, "found by both, listed once"
    assert page_one[0]["found_by"] == ["brave", "searxng"]
    assert by_url["https://brave.example/kettles"]["found_by"] == ["brave"]
    assert by_url["https://brave.example/kettles"]["title"] == "Kettles, grounded"
    assert by_url["https://brave.example/kettles"]["source"] == "brave_llm"
    assert by_url["https://brave.example/kettles"]["chunks"] == ["A kettle boils water.", '{"table":[["watts",2200]]}']
    assert (by_url["https://example.org/0"]["source"], by_url["https://example.org/0"]["engine"]) == (
        "searxng",
        "duckduckgo",
    )
    assert by_url["https://example.org/0"]["found_by"] == ["searxng"]
    assert len(body["results"]) == 9
    assert body["warnings"] == []
    assert brave[0].requests[-1]["q"] == "kettles"


def test_one_backend_failing_is_a_warning_and_both_an_outage(served, brave, searx):
    set_key(served)
    brave[0].mode = "down"
    result = web_search(served, {"query": "kettles"})["result"]
    assert len(result["results"]) == 5
    assert "Brave" in result["warnings"][0]
    assert "HTTP 500" in result["warnings"][0]
    brave[0].mode, searx[0].mode = "ok", "error"
    only_brave = web_search(served, {"query": "kettles"})["result"]
    assert [hit["found_by"] for hit in only_brave["results"]] == [["brave"], ["brave"]]
    assert "SearXNG" in only_brave["warnings"][0]
    brave[0].mode = "down"
    both = web_search(served, {"query": "kettles"})
    assert both["code"] == "UPSTREAM_UNAVAILABLE"
    assert "both search backends failed" in both["message"]
    firecrawl = served.client(**SERVICE_KEY).post("/v2/search", json={"query": "kettles"})
    assert firecrawl.status_code == 503, "an outage, not a bug (500), and never the 502 the SDK retries"
    assert firecrawl.json()["success"] is False
    assert "both search backends failed" in firecrawl.json()["error"]


def test_a_wrong_key_is_named_but_never_shown(served, brave, caplog):
    set_key(served, "BSA-wrong-key")
    with caplog.at_level(logging.DEBUG):
        result = web_search(served, {"query": "kettles"})
    assert "refused the subscription key (401)" in result["result"]["warnings"][0]
    everything = json.dumps(result) + caplog.text + served.host.audit.path.read_text()
    assert "BSA-wrong-key" not in everything
    key_file = served.host.data_dir / "secrets" / "websearch" / "brave-api-key"
    assert oct(key_file.stat().st_mode & 0o777) == "0o600"


def test_time_ranges_become_brave_freshness(served, brave):
    set_key(served)
    for time_range, freshness in (("day", "pd"), ("week", "pw"), ("month", "pm"), ("year", "py")):
        web_search(served, {"query": "kettles", "time_range": time_range})
        assert brave[0].requests[-1]["freshness"] == freshness


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("https://www.example.org/a/", "http://example.org/a"),
        ("https://example.org/a?utm_source=x&id=3", "https://example.org/a?id=3"),
        ("https://example.org/a?b=2&a=1", "https://example.org/a?a=1&b=2"),
        ("https://EXAMPLE.org/a#part", "https://example.org/a"),
    ],
)
def test_canonical_urls_equal_what_is_the_same_page(one, other):
    assert canonical_url(one) == canonical_url(other)


def test_canonical_urls_keep_what_makes_pages_differ():
    assert canonical_url("https://example.org/a?id=3") != canonical_url("https://example.org/a?id=4")
    assert canonical_url("https://example.org/A") != canonical_url("https://example.org/a")
