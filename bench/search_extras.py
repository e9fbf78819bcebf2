"""Seconds ``rerank`` and ``digest`` add to a /v1/search, on a real model server when there is one.

SearXNG is the shaped server of the websearch tests (eight results); the model is llama.cpp's
llama-server serving SmolLM2-135M-Instruct from the cache ``make test`` fills (one process for
chat, one with ``--embeddings --pooling mean``), or, when it is not built, the scripted model (its
figures then measure Steward's own work only, and the line says so). Each request is timed from
the client, ``ROUNDS`` times; the medians and the differences from a plain search are printed.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "websearch"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "model"))

import steward_websearch
from llama import built_binary, chat_options, start
from upstreams import SearxShaped

from steward.testing import ScriptedModel, serve_app, serve_host

ROUNDS = 10
SERVICE_KEY = {"scopes": ["service"], "preapproved": ["web.search"]}


def median_seconds(client, body: dict) -> float:
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        answer = client.post("/v1/search", json=body)
        times.append(time.perf_counter() - started)
        if answer.status_code != 200 or answer.json()["warnings"]:
            raise RuntimeError(f"{body}: {answer.status_code} {answer.text[:300]}")
    return statistics.median(times)


def measure(chat_url: str, embeddings_url: str, label: str) -> None:
    searx = SearxShaped()
    with serve_app(searx.app()) as searx_url, tempfile.TemporaryDirectory() as data_dir:
        settings = {
            "searxng_url": searx_url,
            "rerank": {"base_url": f"{embeddings_url}/v1", "timeout": 60},
            "digest": {"base_url": f"{chat_url}/v1", "timeout": 120, "max_tokens": 120},
        }
        with serve_host([steward_websearch], data_dir=data_dir, config={"plugins": {"websearch": settings}}) as served:
            served.set_policy("web_search_enabled", True)
            client = served.client(**SERVICE_KEY, timeout=180)
            query = {"query": "kettles", "question": "which result is number 6", "k": 5}
            plain = median_seconds(client, query)
            reranked = median_seconds(client, {**query, "rerank": True})
            digested = median_seconds(client, {**query, "digest": True})
    print(
        f"/v1/search on {label}, median of {ROUNDS}: plain {plain * 1000:.0f} ms; "
        f"rerank +{(reranked - plain) * 1000:.0f} ms (9 texts embedded); "
        f"digest +{(digested - plain):.2f} s (5 results, at most 120 tokens)"
    )


def main() -> None:
    binary = built_binary()
    if binary is None:
        scripted = ScriptedModel(rules=())
        with serve_app(scripted.app()) as url:
            measure(url, url, "the scripted model (llama-server not built: `make llama-server`)")
        return

    chat, embeddings = start(binary, *chat_options(binary)), start(binary, "--embeddings", "--pooling", "mean")
    try:
        measure(chat.url, embeddings.url, "llama-server, SmolLM2-135M-Instruct Q4_1, 2 threads")
    finally:
        chat.stop()
        embeddings.stop()


if __name__ == "__main__":
    main()
