"""Contract tests of /v2/scrape and /v2/search with the real Firecrawl SDK (firecrawl-py 4.x), and
with hermes-agent's Firecrawl provider (in its own venv: its pins clash with ours)."""

import json
import os
import socket
import ssl
import subprocess
from pathlib import Path

import firecrawl
import pytest
import steward_websearch
import trustme
from firecrawl.v2.utils.error_handler import (
    BadRequestError,
    DNSResolutionError,
    InternalServerError,
    RateLimitError,
    RequestTimeoutError,
    TLSError,
    UnauthorizedError,
    WebsiteNotSupportedError,
)
from loopback import TEST_ADDRESS, raw_server
from test_service import SERVICE_KEY, settings_for
from upstreams import ARTICLE, SearxShaped, Site

from steward.testing import ScriptedModel, serve_app, serve_host

ROOT = Path(__file__).resolve().parents[2]
HERMES_PYTHON = ROOT / ".venv-hermes" / "bin" / "python"


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,127.0.0.2,localhost")


@pytest.fixture(scope="module")
def upstreams():
    site, searx, model = Site(), SearxShaped(), ScriptedModel(rules=())
    with (
        serve_app(site.app(), host=TEST_ADDRESS) as site_url,
        serve_app(searx.app()) as searx_url,
        serve_app(model.app()) as model_url,
    ):
        yield site, site_url, searx_url, model_url


def serve(upstreams, tmp_path, extra_ports=(), **service):
    _, site_url, searx_url, model_url = upstreams
    settings = settings_for(site_url, searx_url, model_url, **service)
    settings["allowed_ports"] += list(extra_ports)
    return serve_host([steward_websearch], data_dir=tmp_path, config={"plugins": {"websearch": settings}})


@pytest.fixture
def served(upstreams, tmp_path):
    upstreams[0].slow_seconds = 2.0
    with serve(upstreams, tmp_path) as server:
        server.set_policy("web_search_enabled", True)
        yield server


@pytest.fixture
def sdk(served):
    return firecrawl.Firecrawl(api_key=served.key(**SERVICE_KEY), api_url=served.base_url)


def test_plain_scrape(sdk, upstreams):
    base = upstreams[1]
    document = sdk.scrape(f"{base}/article")
    assert document.markdown.startswith("Paragraph 0: a kettle boils water")
    metadata = document.metadata
    assert (metadata.title, metadata.description, metadata.language) == ("Kettles", "All about kettles", "en")
    assert metadata.source_url == metadata.url == f"{base}/article"
    assert (metadata.status_code, metadata.content_type) == (200, "text/html")
    assert (metadata.cache_state, metadata.proxy_used) == ("miss", "basic")
    extras = document.metadata_dict
    assert extras["untrusted"] is True
    assert extras["returnedTokens"] < extras["rawTokens"]
    assert extras["hash"].startswith("sha256:")
    assert extras["requestedURL"] == f"{base}/article"
    assert document.html is None
    assert document.links is None
    assert sdk.scrape(f"{base}/article").metadata.cache_state == "hit"


def test_scrape_with_options_and_formats(sdk, upstreams):
    base = upstreams[1]
    document = sdk.scrape(
        f"{base}/r/1",
        formats=["markdown", "html", "links", "rawHtml"],
        only_main_content=True,
        mobile=False,
        block_ads=True,
        remove_base64_images=True,
        fast_mode=False,
        store_in_cache=True,
        max_age=0,
        timeout=30_000,
        include_tags=["article"],
        exclude_tags=["nav"],
    )
    assert document.markdown.startswith("Paragraph 0")
    assert "<article><p>Paragraph 0" in document.html
    assert "<p>Paragraph 5" in document.html
    assert "Kettle World" not in document.html
    assert f"{base}/kettles/3" in document.links
    assert f"{base}/shop" in document.links
    assert all(isinstance(link, str) for link in document.links)
    assert document.raw_html == ARTICLE
    assert document.metadata.source_url == f"{base}/article", "the final URL, after the redirects"
    assert document.metadata_dict["requestedURL"] == f"{base}/r/1"
    whole = sdk.scrape(f"{base}/article", formats=["markdown"], only_main_content=False)
    assert "Descaling tips" in whole.markdown
    assert "Descaling tips" not in document.markdown


