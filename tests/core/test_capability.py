import msgspec
import pytest

import steward
from steward import Bounds, Capability, InvalidCapability


class Arguments(msgspec.Struct):
    text: str


class Result(msgspec.Struct):
    text: str


async def handler(arguments, context):
    return Result(arguments.text)


def declare(**changes) -> Capability:
    fields = {
        "name": "family.verb",
        "version": 1,
        "description": "Does a thing.",
        "arguments": Arguments,
        "result": Result,
        "side_effect": "read_only",
        "network": "local",
        "handler": handler,
    } | changes
    return Capability(**fields)


@pytest.mark.parametrize(
    ("side_effect", "network", "confirmation"),
    [
        ("read_only", "local", "automatic"),
        ("read_only", "external", "required"),
        ("mutating", "local", "required"),
        ("mutating", "external", "required"),
    ],
)
def test_confirmation_is_derived(side_effect, network, confirmation):
    capability = declare(side_effect=side_effect, network=network)
    assert capability.classification.confirmation == confirmation
    assert capability.side_effect is steward.SideEffect(side_effect)


def test_positional_declaration_and_defaults():
    capability = Capability("a.b", 2, "d", Arguments, Result, "read_only", "local", handler)
    assert capability.bounds == Bounds(timeout_seconds=10, max_result_bytes=65536, max_invocations_per_turn=1)
    assert capability.policy_key is None


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"name": "Family.Verb"}, "family.verb"),
        ({"name": "noverb"}, "family.verb"),
        ({"name": "a.b.c"}, "family.verb"),
        ({"version": 0}, "version"),
        ({"version": True}, "version"),
        ({"description": " "}, "description"),
        ({"arguments": dict}, "arguments must be a msgspec.Struct"),
        ({"result": Result(text="x")}, "result must be a msgspec.Struct"),
        ({"side_effect": "readonly"}, "unknown classification"),
        ({"network": "lan"}, "unknown classification"),
        ({"handler": "run"}, "handler must be callable"),
        ({"policy_key": "Web-Search"}, "policy_key"),
        ({"policy_check": "yes"}, "policy_check"),
        ({"bounds": {"timeout_seconds": 1}}, "steward.Bounds"),
        ({"action": "Say {words}"}, "action names {words}, which is not one of the arguments"),
        ({"action": "Say {text.upper}"}, "action names {text.upper}"),
        ({"action": "Say {}"}, "action names {}"),
        ({"action": "Say {text"}, "is not a template"),
        ({"action": 3}, "action must be a string"),
        ({"title": None}, "title must be a string"),
    ],
)
def test_invalid_declarations_say_why(changes, reason):
    with pytest.raises(InvalidCapability, match=reason.replace(".", r"\.")):
        declare(**changes)


def test_what_one_call_will_do_is_said_with_its_arguments():
    capability = declare(title="Say something", action="Say {text} out loud")
    assert capability.says({"text": "good night"}) == "Say good night out loud"
    long = capability.says({"text": "a" * 500})
    assert long == f"Say {'a' * 119}… out loud"
    assert declare(title="Say something").says({"text": "x"}) == "Say something"
    assert declare().says({"text": "x"}) == "family.verb"
    assert capability.says({"text": {"nested": [1, 2]}}) == 'Say {"nested":[1,2]} out loud'


@pytest.mark.parametrize(
    "bounds",
    [{"timeout_seconds": 0}, {"max_result_bytes": -1}, {"max_invocations_per_turn": 1.5}, {"timeout_seconds": True}],
)
def test_invalid_bounds(bounds):
    with pytest.raises(InvalidCapability, match="bounds"):
        Bounds(**bounds)


def test_async_callable_objects_are_handlers():
    class Handler:
        async def __call__(self, arguments, context):
            return Result("x")

    assert declare(handler=Handler()).handler is not None


def test_codes_must_be_upper_snake_case():
    with pytest.raises(ValueError, match="UPPER_SNAKE_CASE"):
        steward.CapabilityError("oops", "m")
    with pytest.raises(ValueError, match="UPPER_SNAKE_CASE"):
        steward.Rejection("not allowed", "m")
