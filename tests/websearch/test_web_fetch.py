"""web.fetch end to end: the HTTP API, policy, a person's confirmation, and pages on loopback."""

import json
import re
import tomllib
from pathlib import Path

import pytest
import steward_websearch
from loopback import TEST_ADDRESS
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

import steward
from steward.testing import make_host, serve_app, serve_host

ARTICLE = (
    "<html><head><title>Kettles</title></head><body><nav>MENU</nav><article>"
    + "".join(
        f"<p>Paragraph {n}: a kettle boils water, and a good one does it quietly, quickly and safely.</p>"
        for n in range(6)
    )
    + "</article></body></html>"
)


def pages() -> Starlette:
    async def article(request: Request) -> Response:
        return HTMLResponse(ARTICLE)

    async def long(request: Request) -> Response:
        return HTMLResponse("<html><body><article>" + "<p>word " * 40000 + "</article></body></html>")

    routes = [
        Route("/article", article),
        Route("/long", long),
        Route("/data.json", lambda request: JSONResponse({"kettles": 3})),
        Route("/notes.txt", lambda request: PlainTextResponse("plain notes")),
        Route("/moved", lambda request: RedirectResponse("/article", status_code=301)),
        Route("/missing", lambda request: PlainTextResponse("no", status_code=404)),
        Route("/broken", lambda request: PlainTextResponse("no", status_code=500)),
        Route("/image", lambda request: Response(b"\x89PNG\r\n\x1a\n", media_type="image/png")),
        Route("/liar", lambda request: Response(b"%PDF-1.4", media_type="text/html")),
    ]
    return Starlette(routes=routes)


@pytest.fixture(scope="module")
def site():
    with serve_app(pages(), host=TEST_ADDRESS) as base_url:
        yield base_url


@pytest.fixture
def served(site, tmp_path):
    port = int(site.rsplit(":", 1)[1])
    settings = {"allowed_networks": [f"{TEST_ADDRESS}/32"], "allowed_ports": [80, 443, port]}
    with serve_host([steward_websearch], data_dir=tmp_path, config={"plugins": {"websearch": settings}}) as server:
        server.set_policy("web_search_enabled", True)
        yield server


def fetch(server, url):
    client = server.client(["invoke"], preapproved=["web.fetch"])
    return client.post("/api/v1/capabilities/web.fetch/invoke", json={"arguments": {"url": url}})


def test_a_person_approves_the_exact_url_and_it_runs_once(served, site):
    client = served.client(["invoke"])
    url = f"{site}/article"
    pending = client.post("/api/v1/capabilities/web.fetch/invoke", json={"arguments": {"url": url}})
    assert pending.status_code == 202
    assert pending.json()["pending_confirmation"]["arguments"] == {"url": url}
    token = pending.json()["pending_confirmation"]["token"]
    done = client.post(
        "/api/v1/capabilities/web.fetch/invoke", json={"confirmation": {"token": token, "approve": True}}
    )
    result = done.json()["result"]
    assert (result["url"], result["final_url"], result["content_type"]) == (url, url, "text/html")
    assert (result["title"], result["redirected"], result["truncated"]) == ("Kettles", False, False)
    assert result["text"].startswith("Paragraph 0: a kettle boils water")
    assert "MENU" not in result["text"]
    again = client.post(
        "/api/v1/capabilities/web.fetch/invoke", json={"confirmation": {"token": token, "approve": True}}
    )
    assert again.status_code == 400


def test_json_and_text(served, site):
    assert json.loads(fetch(served, f"{site}/data.json").json()["result"]["text"]) == {"kettles": 3}
    assert fetch(served, f"{site}/notes.txt").json()["result"]["text"] == "plain notes"


def test_redirects_are_reported_not_followed(served, site):
    result = fetch(served, f"{site}/moved").json()["result"]
    assert (result["redirected"], result["final_url"], result["text"]) == (True, f"{site}/article", "")


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/missing", 502, "FETCH_HTTP_ERROR"),
        ("/broken", 503, "UPSTREAM_UNAVAILABLE"),
        ("/image", 415, "UNSUPPORTED_CONTENT_TYPE"),
        ("/liar", 415, "UNSUPPORTED_CONTENT_TYPE"),
    ],
)
def test_failures_are_failures(served, site, path, status, code):
    response = fetch(served, f"{site}{path}")
    assert (response.status_code, response.json()["code"]) == (status, code)
    assert response.json()["result"] is None