def test_search(sdk, upstreams):
    results = sdk.search("kettles", limit=3)
    assert [hit.url for hit in results.web] == [f"https://example.org/{n}" for n in range(3)]
    assert results.web[0].title == "Result 0"
    assert results.web[0].description == "Snippet with bold & entities, number 0"
    many = sdk.search("kettles", limit=50)
    assert len(many.web) == 8
    assert many.warning == "limit 50 lowered to 20"


def test_unsupported_formats_are_400_naming_them_and_other_sources_a_warning(sdk, upstreams):
    with pytest.raises(BadRequestError, match="screenshot"):
        sdk.scrape(f"{upstreams[1]}/article", formats=["markdown", "screenshot"])
    mixed = sdk.search("kettles", sources=["web", "news"], tbs="qdr:h")
    assert len(mixed.web) == 5
    assert "ignored sources: news" in mixed.warning
    assert "tbs 'qdr:h' ignored" in mixed.warning


def test_a_wrong_key_is_401(served, upstreams):
    wrong = firecrawl.Firecrawl(api_key="stw_wrong", api_url=served.base_url)
    with pytest.raises(UnauthorizedError):
        wrong.scrape(f"{upstreams[1]}/article")


def test_a_guard_block_is_the_sdks_403(sdk, upstreams):
    with pytest.raises(WebsiteNotSupportedError, match=r"blocked: private address 10\.0\.0\.5") as caught:
        sdk.scrape(f"{upstreams[1]}/to-private")
    assert caught.value.status_code == 403


def test_a_bot_blocked_site_is_403_with_a_hint(sdk, served, upstreams):
    with pytest.raises(WebsiteNotSupportedError, match=r"upstream 403 \(likely bot-blocked\)") as caught:
        sdk.scrape(f"{upstreams[1]}/status/403")
    assert caught.value.response.json()["hint"] == "recover"


def test_a_timeout_is_408_and_the_sdk_does_not_resume(sdk, upstreams):
    site = upstreams[0]
    before = site.hits["/slow"]
    with pytest.raises(RequestTimeoutError) as caught:
        sdk.scrape(f"{upstreams[1]}/slow", timeout=1000, max_age=0)
    assert "details" not in caught.value.response.json()
    assert site.hits["/slow"] == before + 1, "asked once, not resumed"


def test_busy_is_429(upstreams, tmp_path):
    with serve(upstreams, tmp_path, requests_per_minute=1) as server:
        server.set_policy("web_search_enabled", True)
        sdk = firecrawl.Firecrawl(api_key=server.key(**SERVICE_KEY), api_url=server.base_url)
        sdk.search("kettles")
        with pytest.raises(RateLimitError):
            sdk.search("kettles")


def test_searxng_down_is_a_503_with_the_reason_not_an_internal_error(upstreams, tmp_path):
    _, site_url, _, model_url = upstreams
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{closed.getsockname()[1]}"
    settings = settings_for(site_url, nowhere, model_url)
    with serve_host([steward_websearch], data_dir=tmp_path, config={"plugins": {"websearch": settings}}) as server:
        server.set_policy("web_search_enabled", True)
        sdk = firecrawl.Firecrawl(api_key=server.key(**SERVICE_KEY), api_url=server.base_url)
        with pytest.raises(firecrawl.v2.utils.error_handler.FirecrawlError) as caught:
            sdk.search("kettles")
    assert not isinstance(caught.value, InternalServerError)
    assert caught.value.status_code == 503
    body = caught.value.response.json()
    assert body["success"] is False
    assert "cannot be reached" in body["error"]


@pytest.mark.parametrize("status", [404, 410, 500])
def test_a_page_the_site_answers_with_an_error_status_is_content_with_its_status(sdk, upstreams, status):
    """As Firecrawl does: success, the page's own content, and metadata.statusCode to read."""
    page = sdk.scrape(f"{upstreams[1]}/status/{status}")
    assert page.markdown == "no"
    assert page.metadata.status_code == status
    assert page.metadata.error.startswith(str(status))


def test_an_error_page_is_not_cached(sdk, upstreams):
    site = upstreams[0]
    before = site.hits["/status/404"]
    sdk.scrape(f"{upstreams[1]}/status/404")
    sdk.scrape(f"{upstreams[1]}/status/404")
    assert site.hits["/status/404"] == before + 2


