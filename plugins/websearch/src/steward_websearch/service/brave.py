"""A second search backend: Brave's LLM Context API, beside the household's SearXNG.

``GET {brave_url}/res/v1/llm/context?q=…&count=…`` with the subscription key in
``X-Subscription-Token``. The key lives like the Home Assistant token, in
``secrets/websearch/brave-api-key`` (0600 in a 0700 directory, set with ``steward websearch
set-brave-key``), read fresh on every search, never echoed, logged or put in a message. Without
a key Brave is never asked. Brave is an upstream the operator chose, so it is reached directly.

Brave answers ``{"grounding": {"generic": [{"url", "title", "snippets": [...]}]}, "sources": …}``;
each ``generic`` item becomes a hit, its first snippets joined as the snippet.
"""

from __future__ import annotations

from typing import Any

import httpx
import msgspec

import steward

FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}


class BraveHit(msgspec.Struct):
    url: str
    title: str = ""
    snippets: list[Any] = []


class _Grounding(msgspec.Struct):
    generic: list[BraveHit] = []


class _Answer(msgspec.Struct):
    grounding: _Grounding = msgspec.field(default_factory=_Grounding)


async def ask_brave(
    brave_url: str, key: str, query: str, count: int, time_range: str | None, context: steward.InvocationContext
) -> list[BraveHit]:
    """Brave's hits for ``query``, or :class:`steward.CapabilityError` (the message never holds the key)."""
    base = brave_url.rstrip("/")
    parameters: dict[str, str | int] = {"q": query, "count": max(1, min(count, 50))}
    if time_range:
        parameters["freshness"] = FRESHNESS[time_range]
    headers = {"X-Subscription-Token": key, "Accept": "application/json"}
    async with context.http_client(timeout=httpx.Timeout(8.0, connect=3.0)) as client:
        try:
            response = await client.get(f"{base}/res/v1/llm/context", params=parameters, headers=headers)
        except httpx.TimeoutException:
            raise _failure(f"Brave at {base} did not answer in time") from None
        except httpx.HTTPError as error:
            raise _failure(f"Brave at {base} cannot be reached ({type(error).__name__})") from None
    if response.status_code in (401, 403):
        raise _failure(f"Brave at {base} refused the subscription key ({response.status_code})")
    if response.status_code == 429:
        raise _failure(f"Brave at {base} rate-limited the request (429)")
    if response.status_code != 200:
        raise _failure(f"Brave at {base} answered HTTP {response.status_code}")
    try:
        answer = msgspec.json.decode(response.content, type=_Answer)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise _failure(f"Brave at {base} did not answer with LLM context JSON") from None
    return answer.grounding.generic


def _failure(message: str) -> steward.CapabilityError:
    return steward.CapabilityError(steward.Code.UPSTREAM_UNAVAILABLE, message)
