"""Memory context on /v1/fetch: a Honcho-shaped server on loopback (its routes and schemas as
Honcho's code has them), the workspace taken from the caller's key only, retrieval only, and a
memory store that fails costing a warning, never the fetch."""

from __future__ import annotations

import httpx
import pytest
import steward_websearch
from click.testing import CliRunner
from steward_websearch.service.memory import MemoryItem, key_terms, page_terms, trimmed
from steward_websearch.service.secret_files import HONCHO_KEY as HONCHO_KEY_FILE
from test_service import SERVICE_KEY, settings_for
from upstreams import HONCHO_KEY, HonchoShaped

from steward._cli import cli
from steward.testing import serve_app, serve_host


@pytest.fixture(scope="module")
def honcho_server():
    upstream = HonchoShaped()
    with serve_app(upstream.app()) as url:
        yield upstream, url


@pytest.fixture
def honcho(honcho_server):
    honcho_server[0].reset()
    return honcho_server


@pytest.fixture
def served(site, searx, model, honcho, tmp_path):
    settings = settings_for(site[1], searx[1], model[1])
    settings["context"] = {
        "honcho_url": honcho[1],
        "workspaces": {"alice-agent": "house-a", "carol-agent": "house-b"},
        "timeout": 1.0,
    }
    with serve_host([steward_websearch], data_dir=tmp_path, config={"plugins": {"websearch": settings}}) as server:
        server.set_policy("web_search_enabled", True)
        HONCHO_KEY_FILE.write(server.host.data_dir, HONCHO_KEY)
        yield server


def agent(served, name):
    key = served.key(SERVICE_KEY["scopes"], name=name, preapproved=SERVICE_KEY["preapproved"])
    return httpx.Client(base_url=served.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=30)


def test_context_comes_from_the_callers_workspace_only(served, site, honcho):
    _, base = site
    answer = agent(served, "alice-agent").post("/v1/fetch", json={"url": f"{base}/manual.pdf", "context": True})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["warnings"] == []
    assert body["content"].startswith("Descaling the kettle"), "the page itself is unchanged"
    assert [item["peer"] for item in body["context"]] == ["alice", "bob"]
    assert body["context"][0] == {
        "kind": "message",
        "peer": "alice",
        "content": "We descaled the kettle with white vinegar last spring.",
        "created_at": "2026-01-01T09:00:00Z",
    }
    workspace, asked = honcho[0].searches[-1]
    assert workspace == "house-a"
    assert asked["limit"] == 5
    assert 3 <= len(asked["query"].split()) <= 6
    assert "kettle" in asked["query"].split()
    carol = agent(served, "carol-agent").post("/v1/fetch", json={"url": f"{base}/manual.pdf", "context": True})
    assert [item["peer"] for item in carol.json()["context"]] == ["carol"]
    assert honcho[0].writes == 0, "nothing is ever written to memory"


def test_no_request_can_name_a_workspace_and_a_key_without_one_gets_none(served, site, honcho):
    _, base = site
    stranger = agent(served, "stranger")
    named = stranger.post("/v1/fetch", json={"url": f"{base}/manual.pdf", "context": True, "workspace": "house-a"})
    assert named.status_code == 400
    answer = stranger.post("/v1/fetch", json={"url": f"{base}/manual.pdf", "context": True})
    assert answer.status_code == 200
    assert answer.json()["context"] == []
    assert "this key has no memory workspace" in answer.json()["warnings"][0]
    assert honcho[0].searches == [], "memory was not asked at all"


def test_without_context_memory_is_not_asked(served, site, honcho):
    _, base = site
    body = agent(served, "alice-agent").post("/v1/fetch", json={"url": f"{base}/article"}).json()
    assert "context" not in body
    assert honcho[0].searches == []


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("down", "answered HTTP 500"),
        ("slow", "did not answer within 1 s"),
        ("huge", "answered more than 1 MB"),
        ("garbage", "did not answer with messages"),
    ],
)
def test_a_memory_store_that_fails_costs_a_warning_not_the_fetch(served, site, honcho, mode, reason):
    _, base = site
    honcho[0].mode = mode
    answer = agent(served, "alice-agent").post("/v1/fetch", json={"url": f"{base}/article", "context": True})
    assert answer.status_code == 200
    body = answer.json()
    assert body["content"].startswith("Paragraph 0: a kettle boils water")
    assert body["context"] == []
    assert len(body["warnings"]) == 1
    assert body["warnings"][0].startswith(f"no memory context: Honcho at {honcho[1]} {reason}")


def test_the_api_key_is_sent_never_shown_and_a_wrong_one_is_a_warning(served, site, honcho):
    _, base = site
    HONCHO_KEY_FILE.write(served.host.data_dir, "wrong-key")
    alice = agent(served, "alice-agent")
    answer = alice.post("/v1/fetch", json={"url": f"{base}/article", "context": True})
    assert answer.json()["warnings"] == [f"no memory context: Honcho at {honcho[1]} answered HTTP 401"]
    key_file = served.host.data_dir / "secrets" / "websearch" / "honcho-api-key"
    assert key_file.stat().st_mode & 0o777 == 0o600
    if "websearch" not in cli.commands:
        steward_websearch.register_commands(cli)
    result = CliRunner().invoke(
        cli, ["--data-dir", str(served.host.data_dir), "websearch", "set-honcho-key"], input=f"{HONCHO_KEY}\n"
    )
    assert result.exit_code == 0, result.output
    assert HONCHO_KEY not in result.output
    again = alice.post("/v1/fetch", json={"url": f"{base}/article", "context": True})
    assert again.json()["warnings"] == []
    assert HONCHO_KEY not in again.text
    assert HONCHO_KEY not in (served.host.data_dir / "capabilities" / "audit.jsonl").read_text()


def test_health_shows_whether_memory_answers(served, honcho):
    admin = served.client(["admin"])
    check = next(check for check in admin.get("/healthz").json()["checks"] if check["name"] == "memory")
    assert check["ok"] is True
    assert check["detail"] == f"Honcho answers at {honcho[1]}"


def test_key_terms_are_the_words_a_page_is_about():
    assert key_terms("Descaling the kettle. The kettle needs vinegar; vinegar and water, then the kettle.") == [
        "kettle",
        "vinegar",
        "descaling",
        "needs",
        "water",
    ]
    assert key_terms("a an of 42 1999 the") == []
    assert len(key_terms(" ".join(f"word{letter}alpha" for letter in "abcdefghij"))) == 6
    markdown = "# Descaling\ntext\n## Filling with water\nmore columns, columns and columns"
    assert page_terms("Kettle manual", markdown) == ["kettle", "manual", "descaling", "filling", "water", "columns"]
    assert page_terms("", "the kettle and the kettle") == ["kettle"], "no title, no headings: the text"


def test_context_is_trimmed_to_its_cap():
    items = [MemoryItem(kind="message", peer="p", content="x" * 1500, created_at="t") for _ in range(5)]
    kept = trimmed(items, 2500)
    assert [len(item.content) for item in kept] == [1000, 1000]
