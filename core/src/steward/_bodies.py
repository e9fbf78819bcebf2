"""Request bodies at the edge: read once, capped in size, decoded once, refused in one error shape.

Every HTTP surface reads its body through :func:`receive_body`, so a body over
``server.max_body_bytes`` is refused as soon as it passes the cap, whatever route it was sent to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import msgspec
from starlette.types import Receive, Scope

from steward._codes import Code, http_status

T = TypeVar("T")


class ApiError(Exception):
    """Raise in an endpoint to answer with the standard error shape."""

    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.code, self.message = code, message
        self.status = status or http_status(code)


async def receive_body(scope: Scope, receive: Receive, limit: int) -> bytes:
    for name, value in scope["headers"]:
        if name == b"content-length" and value.isdigit() and int(value) > limit:
            raise ApiError(Code.PAYLOAD_TOO_LARGE, f"request body exceeds {limit} bytes")
    chunks, size, more = [], 0, True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ApiError(Code.INVALID_REQUEST, "the client went away before sending the whole body")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise ApiError(Code.PAYLOAD_TOO_LARGE, f"request body exceeds {limit} bytes")
        chunks.append(chunk)
        more = message.get("more_body", False)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def decode_body(body: bytes, decode: Callable[[bytes], T]) -> T:
    if not body.strip():
        raise ApiError(Code.INVALID_REQUEST, "the request needs a JSON body")
    try:
        return decode(body)
    except msgspec.ValidationError as error:
        raise ApiError(Code.INVALID_REQUEST, f"invalid request: {error}") from None
    except msgspec.DecodeError as error:
        raise ApiError(Code.INVALID_REQUEST, f"request body is not valid JSON: {error}") from None
    except RecursionError:
        raise ApiError(Code.INVALID_REQUEST, "request body is nested too deeply") from None
