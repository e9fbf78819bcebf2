"""Firecrawl's own JavaScript clients against /v2: the JS SDK, and firecrawl-mcp driven by the
official ``mcp`` Python SDK over stdio, as a desktop agent runs it.

make test installs them (pinned, tests/websearch/clients/package-lock.json) with ``npm ci``. Both
reach only the API URL they are given (FIRECRAWL_API_URL, checked in their sources: no telemetry
is sent without a secret of Firecrawl's own), and that is this test's loopback server.
"""

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import steward_websearch
from loopback import TEST_ADDRESS
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from test_service import SERVICE_KEY, settings_for
from upstreams import SearxShaped, Site

from steward.testing import ScriptedModel, serve_app, serve_host

CLIENTS = Path(__file__).parent / "clients"
NODE = shutil.which("node") or "node"

pytestmark = pytest.mark.requires("node-clients")


@pytest.fixture(scope="module")
def steward_server(tmp_path_factory):
    site, searx, model = Site(), SearxShaped(), ScriptedModel(rules=())
    with (
        serve_app(site.app(), host=TEST_ADDRESS) as site_url,
        serve_app(searx.app()) as searx_url,
        serve_app(model.app()) as model_url,
    ):
        config = {"plugins": {"websearch": settings_for(site_url, searx_url, model_url)}}
        with serve_host([steward_websearch], data_dir=tmp_path_factory.mktemp("data"), config=config) as served:
            served.set_policy("web_search_enabled", True)
            yield served, site_url, served.key(**SERVICE_KEY)


def client_environment(served, key: str) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "FIRECRAWL_API_URL": served.base_url, "FIRECRAWL_API_KEY": key}


def scrape_with_javascript(served, key: str, url: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [NODE, CLIENTS / "scrape.mjs", url],
        env=client_environment(served, key),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=CLIENTS,
    )


def test_the_javascript_sdk_scrapes_a_404_page_and_reads_its_status(steward_server):
    served, site, key = steward_server
    run = scrape_with_javascript(served, key, f"{site}/status/404")
    assert run.returncode == 0, run.stdout + run.stderr
    document = json.loads(run.stdout)
    assert document["metadata"]["statusCode"] == 404
    assert document["markdown"] == "no"
    article = scrape_with_javascript(served, key, f"{site}/article")
    assert json.loads(article.stdout)["markdown"].startswith("Paragraph 0: a kettle boils water")


async def call_mcp_tools(served, key: str, calls: list[tuple[str, dict]]) -> tuple[list[str], list]:
    server = StdioServerParameters(
        command=NODE,
        args=[str(CLIENTS / "node_modules" / "firecrawl-mcp" / "dist" / "index.js")],
        env=client_environment(served, key),
    )
    with open(os.devnull, "w") as quiet:
        async with stdio_client(server, errlog=quiet) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = [tool.name for tool in (await session.list_tools()).tools]
            results = [await session.call_tool(name, arguments) for name, arguments in calls]
    return tools, results


def text_of(result) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def test_firecrawl_mcp_searches_and_scrapes_as_a_model_calls_it(steward_server):
    served, site, key = steward_server
    tools, (search, missing, article) = asyncio.run(
        call_mcp_tools(
            served,
            key,
            [
                ("firecrawl_search", {"query": "kettles", "limit": 3}),
                ("firecrawl_scrape", {"url": f"{site}/status/404"}),
                ("firecrawl_scrape", {"url": f"{site}/article", "formats": ["markdown"]}),
            ],
        )
    )
    assert {"firecrawl_search", "firecrawl_scrape"} <= set(tools)
    assert not search.is_error, text_of(search)
    assert "https://example.org/0" in text_of(search)
    assert not missing.is_error, text_of(missing)
    assert '"statusCode": 404' in text_of(missing) or '"statusCode":404' in text_of(missing)
    assert not article.is_error, text_of(article)
    assert "a kettle boils water" in text_of(article)