def test_dns_failures_have_firecrawls_code(sdk, monkeypatch):
    async def nothing_resolves(host, port):
        raise OSError(-2, "Name or service not known")

    monkeypatch.setattr("steward_websearch.net.guard.system_resolver", nothing_resolves)
    with pytest.raises(DNSResolutionError, match="does not resolve"):
        sdk.scrape("http://kettles.example/")


def test_tls_failures_have_firecrawls_code(upstreams, tmp_path):
    authority = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert(TEST_ADDRESS).configure_cert(server_context)

    async def handler(reader, writer):
        await reader.read(1024)
        writer.close()

    with raw_server(handler, ssl=server_context) as port, serve(upstreams, tmp_path, extra_ports=[port]) as server:
        server.set_policy("web_search_enabled", True)
        sdk = firecrawl.Firecrawl(api_key=server.key(**SERVICE_KEY), api_url=server.base_url)
        with pytest.raises(TLSError, match="certificate"):
            sdk.scrape(f"https://{TEST_ADDRESS}:{port}/")


HERMES_SCRIPT = """
import json, sys
from firecrawl import Firecrawl
from plugins.web.firecrawl.provider import _extract_scrape_payload, _extract_web_search_results

url, key, page, raw_scrape, raw_search = sys.argv[1:6]
client = Firecrawl(api_key=key, api_url=url)
scraped = _extract_scrape_payload(client.scrape(page, formats=["markdown", "html"]))
found = _extract_web_search_results(client.search(query="kettles", limit=3))
print(json.dumps({
    "sdk_scrape": {"markdown": scraped.get("markdown"), "html": scraped.get("html"),
                   "metadata": scraped.get("metadata")},
    "sdk_search": found,
    "api_scrape": _extract_scrape_payload(json.loads(raw_scrape)),
    "api_search": _extract_web_search_results(json.loads(raw_search)),
}, default=str))
"""


@pytest.mark.requires("hermes")
def test_hermes_agent_reads_our_answers(served, upstreams):
    base = upstreams[1]
    key = served.key(**SERVICE_KEY)
    agent = served.client(**SERVICE_KEY)
    raw_scrape = agent.post("/v2/scrape", json={"url": f"{base}/r/0", "formats": ["markdown"]}).text
    raw_search = agent.post("/v2/search", json={"query": "kettles", "limit": 3}).text
    completed = subprocess.run(
        [str(HERMES_PYTHON), "-c", HERMES_SCRIPT, served.base_url, key, f"{base}/r/0", raw_scrape, raw_search],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_PROXY": "127.0.0.1,127.0.0.2"},
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    seen = json.loads(completed.stdout)
    assert seen["sdk_scrape"]["markdown"].startswith("Paragraph 0")
    assert "<article><p>Paragraph 0" in seen["sdk_scrape"]["html"]
    assert seen["sdk_scrape"]["metadata"]["source_url"] == f"{base}/article"
    assert seen["api_scrape"]["metadata"]["sourceURL"] == f"{base}/article", "hermes re-checks and cites this"
    assert seen["api_scrape"]["markdown"].startswith("Paragraph 0")
    for results in (seen["sdk_search"], seen["api_search"]):
        assert [hit["url"] for hit in results] == [f"https://example.org/{n}" for n in range(3)]
        assert results[0]["title"] == "Result 0"
        assert results[0]["description"].startswith("Snippet with bold")


def test_what_firecrawl_mcp_sends_by_default_is_searched_and_the_rest_named(served, upstreams):
    """firecrawl-mcp's firecrawl_search sends these beside the query; none of them may make it fail."""
    client = served.client(**SERVICE_KEY)
    body = {
        "query": "kettles",
        "limit": 5,
        "sources": ["web", "alexandria", {"type": "news"}],
        "domainTools": True,
        "toolDetail": "compact",
        "integration": "mcp",
        "origin": "mcp",
        "timeout": 60000,
        "location": {"country": "us"},
        "categories": ["github"],
    }
    response = client.post("/v2/search", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["success"] is True
    assert len(answer["data"]["web"]) == 5
    assert "ignored sources: alexandria, news" in answer["warning"]
    assert "ignored: categories, domainTools, location, timeout, toolDetail" in answer["warning"]