def test_long_pages_are_cut_to_the_bound(served, site):
    response = fetch(served, f"{site}/long")
    result = response.json()["result"]
    assert result["truncated"] is True
    encoded = len(json.dumps(result).encode())
    assert 60000 < encoded <= 65536


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1/", "loopback address 127.0.0.1"),
        ("http://169.254.169.254/latest/meta-data/", "link-local address"),
        ("http://[::1]/", "non-global IPv6"),
        ("http://2130706433/", "not a canonical dotted-quad"),
        ("http://user@example.com/", "credentials"),
    ],
)
def test_the_guard_refuses_with_its_reason(served, url, reason):
    response = fetch(served, url)
    assert (response.status_code, response.json()["code"]) == (403, "FETCH_TARGET_REJECTED")
    assert reason in response.json()["message"]


def test_only_http_urls_are_arguments(served):
    response = fetch(served, "file:///etc/passwd")
    assert response.json()["code"] == "INVALID_ARGUMENTS"


def test_policy_off_refuses_before_anything(served, site):
    served.set_policy("web_search_enabled", False)
    assert fetch(served, f"{site}/article").json()["code"] == "CAPABILITY_DISABLED"


def test_allowed_networks_are_logged_at_start(tmp_path, caplog):
    config = {"plugins": {"websearch": {"allowed_networks": ["192.168.1.20/32"]}}}
    with caplog.at_level("WARNING"), serve_host([steward_websearch], data_dir=tmp_path, config=config):
        pass
    assert "the fetch guard lets these non-public networks through: 192.168.1.20/32" in caplog.text


def test_bad_allowed_networks_stop_the_start(tmp_path):
    config = {"plugins": {"websearch": {"allowed_networks": ["10.0.0.0/33"]}}}
    with pytest.raises(steward.ConfigError, match=r"plugins\.websearch: allowed_networks"):
        make_host([steward_websearch], data_dir=tmp_path, config=config)


def test_a_name_that_does_not_resolve_is_a_dns_failure_not_a_block(served, monkeypatch):
    async def nothing_resolves(host, port):
        raise OSError(-3, "Temporary failure in name resolution")

    monkeypatch.setattr("steward_websearch.net.guard.system_resolver", nothing_resolves)
    response = fetch(served, "http://kettles.example/")
    body = response.json()
    assert (response.status_code, body["code"]) == (502, "DNS_RESOLUTION_FAILED")
    assert body["message"].startswith("kettles.example does not resolve")
    assert "blocked" not in body["message"]


def test_the_docs_recipe_for_a_loopback_site_is_all_it_takes(site, tmp_path):
    """docs/websearch.md's recipe, as written, with this site's port: both settings, and each one needed."""
    docs = (Path(__file__).parents[2] / "docs" / "websearch.md").read_text()
    recipe = docs[docs.index("### Recipe: letting web.fetch reach") :]
    snippet = re.search(r"```toml\n(.*?)```", recipe, re.S).group(1)
    port = int(site.rsplit(":", 1)[1])
    mine = snippet.replace("8000", str(port)).replace("127.0.0.1", TEST_ADDRESS)
    settings = tomllib.loads(mine)["plugins"]["websearch"]
    url = f"{site}/article"
    for index, (config, refusal) in enumerate(
        [
            (settings, None),
            ({**settings, "allowed_ports": [80, 443]}, f"blocked: port {port} is not allowed"),
            ({**settings, "allowed_networks": []}, f"blocked: loopback address {TEST_ADDRESS}"),
        ]
    ):
        config = {"plugins": {"websearch": config}}
        with serve_host([steward_websearch], data_dir=tmp_path / str(index), config=config) as server:
            server.set_policy("web_search_enabled", True)
            answer = fetch(server, url).json()
        if refusal is None:
            assert answer["status"] == "ok", answer
            assert "kettle boils water" in answer["result"]["text"]
        else:
            assert (answer["code"], answer["message"]) == ("FETCH_TARGET_REJECTED", refusal)
