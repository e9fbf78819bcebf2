"""The fetch service's native API (/v1/fetch, /v1/search) through the real HTTP app, against
loopback upstreams: a web site with an archive, SearXNG, and a scripted model for digests."""

import concurrent.futures
import logging
import re

import httpx
import pytest
import steward_websearch
from loopback import TEST_ADDRESS
from steward_websearch.service.routes import host_of
from steward_websearch.service.telemetry import Telemetry
from upstreams import ARTICLE

from steward.testing import serve_host

SERVICE_KEY = {"scopes": ["service"], "preapproved": ["web.fetch", "web.search"]}


def settings_for(site_url: str, searx_url: str, model_url: str, **service) -> dict:
    port = int(site_url.rsplit(":", 1)[1])
    return {
        "searxng_url": searx_url,
        "allowed_networks": [f"{TEST_ADDRESS}/32"],
        "allowed_ports": [80, 443, port],
        "digest": {"base_url": f"{model_url}/v1", "timeout": 5},
        "recover": {"wayback_url": site_url, "archives": []},
        "service": service,
    }


@pytest.fixture
def served(site, searx, model, tmp_path):
    _, site_url = site
    config = {"plugins": {"websearch": settings_for(site_url, searx[1], model[1])}}
    with serve_host([steward_websearch], data_dir=tmp_path, config=config) as server:
        server.set_policy("web_search_enabled", True)
        yield server


@pytest.fixture
def agent(served):
    return served.client(**SERVICE_KEY)


def test_clean_fetch_is_compact_marked_untrusted_and_described(agent, site):
    _, base = site
    response = agent.post("/v1/fetch", json={"url": f"{base}/article"})
    assert response.status_code == 200
    body = response.json()
    assert body["mode"] == "clean"
    assert body["untrusted"] is True
    assert body["warnings"] == []
    assert body["content"].startswith("Paragraph 0: a kettle boils water")
    assert "Home" not in body["content"]
    assert "Kettle World" not in body["content"]
    source = body["source"]
    assert (source["url"], source["final_url"], source["status"]) == (f"{base}/article", f"{base}/article", 200)
    assert source["content_type"] == "text/html"
    assert source["cached"] is False
    assert source["bytes"] == len(ARTICLE.encode())
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", source["hash"])
    sizes = body["sizes"]
    assert sizes["returned_tokens"] < sizes["raw_tokens"]
    assert sizes["returned_tokens"] == sizes["clean_tokens"]
    assert body["metadata"]["title"] == "Kettles"
    assert body["metadata"]["description"] == "All about kettles"


def test_raw_mode_returns_the_text_body_and_refuses_binary(agent, site):
    _, base = site
    raw = agent.post("/v1/fetch", json={"url": f"{base}/article", "mode": "raw"}).json()
    assert raw["content"] == ARTICLE
    assert raw["mode"] == "raw"
    image = agent.post("/v1/fetch", json={"url": f"{base}/image", "mode": "raw"})
    assert image.status_code == 415
    assert image.json()["error"]["code"] == "UNSUPPORTED_CONTENT_TYPE"


def test_jq_filters_json_and_bad_filters_are_400_naming_jq(agent, site):
    _, base = site
    names = agent.post("/v1/fetch", json={"url": f"{base}/data.json", "jq": "[.kettles[].name]"}).json()
    assert names["content"] == '[\n  "quiet",\n  "fast"\n]'
    assert names["source"]["content_type"] == "application/json"
    broken = agent.post("/v1/fetch", json={"url": f"{base}/data.json", "jq": ".kettles[ | nope"})
    assert broken.status_code == 400
    assert "jq" in broken.json()["error"]["message"]
    fetched_before = site[0].hits["/data.json"]
    runtime = agent.post("/v1/fetch", json={"url": f"{base}/data.json", "jq": ".kettles.name"})
    assert runtime.status_code == 400
    assert runtime.json()["error"]["code"] == "JQ_FAILED"
    assert "Cannot index array" in runtime.json()["error"]["message"]
    not_json = agent.post("/v1/fetch", json={"url": f"{base}/article", "jq": "."})
    assert not_json.status_code == 400
    assert not_json.json()["error"]["code"] == "JQ_NOT_APPLICABLE"
    assert site[0].hits["/data.json"] == fetched_before, "the broken filter was refused before any fetch"


