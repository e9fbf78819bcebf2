"""Normalising what real chat-completions servers send (unit level; the HTTP tests use a real server)."""

import json

import pytest

from steward._model import ToolCall, capability_name, parse_reply, tool_name


def completion(message, finish_reason="tool_calls") -> bytes:
    return json.dumps({"choices": [{"index": 0, "message": message, "finish_reason": finish_reason}]}).encode()


def call(arguments, **extra):
    return {"type": "function", "function": {"name": "web-search", "arguments": arguments}, **extra}


def test_llama_server_string_arguments():
    reply = parse_reply(
        completion({"role": "assistant", "content": None, "tool_calls": [call('{"query": "tea"}', id="a")]}), 3
    )
    assert reply.text == ""
    assert [(c.id, c.tool_name, c.arguments) for c in reply.tool_calls] == [
        ("call03000", "web-search", '{"query": "tea"}')
    ]


def test_ollama_object_arguments_and_missing_ids():
    reply = parse_reply(
        completion(
            {"role": "assistant", "content": "", "tool_calls": [call({"query": "tea"}), call({"query": "milk"})]}
        )
    )
    assert [c.id for c in reply.tool_calls] == ["call01000", "call01001"]
    assert reply.tool_calls[1].arguments == {"query": "milk"}


def test_text_beside_calls_and_finish_reason_ignored():
    reply = parse_reply(
        completion({"role": "assistant", "content": "Let me look.", "tool_calls": [call("{}")]}, "stop")
    )
    assert reply.text == "Let me look."
    assert len(reply.tool_calls) == 1


def test_content_parts_and_legacy_function_call():
    parts = {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    assert parse_reply(completion(parts, "stop")).text == "ab"
    legacy = {"role": "assistant", "content": None, "function_call": {"name": "web-search", "arguments": "{}"}}
    assert parse_reply(completion(legacy, "function_call")).tool_calls[0].tool_name == "web-search"


@pytest.mark.parametrize(
    ("arguments", "echoed"),
    [
        ('{"query": ', "{}"),
        ("[1]", "{}"),
        ({"q": 1}, '{"q": 1}'),
        ('{"q": 1}', '{"q": 1}'),
        (None, "{}"),
        ("", "{}"),
        (7, "{}"),
    ],
)
def test_arguments_are_echoed_as_an_object_text(arguments, echoed):
    reply = parse_reply(completion({"role": "assistant", "tool_calls": [call(arguments)]}))
    assert reply.tool_calls[0].arguments_json == echoed


def test_calls_without_a_function_name_go_to_the_executor_to_be_refused():
    reply = parse_reply(
        completion({"role": "assistant", "tool_calls": [{"type": "function"}, {"function": {"arguments": "{}"}}]})
    )
    assert [c.tool_name for c in reply.tool_calls] == ["", ""]
    assert isinstance(reply.tool_calls[0], ToolCall)


@pytest.mark.parametrize(
    "body",
    [
        b"<html>",
        b"{}",
        b'{"choices": []}',
        b'{"choices": [{"message": "hi"}]}',
        b'{"choices": [{"message": {"tool_calls": 3}}]}',
    ],
)
def test_garbage_is_refused(body):
    with pytest.raises(ValueError, match=r"not JSON|choices|tool_calls"):
        parse_reply(body)


def test_tool_names_round_trip():
    for name in ("web.search", "home_assistant.get_history", "a_b.c_d"):
        assert capability_name(tool_name(name)) == name
        assert "." not in tool_name(name)


@pytest.mark.parametrize(
    ("message", "text"),
    [
        ({"content": "Kettles boil.", "reasoning_content": "The user asks about kettles; I think…"}, "Kettles boil."),
        ({"content": "<think>\nThey want a short answer.\n</think>\n\nKettles boil."}, "Kettles boil."),
        ({"content": "<think>still thinking when the tokens ran out"}, ""),
        (
            {"content": [{"type": "text", "text": "<think>x</think>"}, {"type": "text", "text": "Kettles boil."}]},
            "Kettles boil.",
        ),
        ({"content": "A <b>tag</b>, not thinking."}, "A <b>tag</b>, not thinking."),
    ],
    ids=["reasoning-content", "think-block", "unclosed", "parts", "no-thinking"],
)
def test_a_thinking_models_reasoning_is_never_part_of_the_text(message, text):
    assert parse_reply(completion({"role": "assistant", **message}, "stop")).text == text


@pytest.mark.parametrize(("thinking", "sent"), [("default", None), ("off", False), ("on", True)])
def test_thinking_is_switched_only_when_configured(thinking, sent):
    import asyncio

    import steward
    from steward._model import ModelClient
    from steward.testing import ScriptedModel, serve_app

    scripted = ScriptedModel(rules=())
    with serve_app(scripted.app()) as url:
        config = steward.ModelConfig(base_url=f"{url}/v1", thinking=thinking)

        async def ask() -> None:
            client = ModelClient(config)
            await client.complete([{"role": "user", "content": "hi"}], tools=[])
            await client.aclose()

        asyncio.run(ask())
    if sent is None:
        assert "chat_template_kwargs" not in scripted.requests[-1]
    else:
        assert scripted.requests[-1]["chat_template_kwargs"] == {"enable_thinking": sent}
