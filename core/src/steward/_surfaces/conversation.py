"""Conversation turns over HTTP: the client's visible history in, the turn's reply out.

The turn loop itself is :mod:`steward._conversation`; this adapter reads the body once, holds an
admission slot for the turn, and says how long Steward itself took beside the model
(``Server-Timing``).
"""

from __future__ import annotations

import time

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from steward._bodies import ApiError
from steward._codes import Code
from steward._confirmation import InvalidConfirmation, TooManyPending
from steward._conversation import ChatMessage
from steward._model import ModelUnavailable
from steward._openapi import openapi_operation
from steward._surfaces.rest import ConfirmationAnswer
from steward.web import gate_of, host_of, json_response, read_json, require_scope


class ConversationRequest(msgspec.Struct, forbid_unknown_fields=True):
    messages: list[ChatMessage] = []
    confirmation: ConfirmationAnswer | None = None


@require_scope("conversation")
@openapi_operation(body=ConversationRequest)
async def conversation_message(request: Request) -> Response:
    """A conversation turn: the visible history, or a person's answer to a pending confirmation."""
    host = host_of(request)
    body = await read_json(request, ConversationRequest)
    if bool(body.messages) == (body.confirmation is not None):
        raise ApiError(Code.INVALID_REQUEST, 'send either "messages" or "confirmation", not both or neither')
    if body.messages and body.messages[-1].role != "user":
        raise ApiError(Code.INVALID_REQUEST, "the last message must be the user's")
    principal = request.state.principal
    started = time.perf_counter()
    try:
        with gate_of(request).admitted():
            if body.confirmation is not None:
                answer = body.confirmation
                resumed = await host.conversation.resume(answer.confirmation_id, answer.approve, principal)
                if resumed is None:
                    raise InvalidConfirmation("unknown or already used confirmation token")
                reply, model_seconds = resumed
            else:
                reply, model_seconds = await host.conversation.start(body.messages, principal)
    except ModelUnavailable as error:
        raise ApiError(Code.MODEL_UNAVAILABLE, str(error)) from None
    except InvalidConfirmation as error:
        raise ApiError(Code.INVALID_CONFIRMATION, str(error)) from None
    except TooManyPending as error:
        raise ApiError(Code.TOO_MANY_PENDING, str(error)) from None
    own_seconds = time.perf_counter() - started - model_seconds
    response = json_response(reply)
    response.headers["Server-Timing"] = f"model;dur={model_seconds * 1000:.3f}, steward;dur={own_seconds * 1000:.3f}"
    return response