def test_five_redirects_are_followed_six_are_not_and_private_targets_never(agent, site):
    _, base = site
    five = agent.post("/v1/fetch", json={"url": f"{base}/r/4"}).json()
    assert five["source"]["final_url"] == f"{base}/article"
    assert five["source"]["redirects"] == 5
    six = agent.post("/v1/fetch", json={"url": f"{base}/r/5"})
    assert six.status_code == 502
    assert six.json()["error"]["code"] == "TOO_MANY_REDIRECTS"
    private = agent.post("/v1/fetch", json={"url": f"{base}/to-private"})
    assert private.status_code == 403
    assert private.json()["error"] == {
        "code": "FETCH_TARGET_REJECTED",
        "message": "blocked: private address 10.0.0.5",
        "details": {"reason": "private address"},
    }


def test_guard_refuses_before_any_connection(agent):
    for url, reason in [
        ("http://127.0.0.1/api/v1/capabilities", "loopback"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://0x7f000001/", "numeric host"),
        ("http://user:pw@example.org/", "credentials"),
    ]:
        response = agent.post("/v1/fetch", json={"url": url})
        assert response.status_code == 403, url
        assert reason in response.json()["error"]["message"]


def test_cache_hits_misses_and_no_store(agent, site):
    upstream, base = site
    first = agent.post("/v1/fetch", json={"url": f"{base}/article"}).json()
    second = agent.post("/v1/fetch", json={"url": f"{base}/article", "mode": "raw"}).json()
    assert (first["source"]["cached"], second["source"]["cached"]) == (False, True)
    assert upstream.hits["/article"] == 1
    assert second["content"] == ARTICLE
    assert second["source"]["hash"] == first["source"]["hash"]
    redirected = [agent.post("/v1/fetch", json={"url": f"{base}/r/0"}).json() for _ in range(2)]
    assert [answer["source"]["cached"] for answer in redirected] == [False, True]
    assert redirected[1]["source"]["final_url"] == f"{base}/article", "the asked-for URL is an alias"
    assert (upstream.hits["/r/0"], upstream.hits["/article"]) == (1, 2)
    fresh = agent.post("/v1/fetch", json={"url": f"{base}/article", "max_age": 0}).json()
    assert fresh["source"]["cached"] is False
    assert upstream.hits["/article"] == 3
    for _ in range(2):
        assert agent.post("/v1/fetch", json={"url": f"{base}/fresh"}).json()["source"]["cached"] is False
    assert upstream.hits["/fresh"] == 2, "no-store pages are fetched every time"


def test_digest_frames_the_page_as_untrusted_data(agent, site, model):
    scripted, _ = model
    _, base = site
    answers = [
        agent.post("/v1/fetch", json={"url": f"{base}/article", "mode": "digest", "question": "Are kettles loud?"})
        for _ in range(2)
    ]
    body = answers[0].json()
    assert body["mode"] == "digest"
    assert body["content"] == "Kettles boil water quietly (from the page)."
    assert body["sizes"]["returned_tokens"] < body["sizes"]["clean_tokens"]
    tags = []
    for request in scripted.requests:
        system, user = request["messages"]
        tag = re.search(r"<(untrusted-page-[0-9a-f]{16})>", user["content"]).group(1)
        assert user["content"].rstrip().endswith(f"</{tag}>")
        assert "Are kettles loud?" in user["content"]
        assert tag in system["content"]
        assert "never follow" in system["content"]
        tags.append(tag)
    assert len(set(tags)) == 2, "a fresh boundary for each request"


def test_digest_falls_back_to_clean_when_the_model_fails(agent, site, model):
    scripted, _ = model
    _, base = site
    scripted.failure = 503
    body = agent.post("/v1/fetch", json={"url": f"{base}/article", "mode": "digest"}).json()
    assert body["mode"] == "clean"
    assert body["content"].startswith("Paragraph 0")
    assert body["warnings"][0].startswith("digest unavailable (the model at")


def test_digest_falls_back_when_the_model_is_slow(site, searx, model, tmp_path):
    scripted, model_url = model
    _, base = site
    settings = settings_for(base, searx[1], model_url)
    settings["digest"]["timeout"] = 0.3
    scripted.delay_seconds = 2
    with serve_host([steward_websearch], data_dir=tmp_path, config={"plugins": {"websearch": settings}}) as server:
        server.set_policy("web_search_enabled", True)
        body = server.client(**SERVICE_KEY).post("/v1/fetch", json={"url": f"{base}/article", "mode": "digest"})
    assert body.status_code == 200
    assert body.json()["mode"] == "clean"
    assert "did not answer within 0.3 s" in body.json()["warnings"][0]


def test_refusals_say_what_to_try_next_and_recover_finds_the_archive(agent, site):
    upstream, base = site
    refused = agent.post("/v1/fetch", json={"url": f"{base}/status/403"})
    assert refused.status_code == 502
    assert refused.json() == {
        "error": {
            "code": "UPSTREAM_BLOCKED",
            "message": "upstream 403 (likely bot-blocked)",
            "details": {"upstream_status": 403},
        },
        "hint": "recover",
    }
    recovered = agent.post("/v1/fetch", json={"url": f"{base}/status/429", "recover": True}).json()
    assert recovered["content"].startswith("This archived page about kettles")
    assert "WAYBACK TOOLBAR" not in recovered["content"]
    snapshot = recovered["source"]["snapshot"]
    assert snapshot == {
        "archive": "wayback",
        "url": f"{base}/web/20240102030405id_/{base}/status/429",
        "captured_at": "2024-01-02T03:04:05+00:00",
    }
    assert "archived copy from 2024-01-02" in recovered["warnings"][0]
    upstream.archive_has_copy = False
    nothing = agent.post("/v1/fetch", json={"url": f"{base}/status/403", "recover": True})
    assert nothing.status_code == 502
    assert nothing.json()["hint"] == "browser"
    assert "no archived copy" in nothing.json()["error"]["message"]


def test_other_upstream_failures(agent, site):
    _, base = site
    missing = agent.post("/v1/fetch", json={"url": f"{base}/status/404"})
    assert missing.status_code == 502
    assert missing.json()["error"] == {
        "code": "FETCH_HTTP_ERROR",
        "message": "upstream 404",
        "details": {"upstream_status": 404},
    }
    assert "hint" not in missing.json()
    broken = agent.post("/v1/fetch", json={"url": f"{base}/status/500"})
    assert broken.status_code == 503
    assert broken.json()["error"]["code"] == "UPSTREAM_UNAVAILABLE"


def test_max_tokens_cuts_and_says_so(agent, site):
    _, base = site
    body = agent.post("/v1/fetch", json={"url": f"{base}/article", "max_tokens": 20}).json()
    assert len(body["content"]) <= 80
    assert body["truncated"] is True
    assert body["warnings"] == ["content cut to about 20 tokens"]


def test_search_returns_k_results_with_scores_and_sources(agent, searx):
    upstream, _ = searx
    body = agent.post("/v1/search", json={"query": "kettles", "k": 7}).json()
    assert len(body["results"]) == 7
    first = body["results"][0]
    assert first == {
        "url": "https://example.org/0",
        "title": "Result 0",
        "snippet": "Snippet with bold & entities, number 0",
        "chunks": ["Snippet with bold & entities, number 0"],
        "score": 0.0,
        "source": "searxng",
        "engine": "duckduckgo",
        "found_by": ["searxng"],
    }
    assert "digest" not in body, "no digest unless asked for"
    assert body["sizes"]["returned_tokens"] > 0
    assert body["warnings"] == []
    ranked = agent.post("/v1/search", json={"query": "kettles", "question": "number 6?", "k": 2}).json()
    assert ranked["results"][0]["url"] == "https://example.org/6"
    too_many = agent.post("/v1/search", json={"query": "kettles", "k": 21})
    assert too_many.status_code == 400
    assert "k" in too_many.json()["error"]["message"]
    upstream.mode = "all-failed"
    failed = agent.post("/v1/search", json={"query": "kettles"})
    assert failed.status_code == 503
    assert "every search engine failed" in failed.json()["error"]["message"]


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "url"),
        ({"url": "ftp://example.org/"}, "url"),
        ({"url": "http://example.org/", "mode": "summary"}, "mode"),
        ({"url": "http://example.org/", "surprise": 1}, "surprise"),
    ],
)
def test_bad_requests_are_400_naming_the_field(agent, payload, field):
    response = agent.post("/v1/fetch", json=payload)
    assert response.status_code == 400
    assert field in response.json()["error"]["message"]


