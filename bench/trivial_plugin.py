"""The plugin both benchmarks measure: one trivial local capability, and a bare route beside it."""

import msgspec
from starlette.responses import Response
from starlette.routing import Route

import steward


class Ping(msgspec.Struct):
    text: str


async def ping(arguments: Ping, context: steward.InvocationContext) -> Ping:
    return Ping(arguments.text)


PING = steward.Capability(
    "bench.ping", 1, "Echo a short text.", Ping, Ping, steward.SideEffect.READ_ONLY, steward.Network.LOCAL, ping
)


REMOTE = steward.Capability(
    "bench.remote",
    1,
    "Echo, as if it left the device.",
    Ping,
    Ping,
    steward.SideEffect.READ_ONLY,
    steward.Network.EXTERNAL,
    ping,
)


async def bare(request):
    """The same JSON the invoke endpoint answers, with none of Steward's work."""
    return Response(request.app.state.bare_body, media_type="application/json")


@steward.hookimpl
def register_capabilities():
    return [PING, REMOTE]


@steward.hookimpl
def register_routes():
    return [Route("/bench/bare", bare, methods=["POST"])]
