"""``example.greet``: read_only + local, so it runs without asking anyone."""

from typing import Annotated

import msgspec

import steward


class GreetArguments(msgspec.Struct):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=50, description="Who to greet.")]


class Greeting(msgspec.Struct):
    text: str


async def greet(arguments: GreetArguments, context: steward.InvocationContext) -> Greeting:
    return Greeting(f"Hello, {arguments.name}!")


def greet_capability() -> steward.Capability:
    return steward.Capability(
        name="example.greet",
        version=1,
        description="Greet someone by name.",
        arguments=GreetArguments,
        result=Greeting,
        side_effect=steward.SideEffect.READ_ONLY,
        network=steward.Network.LOCAL,
        handler=greet,
    )