def test_auth_scope_and_preapproval(served, site):
    _, base = site
    url = {"url": f"{base}/article"}
    assert served.client(None).post("/v1/fetch", json=url).status_code == 401
    wrong_key = served.client(None, headers={"Authorization": "Bearer stw_nope"})
    assert wrong_key.post("/v1/fetch", json=url).status_code == 401
    wrong_scope = served.client(["invoke"], preapproved=["web.fetch"]).post("/v1/fetch", json=url)
    assert wrong_scope.status_code == 403
    assert "service" in wrong_scope.json()["error"]["message"]
    not_preapproved = served.client(["service"], preapproved=["web.search"]).post("/v1/fetch", json=url)
    assert not_preapproved.status_code == 403
    assert "needs web.fetch pre-approved" in not_preapproved.json()["error"]["message"]
    assert site[0].hits["/article"] == 0


def test_policy_flag_and_audit(served, agent, site):
    _, base = site
    served.set_policy("web_search_enabled", False)
    off = agent.post("/v1/fetch", json={"url": f"{base}/article"})
    assert off.status_code == 403
    assert off.json()["error"]["code"] == "CAPABILITY_DISABLED"
    served.set_policy("web_search_enabled", True)
    assert agent.post("/v1/fetch", json={"url": f"{base}/article?secret=kettle-token"}).status_code == 200
    records = served.audit_records()
    assert [(r["capability"], r["surface"], r["status"]) for r in records] == [
        ("web.fetch", "service", "rejected"),
        ("web.fetch", "service", "started"),
        ("web.fetch", "service", "ok"),
    ]
    assert records[1]["classification"]["confirmation"] == "preapproved"
    assert records[2]["classification"]["confirmation"] == "preapproved"
    assert "kettle-token" not in served.host.audit.path.read_text()


