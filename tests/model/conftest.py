"""A real llama.cpp llama-server on loopback, serving SmolLM2-135M-Instruct, built and fetched by
``build-llama-server.sh`` into a cache outside the checkout (``make test`` runs it first)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from llama import LlamaServer, chat_options, start

# the web site and SearXNG shaped servers of the websearch tests, for the digest and rerank tests
sys.path.insert(0, str(Path(__file__).parents[1] / "websearch"))


@pytest.fixture(scope="session")
def chat_server(llama_binary) -> Iterator[LlamaServer]:
    """Chat completions with llama.cpp's own tool-call parsing (``--jinja``)."""
    server = start(llama_binary, *chat_options(llama_binary))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def embedding_server(llama_binary) -> Iterator[LlamaServer]:
    server = start(llama_binary, "--embeddings", "--pooling", "mean")
    yield server
    server.stop()
