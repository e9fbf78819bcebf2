"""``rerank``: search results ordered by meaning, from an OpenAI-compatible embeddings endpoint.

The query (or the question, when there is one) and each result's title with its snippet or chunks
are embedded in one request (llama-server's ``--embeddings``, Ollama, vLLM, a hosted API); the
results are ordered by cosine similarity to the query, and that similarity is their ``score``.
Whatever goes wrong (the endpoint down or slow, a vector count or dimension that does not add
up, NaN or numbers past a float's range, which the JSON decoder refuses, an answer too large)
is :class:`RerankUnavailable`: the search keeps its own order and says why in a warning.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec

import steward
from steward_websearch.service.upstream import UpstreamFailed, post_json
from steward_websearch.settings import RerankSettings

MAX_ANSWER_BYTES = 32 * 1024 * 1024
"""Enough for 21 vectors of 100,000 dimensions written as JSON; an answer past it is refused unread."""
MAX_TEXT_CHARS = 2000


class RerankUnavailable(Exception):
    """No usable similarities; the message says why (for the warning)."""


class _Vector(msgspec.Struct):
    embedding: list[float]
    index: int | None = None


class _Embeddings(msgspec.Struct):
    data: list[_Vector]


async def similarities(
    query: str, texts: Sequence[str], settings: RerankSettings, context: steward.InvocationContext
) -> list[float]:
    """The cosine similarity of each of ``texts`` to ``query``, in the order given."""
    inputs = [query[:MAX_TEXT_CHARS], *(text[:MAX_TEXT_CHARS] for text in texts)]
    body = await _ask(inputs, settings, context)
    vectors = _vectors(body, len(inputs))
    wanted, *others = vectors
    return [round(_cosine(wanted, other), 6) for other in others]


async def _ask(inputs: list[str], settings: RerankSettings, context: steward.InvocationContext) -> bytes:
    base = settings.base_url.rstrip("/")
    try:
        return await post_json(
            context.http_client,
            f"{base}/embeddings",
            {"model": settings.model, "input": inputs},
            what=f"the embeddings endpoint at {base}",
            timeout=settings.timeout,
            max_bytes=MAX_ANSWER_BYTES,
            api_key=settings.api_key,
        )
    except UpstreamFailed as error:
        raise RerankUnavailable(str(error)) from None


def _vectors(body: bytes, count: int) -> list[list[float]]:
    try:
        answer = msgspec.json.decode(body, type=_Embeddings)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        raise RerankUnavailable(f"the embeddings endpoint did not answer with embeddings ({error})") from None
    if len(answer.data) != count:
        raise RerankUnavailable(f"the embeddings endpoint returned {len(answer.data)} vectors for {count} texts")
    indexes = [vector.index for vector in answer.data]
    if None in indexes:
        ordered = answer.data
    elif sorted(indexes) == list(range(count)):
        ordered = sorted(answer.data, key=lambda vector: vector.index or 0)
    else:
        raise RerankUnavailable(f"the embeddings endpoint numbered its vectors {sorted(indexes)}, not 0 to {count - 1}")
    dimensions = {len(vector.embedding) for vector in ordered}
    if len(dimensions) != 1 or 0 in dimensions:
        raise RerankUnavailable(f"the embeddings endpoint returned vectors of {sorted(dimensions)} dimensions")
    return [vector.embedding for vector in ordered]


def _cosine(first: list[float], second: list[float]) -> float:
    norms = math.sqrt(math.fsum(value * value for value in first)) * math.sqrt(
        math.fsum(value * value for value in second)
    )
    if norms == 0:
        return 0.0
    return math.fsum(a * b for a, b in zip(first, second, strict=True)) / norms