def test_model_and_invoke_surfaces_never_see_the_service_variant(served):
    capabilities = served.client().get("/api/v1/capabilities").json()["capabilities"]
    names = [c["name"] for c in capabilities]
    assert len(names) == len(set(names)), "one name, one entry"
    (fetch,) = [c for c in capabilities if c["name"] == "web.fetch"]
    assert fetch["surfaces"] == ["cli", "conversation", "invoke", "mcp", "service"]
    assert (
        "mode"
        not in fetch["arguments_schema"]["$defs"][fetch["arguments_schema"]["$ref"].rsplit("/", 1)[1]]["properties"]
    )
    (variant,) = fetch["variants"]
    assert variant["surfaces"] == ["service"]
    assert "fetch service" in variant["description"]
    invoke = served.client(["invoke"], preapproved=["web.fetch"]).post(
        "/api/v1/capabilities/web.fetch/invoke", json={"arguments": {"url": "http://example.org/", "mode": "raw"}}
    )
    assert invoke.status_code == 400
    assert "mode" in invoke.json()["error"]["message"]


def test_concurrency_caps_answer_429_with_retry_after(site, searx, model, tmp_path):
    upstream, base = site
    upstream.slow_seconds = 1.5
    settings = settings_for(base, searx[1], model[1], max_concurrent=2, max_per_host=2)
    with serve_host([steward_websearch], data_dir=tmp_path, config={"plugins": {"websearch": settings}}) as server:
        server.set_policy("web_search_enabled", True)
        key = server.key(**SERVICE_KEY)

        def fetch(_):
            with httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {key}"}) as client:
                return client.post("/v1/fetch", json={"url": f"{base}/slow", "max_age": 0})

        with concurrent.futures.ThreadPoolExecutor(5) as pool:
            responses = list(pool.map(fetch, range(5)))
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [200, 200, 429, 429, 429]
    busy = next(response for response in responses if response.status_code == 429)
    assert busy.headers["Retry-After"] == "1"
    assert busy.json()["error"]["code"] == "BUSY"


