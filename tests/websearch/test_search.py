"""web.search against a SearXNG-shaped server on loopback, through the real HTTP API."""

import pytest
import steward_websearch
from steward_websearch.service.search import plain_text

from steward.testing import serve_host


@pytest.fixture
def served(searx, tmp_path):
    _, url = searx
    with serve_host(
        [steward_websearch], data_dir=tmp_path, config={"plugins": {"websearch": {"searxng_url": url}}}
    ) as server:
        server.set_policy("web_search_enabled", True)
        yield server


def search(server, arguments):
    client = server.client(["invoke"], preapproved=["web.search"])
    return client.post("/api/v1/capabilities/web.search/invoke", json={"arguments": arguments})


def test_results_are_cut_to_five_and_cleaned(served, searx):
    upstream, _ = searx
    response = search(served, {"query": "tea in Kyoto", "time_range": "month"})
    assert response.status_code == 200
    result = response.json()["result"]
    assert result["query"] == "tea in Kyoto"
    assert len(result["results"]) == 5
    assert result["result_count"] == 8
    assert result["results"][0] == {
        "title": "Result 0",
        "url": "https://example.org/0",
        "snippet": "Snippet with bold & entities, number 0",
        "found_by": ["searxng"],
    }
    assert upstream.requests == [{"q": "tea in Kyoto", "format": "json", "time_range": "month"}]


def test_needs_confirmation_and_the_policy_flag(served, searx):
    upstream, _ = searx
    client = served.client(["invoke"])
    pending = client.post("/api/v1/capabilities/web.search/invoke", json={"arguments": {"query": "the exact query"}})
    assert pending.status_code == 202
    assert pending.json()["pending_confirmation"]["arguments"] == {"query": "the exact query", "time_range": None}
    assert upstream.requests == []
    token = pending.json()["pending_confirmation"]["token"]
    done = client.post(
        "/api/v1/capabilities/web.search/invoke", json={"confirmation": {"token": token, "approve": True}}
    )
    assert done.status_code == 200
    assert len(upstream.requests) == 1
    served.set_policy("web_search_enabled", False)
    refused = client.post("/api/v1/capabilities/web.search/invoke", json={"arguments": {"query": "x"}})
    assert refused.json()["code"] == "CAPABILITY_DISABLED"


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("all-failed", "every search engine failed (bing, brave, duckduckgo, google)"),
        ("no-json", "add json to search.formats"),
        ("limited", "limiter is on"),
        ("bad-request", "SearXNG refused the query: search error: unknown time_range"),
        ("garbage", "did not answer with search JSON"),
        ("error", "answered HTTP 500"),
    ],
)
def test_searxng_failures_are_failures_never_empty_results(served, searx, mode, message):
    upstream, _ = searx
    upstream.mode = mode
    body = search(served, {"query": "x"}).json()
    assert (body["status"], body["code"]) == ("failed", "UPSTREAM_UNAVAILABLE")
    assert message in body["message"]
    assert body["result"] is None


def test_partial_failures_keep_the_results_and_name_the_engines(served, searx):
    upstream, _ = searx
    upstream.mode = "partial"
    result = search(served, {"query": "x"}).json()["result"]
    assert len(result["results"]) == 2
    assert result["unresponsive_engines"] == ["google"]


def test_no_results_beside_failed_engines_is_an_empty_answer_naming_them(served, searx):
    """One engine that answered with nothing while three failed is no outage: SearXNG's /config says so."""
    upstream, _ = searx
    upstream.mode = "quiet"
    result = search(served, {"query": "x"}).json()["result"]
    assert (result["results"], result["result_count"]) == ([], 0)
    assert result["unresponsive_engines"] == ["bing", "brave", "google"]
    upstream.config_up = False
    try:
        unknown = search(served, {"query": "x"}).json()
    finally:
        upstream.config_up = True
    assert unknown["code"] == "UPSTREAM_UNAVAILABLE"
    assert "did not say whether any other engine answered" in unknown["message"]
    assert "every search engine failed" not in unknown["message"]


@pytest.mark.parametrize(
    ("query", "searched"),
    [
        ("<3 cats", '"<3" cats'),
        ("!!g kettles", '"!!g" kettles'),
        ("!images of kettles", '"!images" of kettles'),
        (":de kettles", '":de" kettles'),
        ("kettles under <50 euro", 'kettles under "<50" euro'),
        ("plain words", "plain words"),
    ],
)
def test_searxng_query_syntax_is_searched_as_text(served, searx, query, searched):
    upstream, _ = searx
    result = search(served, {"query": query}).json()["result"]
    assert result["query"] == query
    assert upstream.searched[-1] == searched


def test_every_time_range_searxng_knows_is_accepted(served, searx):
    upstream, _ = searx
    for time_range in ("day", "week", "month", "year"):
        assert search(served, {"query": "x", "time_range": time_range}).json()["status"] == "ok"
        assert upstream.requests[-1]["time_range"] == time_range


def test_no_results_is_an_honest_empty_answer(served, searx):
    upstream, _ = searx
    upstream.mode = "nothing"
    result = search(served, {"query": "x"}).json()["result"]
    assert (result["results"], result["result_count"]) == ([], 0)


def test_searxng_down(tmp_path):
    config = {"plugins": {"websearch": {"searxng_url": "http://127.0.0.1:9"}}}
    with serve_host([steward_websearch], data_dir=tmp_path, config=config) as server:
        server.set_policy("web_search_enabled", True)
        body = search(server, {"query": "x"}).json()
        health = server.client().get("/healthz").json()
    assert (body["code"], body["status"]) == ("UPSTREAM_UNAVAILABLE", "failed")
    assert "cannot be reached" in body["message"]
    searxng = next(check for check in health["checks"] if check["name"] == "searxng")
    assert searxng["ok"] is False
    assert searxng["detail"].startswith("cannot be reached at http://127.0.0.1:9 (ConnectError); web.search needs")


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"query": ""}, "$.query"),
        ({"query": "x" * 501}, "$.query"),
        ({"query": "x", "time_range": "fortnight"}, "$.time_range"),
        ({"q": "x"}, "q"),
    ],
)
def test_arguments_are_checked_before_anything_leaves(served, searx, arguments, field):
    upstream, _ = searx
    body = search(served, arguments).json()
    assert body["code"] == "INVALID_ARGUMENTS"
    assert field in body["message"]
    assert upstream.requests == []


def test_health_check_and_citations(served):
    health = served.client().get("/healthz").json()
    assert next(check for check in health["checks"] if check["name"] == "searxng")["ok"] is True


def test_plain_text():
    assert plain_text("<p>a <b>b</b>\n\n c &lt;d&gt; &amp;</p>") == "a b c <d> &"
