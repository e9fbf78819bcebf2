"""Asking one of the household's own services for JSON: an embeddings endpoint, a memory store.

Unlike a page, such an answer is not fetched through the guard (the operator configured where it
is), but it is still not trusted to be small or prompt: the body is read a piece at a time and
refused past ``max_bytes``, and every failure is one :class:`UpstreamFailed` whose message says
which service and what went wrong, for the warning the caller turns it into.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx


class UpstreamFailed(Exception):
    """The service gave no usable answer; the message names it and says why."""


async def post_json(
    http_client: Callable[..., httpx.AsyncClient],
    url: str,
    body: Any,
    *,
    what: str,
    timeout: float,
    max_bytes: int,
    api_key: str = "",
) -> bytes:
    """POST ``body`` as JSON to ``url`` and return the 200 answer's bytes; ``what`` names the service.

    ``http_client`` makes the client (``context.http_client`` in a handler, else ``steward.http_client``).
    """
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        async with (
            http_client(timeout=httpx.Timeout(timeout, connect=min(3.0, timeout)), headers=headers) as client,
            client.stream("POST", url, json=body) as response,
        ):
            if response.status_code != 200:
                raise UpstreamFailed(f"{what} answered HTTP {response.status_code}")
            received = bytearray()
            async for chunk in response.aiter_bytes():
                received += chunk
                if len(received) > max_bytes:
                    raise UpstreamFailed(f"{what} answered more than {max_bytes >> 20} MB")
    except httpx.TimeoutException:
        raise UpstreamFailed(f"{what} did not answer within {timeout:g} s") from None
    except httpx.HTTPError as error:
        raise UpstreamFailed(f"{what} cannot be reached ({type(error).__name__})") from None
    return bytes(received)
