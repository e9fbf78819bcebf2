"""/v1/search with ``rerank`` (an OpenAI-compatible embeddings endpoint on loopback) and ``digest``
(the scripted model): the order by meaning, the fallbacks when either fails, and hostile answers."""

from __future__ import annotations

import pytest
import steward_websearch
from test_service import SERVICE_KEY, settings_for
from upstreams import EmbeddingsShaped

from steward.testing import serve_app, serve_host


@pytest.fixture(scope="module")
def embeddings_server():
    upstream = EmbeddingsShaped()
    with serve_app(upstream.app()) as url:
        yield upstream, url


@pytest.fixture
def embeddings(embeddings_server):
    embeddings_server[0].reset()
    return embeddings_server


@pytest.fixture
def agent(site, searx, model, embeddings, tmp_path):
    settings = settings_for(site[1], searx[1], model[1])
    settings["rerank"] = {"base_url": f"{embeddings[1]}/v1", "timeout": 1.5}
    with serve_host([steward_websearch], data_dir=tmp_path, config={"plugins": {"websearch": settings}}) as server:
        server.set_policy("web_search_enabled", True)
        yield server.client(**SERVICE_KEY)


def urls(body: dict) -> list[str]:
    return [hit["url"] for hit in body["results"]]


def test_rerank_orders_by_similarity_to_the_question_and_scores_with_it(agent, embeddings):
    plain = agent.post("/v1/search", json={"query": "kettles", "k": 8}).json()
    assert urls(plain)[:2] == ["https://example.org/0", "https://example.org/1"]
    body = agent.post("/v1/search", json={"query": "kettles", "question": "which is number 6", "k": 3, "rerank": True})
    assert body.status_code == 200, body.text
    reranked = body.json()
    assert urls(reranked)[0] == "https://example.org/6"
    scores = [hit["score"] for hit in reranked["results"]]
    assert scores == sorted(scores, reverse=True)
    assert 0 < scores[-1] <= scores[0] <= 1
    assert reranked["warnings"] == []
    asked = embeddings[0].inputs[-1]
    assert asked[0] == "which is number 6", "the question, not the query, is what results are compared with"
    assert asked[1] == "Result 0\nSnippet with bold & entities, number 0"
    assert len(asked) == 9, "every result found is embedded, then k are kept"
    by_query = agent.post("/v1/search", json={"query": "number 3", "k": 1, "rerank": True}).json()
    assert urls(by_query) == ["https://example.org/3"]


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("down", "answered HTTP 500"),
        ("slow", "did not answer within 1.5 s"),
        ("short", "returned 8 vectors for 9 texts"),
        ("ragged", "vectors of [10, 64] dimensions"),
        ("misnumbered", "numbered its vectors"),
        ("nan", "did not answer with embeddings"),
        ("huge", "answered more than 32 MB"),
    ],
)
def test_an_embeddings_endpoint_that_fails_leaves_the_engines_order_and_says_why(agent, embeddings, mode, reason):
    embeddings[0].mode = mode
    body = agent.post("/v1/search", json={"query": "kettles", "question": "number 6", "k": 3, "rerank": True})
    assert body.status_code == 200, body.text
    answer = body.json()
    assert urls(answer) == ["https://example.org/0", "https://example.org/1", "https://example.org/2"]
    assert [hit["score"] for hit in answer["results"]] == [0.0, 0.0, 0.0]
    assert len(answer["warnings"]) == 1
    assert answer["warnings"][0].startswith("not reranked, in the engines' order: ")
    assert reason in answer["warnings"][0]


def test_digest_adds_one_model_written_summary_of_the_top_results(agent, model):
    body = agent.post("/v1/search", json={"query": "kettles", "k": 2, "digest": True}).json()
    assert body["digest"] == "Kettles boil water quietly (from the page)."
    assert body["warnings"] == []
    shown = model[0].requests[-1]["messages"][-1]["content"]
    assert "Question: kettles" in shown
    assert "[1] Result 0\nhttps://example.org/0\nSnippet with bold & entities, number 0" in shown
    assert "[2] Result 1" in shown
    assert "[3]" not in shown, "only the k results returned are digested"
    assert body["sizes"]["returned_tokens"] > sum(len(hit["title"]) // 4 for hit in body["results"])


def test_a_model_that_fails_leaves_the_results_without_a_digest_and_says_so(agent, model):
    model[0].failure = 503
    body = agent.post("/v1/search", json={"query": "kettles", "k": 2, "digest": True})
    assert body.status_code == 200
    answer = body.json()
    assert "digest" not in answer
    assert len(answer["results"]) == 2
    assert answer["warnings"][0].startswith("no digest, the results alone: ")
    assert "HTTP 503" in answer["warnings"][0]
