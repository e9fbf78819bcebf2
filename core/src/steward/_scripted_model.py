"""A scripted OpenAI-compatible model: answers by rules, no weights.

What ``steward dev-model`` serves for demos, and what tests script tool calls with (re-exported by
:mod:`steward.testing`). It lives apart from the testing helpers so that the command line, a
production import, never loads them.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route


@dataclass(frozen=True)
class Rule:
    """When the latest user message matches ``pattern`` (case-insensitive), propose ``calls``.

    ``calls`` are ``(capability, arguments)`` pairs; ``{1}``, ``{2}`` … in argument strings are the
    pattern's groups. Arguments given as a string are sent as they are (malformed JSON included).
    """

    pattern: str
    """A regular expression searched in the latest user message."""
    calls: Sequence[tuple[str, dict[str, Any] | str]] = ()
    """The tool calls to propose, in order."""
    text: str = ""
    """Prose to send (alone, or beside the calls)."""


DEFAULT_RULES = (
    Rule(r'search(?: the web)?(?: for)? "([^"]+)"', calls=[("web.search", {"query": "{1}"})]),
    Rule(r"\bfetch (\S+)", calls=[("web.fetch", {"url": "{1}"})]),
    Rule(r"\bhealth\b", calls=[("system.health", {})]),
    Rule(r"\b(?:entities|sensors)\b", calls=[("home_assistant.list_entities", {})]),
)
"""``search "…"``, ``fetch URL``, ``health``, ``entities``: what ``steward dev-model`` answers to."""


@dataclass
class ScriptedModel:
    """An OpenAI-compatible chat-completions server that answers by rules, for tests and demos.

    Serve it with ``serve_app(model.app())`` (or ``steward dev-model``); point ``[model] base_url``
    at ``<url>/v1``. After tool results it answers in text, quoting them, so a test can see what
    reached the model. The dialect options reproduce what real servers do.
    """

    rules: Sequence[Rule] = DEFAULT_RULES
    """Tried in order against the latest user message; without a match it echoes the message."""
    arguments_as: Literal["string", "object"] = "string"
    """Tool-call arguments as a JSON string (llama-server, vLLM) or an object (Ollama)."""
    call_ids: Literal["present", "missing", "duplicate"] = "present"
    """Whether tool calls carry ids, and whether they are unique."""
    finish_reason: str = "tool_calls"
    """What to say beside tool calls (some servers say ``"stop"``)."""
    text_with_calls: str = ""
    """Prose sent together with tool calls."""
    failure: int | Literal["garbage"] | None = None
    """Answer every request with this HTTP status, or ``"garbage"`` for a non-JSON body."""
    delay_seconds: float = 0.0
    """Think this long before answering (a slow CPU model)."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    """Every request body received, so a test can assert what the model was shown."""
    embedding_dimensions: int = 64
    """The length of the vectors ``/v1/embeddings`` answers with."""

    def app(self) -> Starlette:
        """The ASGI app serving ``/v1/chat/completions``, ``/v1/embeddings`` and ``/v1/models``."""

        async def completions(request: Request) -> Response:
            body = json.loads(await request.body())
            self.requests.append(body)
            if self.delay_seconds:
                await asyncio.sleep(self.delay_seconds)
            if self.failure == "garbage":
                return Response("<html>502 Bad Gateway</html>", media_type="text/html")
            if self.failure is not None:
                return JSONResponse({"error": {"message": "scripted failure"}}, status_code=self.failure)
            return JSONResponse(self.answer(body["messages"]))

        async def embeddings(request: Request) -> Response:
            body = json.loads(await request.body())
            if self.delay_seconds:
                await asyncio.sleep(self.delay_seconds)
            if self.failure is not None:
                return JSONResponse({"error": {"message": "scripted failure"}}, status_code=500)
            texts = [body["input"]] if isinstance(body["input"], str) else body["input"]
            data = [
                {"object": "embedding", "index": index, "embedding": self.embed(text)}
                for index, text in enumerate(texts)
            ]
            return JSONResponse({"object": "list", "data": data, "model": body.get("model", "scripted")})

        async def models(request: Request) -> Response:
            return JSONResponse({"object": "list", "data": [{"id": "scripted", "object": "model"}]})

        return Starlette(
            routes=[
                Route("/v1/chat/completions", completions, methods=["POST"]),
                Route("/v1/embeddings", embeddings, methods=["POST"]),
                Route("/v1/models", models, methods=["GET"]),
            ]
        )

    def embed(self, text: str) -> list[float]:
        """Words, not meaning: each word counts in one dimension (a stable hash of it), so texts
        that share words point the same way. Enough to test an ordering without weights."""
        vector = [0.0] * self.embedding_dimensions
        for word in re.findall(r"\w+", text.lower()):
            vector[zlib.crc32(word.encode()) % self.embedding_dimensions] += 1.0
        return vector

    def answer(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The chat completion these rules give for ``messages`` (no server needed)."""
        if messages and messages[-1]["role"] == "tool":
            return _completion({"role": "assistant", "content": _summarise_tool_results(messages)}, "stop")
        question = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "") or ""
        for rule in self.rules:
            match = re.search(rule.pattern, question, re.IGNORECASE)
            if match:
                calls = [
                    self._call(index, name, _fill(arguments, match))
                    for index, (name, arguments) in enumerate(rule.calls)
                ]
                message: dict[str, Any] = {"role": "assistant", "content": rule.text or self.text_with_calls or None}
                if calls:
                    message["tool_calls"] = calls
                return _completion(message, self.finish_reason if calls else "stop")
        return _completion({"role": "assistant", "content": f"You said: {question}"}, "stop")

    def _call(self, index: int, capability: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
        if isinstance(arguments, dict) and self.arguments_as == "string":
            arguments = json.dumps(arguments)
        call: dict[str, Any] = {
            "type": "function",
            "function": {"name": capability.replace(".", "-"), "arguments": arguments},
        }
        if self.call_ids == "present":
            call["id"] = f"scripted_{index}"
        elif self.call_ids == "duplicate":
            call["id"] = "scripted"
        return call


_completion_ids = itertools.count(1)


def _completion(message: dict[str, Any], finish_reason: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{next(_completion_ids)}",
        "object": "chat.completion",
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
    }


def _fill(arguments: dict[str, Any] | str, match: re.Match[str]) -> dict[str, Any] | str:
    if isinstance(arguments, str):
        return arguments
    groups = {f"{{{number}}}": value or "" for number, value in enumerate(match.groups(), start=1)}

    def substitute(value: Any) -> Any:
        if isinstance(value, str):
            for placeholder, group in groups.items():
                value = value.replace(placeholder, group)
        return value

    return {key: substitute(value) for key, value in arguments.items()}


def _summarise_tool_results(messages: list[dict[str, Any]]) -> str:
    results = []
    for message in reversed(messages):
        if message["role"] != "tool":
            break
        data = json.loads(message["content"])
        detail = data.get("result", data.get("message", ""))
        results.append(f"{data['capability']} {data['status']}: {json.dumps(detail, ensure_ascii=False)[:300]}")
    return "Tool results:\n" + "\n".join(reversed(results))