def test_per_key_rate_limit(site, searx, model, tmp_path):
    _, base = site
    settings = settings_for(base, searx[1], model[1], requests_per_minute=3)
    with serve_host([steward_websearch], data_dir=tmp_path, config={"plugins": {"websearch": settings}}) as server:
        server.set_policy("web_search_enabled", True)
        first, second = server.client(**SERVICE_KEY), server.client(**SERVICE_KEY)
        statuses = [first.post("/v1/search", json={"query": "kettles"}).status_code for _ in range(4)]
        assert statuses == [200, 200, 200, 429]
        limited = first.post("/v1/search", json={"query": "kettles"})
        assert int(limited.headers["Retry-After"]) >= 1
        assert "3 requests per minute" in limited.json()["error"]["message"]
        assert second.post("/v1/search", json={"query": "kettles"}).status_code == 200, "limits are per key"


def test_one_log_line_per_request_without_bodies_or_keys(served, site, caplog):
    _, base = site
    key = served.key(**SERVICE_KEY, name="fleet-7")
    client = httpx.Client(base_url=served.base_url, headers={"Authorization": f"Bearer {key}"})
    with caplog.at_level(logging.INFO, logger="steward.plugins.websearch.service"):
        client.post("/v1/fetch", json={"url": f"{base}/article?q=private-words"})
        client.post("/v1/fetch", json={"url": f"{base}/to-private"})
        served.client(None).post("/v2/scrape", json={"url": f"{base}/article"})
    lines = [record.getMessage() for record in caplog.records if record.name == "steward.plugins.websearch.service"]
    assert len(lines) == 3
    assert lines[2] == "service /v2/scrape key=- host=- status=401 bytes=0 tokens=0/0 cache=- guard=-"
    assert lines[0] == (
        f"service /v1/fetch key=fleet-7 host={TEST_ADDRESS} status=200 bytes={len(ARTICLE.encode())} "
        f"tokens={(len(ARTICLE) + 3) // 4}/{lines[0].split('/')[-1].split(' ')[0]} cache=miss guard=pass"
    )
    assert "status=403" in lines[1]
    assert "guard=blocked (private address)" in lines[1]
    text = "\n".join(lines)
    assert "private-words" not in text
    assert key not in text
    assert "Paragraph" not in text


