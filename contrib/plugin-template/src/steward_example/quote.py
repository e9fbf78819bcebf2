"""``example.quote``: fetches a quote from a service the operator configured.

It leaves the device, so Steward asks a person before every run (that is derived from
``network=external``; the plugin cannot opt out), and it only runs while the household's
``example_quotes_enabled`` flag is on.
"""

from typing import Annotated, Literal

import httpx
import msgspec

import steward

QUOTES_FLAG = steward.PolicyFlag("example_quotes_enabled", "Lets example.quote ask the quote service.")


class QuoteSettings(msgspec.Struct, forbid_unknown_fields=True):
    """``[plugins.example]`` in steward.toml."""

    quote_url: str = ""


class QuoteArguments(msgspec.Struct):
    topic: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
    style: Literal["short", "long"] = "short"


class Quote(msgspec.Struct):
    topic: str
    quote: Annotated[str, msgspec.Meta(max_length=2000)]


def not_configured(arguments: QuoteArguments, context: steward.InvocationContext) -> steward.Rejection | None:
    """Stage 3: refuse before anyone is asked to confirm something that cannot run."""
    if not context.settings.quote_url:
        return steward.Rejection("CAPABILITY_NOT_CONFIGURED", "set [plugins.example] quote_url first")
    return None


async def fetch_quote(arguments: QuoteArguments, context: steward.InvocationContext) -> Quote:
    async with context.http_client() as client:
        try:
            response = await client.get(
                context.settings.quote_url, params={"topic": arguments.topic, "style": arguments.style}
            )
        except httpx.HTTPError as error:
            raise steward.CapabilityError(
                "UPSTREAM_UNAVAILABLE", f"quote service unreachable ({type(error).__name__})"
            ) from None
    if response.status_code != 200:
        raise steward.CapabilityError("UPSTREAM_UNAVAILABLE", f"quote service answered {response.status_code}")
    return Quote(topic=arguments.topic, quote=response.text[:2000])


def quote_capability() -> steward.Capability:
    return steward.Capability(
        name="example.quote",
        version=1,
        description="Fetch a quote about a topic from the household's quote service.",
        arguments=QuoteArguments,
        result=Quote,
        side_effect=steward.SideEffect.READ_ONLY,
        network=steward.Network.EXTERNAL,
        handler=fetch_quote,
        policy_key=QUOTES_FLAG.name,
        policy_check=not_configured,
        bounds=steward.Bounds(timeout_seconds=5, max_result_bytes=4096),
    )


def quote_health_check(settings: QuoteSettings) -> steward.HealthCheck:
    async def check() -> str:
        if not settings.quote_url:
            return "not configured"
        async with steward.http_client(timeout=2) as client:
            response = await client.get(settings.quote_url, params={"topic": "health"})
        response.raise_for_status()
        return "answers"

    return steward.HealthCheck("quote service", check)
