"""The OpenAI-compatible chat-completions client, and the dialects it tolerates.

Real servers differ: llama.cpp's llama-server sends ``function.arguments`` as a JSON string,
Ollama as an object; some omit call ids or repeat them; some put text beside tool calls; some say
``finish_reason: "stop"`` while calling tools. Everything is normalised here, once, into
:class:`ModelReply`, so the conversation loop never sees a dialect: every call gets an id of
ours, its arguments are a JSON object or a recorded decoding error, and the presence of tool
calls (not ``finish_reason``) decides whether the model wants tools.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import httpx
import msgspec

from steward._config import ModelConfig
from steward._http_client import http_client


class ModelUnavailable(Exception):
    """The model could not be asked, or answered something that is not a chat completion."""


class ToolCall(msgspec.Struct, kw_only=True):
    """One proposed call, ids ours; ``arguments`` as sent (a JSON object, or text the executor will refuse)."""

    id: str
    tool_name: str
    arguments: dict[str, Any] | str

    @property
    def arguments_json(self) -> str:
        """The arguments to echo back in the assistant message: always a JSON object text.

        Malformed arguments are echoed as ``{}``: servers such as llama-server parse them again
        when rendering the history, and would fail the whole next round.
        """
        if isinstance(self.arguments, dict):
            return json.dumps(self.arguments, ensure_ascii=False)
        try:
            return self.arguments if isinstance(json.loads(self.arguments), dict) else "{}"
        except ValueError:
            return "{}"


class ModelReply(msgspec.Struct, kw_only=True):
    text: str
    tool_calls: list[ToolCall]
    seconds: float = 0.0


def tool_name(capability: str) -> str:
    """``web.search`` → ``web-search``: some servers accept only ``[A-Za-z0-9_-]`` in function names.

    Capability names never contain ``-``, so the mapping is exact in both directions.
    """
    return capability.replace(".", "-")


def capability_name(tool: str) -> str:
    return tool.replace("-", ".")


class ModelClient:
    """Asks the OpenAI-compatible model for the next step of a conversation, offering tools."""

    def __init__(self, config: ModelConfig, client_factory: Callable[..., httpx.AsyncClient] = http_client) -> None:
        self.config = config
        self._client_factory = client_factory
        self._client: httpx.AsyncClient | None = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            headers = {"Authorization": f"Bearer {self.config.api_key}"} if self.config.api_key else {}
            self._client = self._client_factory(
                base_url=self.config.base_url.rstrip("/") + "/",
                timeout=httpx.Timeout(self.config.timeout, connect=min(5.0, self.config.timeout)),
                headers=headers,
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, round_number: int = 1
    ) -> ModelReply:
        body: dict[str, Any] = {"model": self.config.model, "messages": messages}
        if tools:
            body["tools"] = tools
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        if self.config.temperature is not None:
            body["temperature"] = self.config.temperature
        if self.config.thinking != "default":
            body["chat_template_kwargs"] = {"enable_thinking": self.config.thinking == "on"}
        started = time.perf_counter()
        try:
            response = await self._http().post("chat/completions", json=body)
        except httpx.TimeoutException:
            raise ModelUnavailable(
                f"the model at {self.config.base_url} did not answer within {self.config.timeout:g} s"
            ) from None
        except httpx.HTTPError as error:
            raise ModelUnavailable(
                f"the model at {self.config.base_url} cannot be reached ({type(error).__name__})"
            ) from None
        if response.status_code != 200:
            raise ModelUnavailable(f"the model at {self.config.base_url} answered HTTP {response.status_code}")
        try:
            reply = parse_reply(response.content, round_number)
        except ValueError as error:
            raise ModelUnavailable(f"the model's answer is not a chat completion: {error}") from None
        reply.seconds = time.perf_counter() - started
        return reply

    async def check(self) -> str:
        """For health checks: is a server answering at ``base_url``? (``GET models``, no tokens spent)."""
        try:
            response = await self._http().get("models", timeout=3)
        except httpx.HTTPError as error:
            raise ModelUnavailable(
                f"cannot be reached at {self.config.base_url} ({type(error).__name__}); conversations need a "
                "model there ([model] base_url), or `steward dev-model` to try one out"
            ) from None
        if response.status_code >= 500:
            raise ModelUnavailable(f"answered HTTP {response.status_code}")
        return f"answers at {self.config.base_url}"


def parse_reply(content: bytes, round_number: int = 1) -> ModelReply:
    """Normalise one chat-completions response body; ``ValueError`` when it is not one.

    Call ids are ours, ``call`` + round + index (9 characters, letters and digits: what the
    strictest servers, Mistral's, accept), unique within a turn whatever the model sent.
    """
    try:
        document = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        raise ValueError("not JSON") from None
    try:
        message = document["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise ValueError("no choices[0].message") from None
    if not isinstance(message, dict):
        raise ValueError("choices[0].message is not an object")
    raw_calls = message.get("tool_calls") or []
    if not raw_calls and isinstance(message.get("function_call"), dict):
        raw_calls = [{"function": message["function_call"]}]
    if not isinstance(raw_calls, list):
        raise ValueError("tool_calls is not a list")
    calls = [_tool_call(raw, f"call{round_number % 100:02d}{index % 1000:03d}") for index, raw in enumerate(raw_calls)]
    return ModelReply(text=_text(message.get("content")), tool_calls=calls)


def _text(content: Any) -> str:
    """The reply's prose, without a thinking model's reasoning: servers that separate it send it
    as ``reasoning_content`` (never read here); those that do not leave ``<think>…</think>`` in
    the text, which is cut, an unclosed one to the end (a reply cut off while thinking)."""
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
    if not isinstance(content, str):
        return ""
    return _THINKING.sub("", content).strip() if "<think>" in content else content


_THINKING = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL)


def _tool_call(raw: Any, call_id: str) -> ToolCall:
    function = raw.get("function") if isinstance(raw, dict) else None
    if not isinstance(function, dict):
        return ToolCall(id=call_id, tool_name="", arguments={})
    name = function.get("name") if isinstance(function.get("name"), str) else ""
    arguments = function.get("arguments")
    if arguments is None or arguments == "":
        arguments = {}
    elif not isinstance(arguments, dict | str):
        arguments = json.dumps(arguments)
    return ToolCall(id=call_id, tool_name=name, arguments=arguments)