def test_metrics_count_the_service(served, agent, site):
    _, base = site
    agent.post("/v1/fetch", json={"url": f"{base}/article"})
    agent.post("/v1/fetch", json={"url": f"{base}/article"})
    agent.post("/v1/fetch", json={"url": f"{base}/to-private"})
    agent.post("/v1/fetch", json={"url": f"{base}/status/403"})
    metrics = served.client().get("/metrics").text
    for line in [
        'steward_service_requests_total{route="/v1/fetch",status="200"}',
        'steward_service_cache_lookups_total{result="hit"}',
        'steward_service_cache_lookups_total{result="miss"}',
        'steward_service_guard_blocks_total{reason="private address"}',
        f'steward_service_upstream_refusals_total{{host="{TEST_ADDRESS}",status="403"}}',
        "steward_service_fetched_bytes_total",
        'steward_service_tokens_total{kind="raw"}',
        'steward_service_tokens_total{kind="returned"}',
        "steward_service_digest_fallbacks_total",
    ]:
        assert line in metrics, line
    caller = served.host.keys.records()[0].name
    counted = re.search(rf'steward_service_caller_requests_total{{caller="{caller}",route="/v1/fetch"}} (\S+)', metrics)
    assert float(counted[1]) >= 4, "the process's counters: earlier tests' hosts had keys of this name too"
    raw = re.search(rf'steward_service_caller_tokens_total{{caller="{caller}",kind="raw"}} (\d+)', metrics)
    returned = re.search(rf'steward_service_caller_tokens_total{{caller="{caller}",kind="returned"}} (\d+)', metrics)
    assert 0 < float(returned[1]) < float(raw[1])
    ratio = float(re.search(r"^steward_service_token_ratio (\S+)$", metrics, re.MULTILINE)[1])
    assert 0 < ratio < 1
    assert re.search(r'steward_service_returned_ratio_bucket{le="1.0"} [1-9]', metrics)


def test_caller_labels_are_bounded():
    telemetry = Telemetry()
    labels = {telemetry.caller_label(f"key-{index}") for index in range(150)}
    assert len(labels) == 101
    assert "other" in labels
    assert telemetry.caller_label("key-3") == "key-3", "a caller seen before keeps its label"


def test_bodies_are_capped(agent):
    huge = {"url": "http://example.org/", "question": "x" * (2 << 20)}
    native = agent.post("/v1/fetch", json=huge)
    assert native.status_code == 413
    assert native.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"
    firecrawl = agent.post("/v2/scrape", json={"url": "http://example.org/", "padding": "x" * (2 << 20)})
    assert firecrawl.status_code == 413
    assert firecrawl.json() == {"success": False, "error": "request body exceeds 1048576 bytes"}


def test_recover_tries_the_other_archives_after_the_wayback_machine(site, searx, model, tmp_path):
    upstream, base = site
    upstream.archive_has_copy = False
    settings = settings_for(base, searx[1], model[1])
    settings["recover"]["archives"] = [f"{base}/missing/{{url}}", f"{base}/newest/{{url}}"]
    with serve_host([steward_websearch], data_dir=tmp_path, config={"plugins": {"websearch": settings}}) as server:
        server.set_policy("web_search_enabled", True)
        body = server.client(**SERVICE_KEY).post("/v1/fetch", json={"url": f"{base}/status/403", "recover": True})
    assert body.status_code == 200
    assert body.json()["source"]["snapshot"] == {
        "archive": base.split("/")[2],
        "url": f"{base}/newest/{base}/status/403",
        "captured_at": "2024-05-05T06:07:08+00:00",
    }
    assert body.json()["content"].startswith("This archived page about kettles")


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://Example.ORG:8443/path", "example.org"),
        ("http://[::1]/", "::1"),
        ("http://evil host\u2028x/", ""),
        ("http://a%0Astatus=200/", ""),
        ("not a url", ""),
        (None, ""),
    ],
)
def test_only_host_shaped_text_reaches_logs_and_limits(url, host):
    assert host_of(url) == host


def test_jq_sees_no_environment_of_the_server(agent, site, monkeypatch):
    _, base = site
    monkeypatch.setenv("STEWARD_MODEL__API_KEY", "sk-model-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    program = '$ENV | with_entries(select(.key|test("KEY|TOKEN|SECRET")))'
    response = agent.post("/v1/fetch", json={"url": f"{base}/data.json", "jq": program})
    assert response.status_code == 200
    assert response.json()["content"] == "{}"
    assert "secret" not in response.text
    everything = agent.post("/v1/fetch", json={"url": f"{base}/data.json", "jq": "$ENV | keys"})
    assert "STEWARD" not in everything.text
    assert "OPENAI" not in everything.text


def _while_running(served, agent, request: dict) -> tuple[httpx.Response, list[int]]:
    """Send ``request`` to /v1/fetch and, while it runs, ask /healthz; the server must keep answering."""
    health_answers: list[int] = []
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pending = pool.submit(agent.post, "/v1/fetch", json=request)
        with httpx.Client(base_url=served.base_url, trust_env=False, timeout=30) as anonymous:
            while not pending.done():
                health_answers.append(anonymous.get("/healthz").status_code)
        return pending.result(), health_answers


def test_a_runaway_jq_program_is_stopped_at_the_deadline_and_the_server_keeps_answering(served, agent, site):
    _, base = site
    response, health = _while_running(
        served, agent, {"url": f"{base}/data.json", "jq": "last(range(1e10))", "timeout": 2}
    )
    assert response.status_code in (408, 504)
    assert response.json()["error"]["code"] == "TIMEOUT"
    assert len(health) >= 3, "/healthz was answered again and again while jq ran"
    assert set(health) == {200}
    assert served.host.isolated.killed == 1, "the worker running the program was killed"
    after = agent.post("/v1/fetch", json={"url": f"{base}/data.json", "jq": ".kettles[0].name"})
    assert after.json()["content"] == '"quiet"'


def test_a_page_that_takes_longer_than_its_deadline_to_extract_is_stopped(served, agent, site):
    _, base = site
    # 1.5 s: fetching the 3 MB page holds the loop ~0.2 s under load; extracting it takes ~20 s
    response, health = _while_running(served, agent, {"url": f"{base}/heavy", "timeout": 1.5})
    assert response.json()["error"]["code"] == "TIMEOUT"
    assert len(health) >= 3
    assert served.host.isolated.killed == 1


@pytest.mark.parametrize(
    ("route", "status", "timeout"),
    [("/v1/fetch", 502, 30), ("/v2/scrape", 500, 30_000)],  # Firecrawl's timeout is in milliseconds
)
def test_a_page_nested_past_the_budget_is_refused_before_it_is_parsed(served, agent, site, route, status, timeout):
    _, base = site
    response = agent.post(route, json={"url": f"{base}/nested", "timeout": timeout})
    assert response.status_code == status, response.text  # Firecrawl answers what is not the caller's with 500
    assert "nests elements about 100,00" in response.text
    assert "at most 8,192" in response.text
    assert served.host.isolated.killed == 0, "the budget said no; no worker had to be stopped"


@pytest.mark.parametrize(
    "url",
    [
        "http://0177.0.0.1/",
        "http://127.000.000.001/",
        "http://①②⑦.0.0.1/",
        "http://a\tb.example/",
        "http://x.example:80:80/",
    ],
)
@pytest.mark.parametrize("route", ["/v1/fetch", "/v2/scrape"])
def test_unparseable_urls_are_the_guards_refusal_on_both_apis(agent, url, route):
    response = agent.post(route, json={"url": url})
    assert response.status_code == 403, response.text
    assert "blocked" in response.text


@pytest.mark.parametrize("route", ["/v1/fetch", "/v1/search", "/v2/scrape", "/v2/search"])
def test_json_nested_a_thousand_levels_is_a_400(agent, route):
    deep = "[" * 1000 + "]" * 1000
    response = agent.post(route, content=f'{{"url": "http://x.example/", "query": "q", "extra": {deep}}}')
    assert response.status_code == 400, response.text


def test_a_page_searxng_lists_twice_is_returned_once(agent, searx):
    upstream, _ = searx
    upstream.mode = "duplicates"
    body = agent.post("/v1/search", json={"query": "kettles", "k": 10}).json()
    assert [hit["url"] for hit in body["results"]] == ["https://example.org/0", "https://example.org/1"]
