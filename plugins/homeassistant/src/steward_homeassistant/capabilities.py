"""``home_assistant.list_entities`` and ``home_assistant.get_history``.

Both are read_only but *external* (Home Assistant is another host, even on the LAN), so a person
confirms every run. Stage 3 decides, before any confirmation and before any request: disabled
(the default) → ``CAPABILITY_DISABLED`` (the policy flag); enabled without a base URL or token →
``CAPABILITY_NOT_CONFIGURED``; an entity outside the allowlist → ``ENTITY_NOT_ALLOWLISTED``,
without saying whether it exists. The model sees a curated, length-capped view, never raw
attribute blobs, and only allowlisted entities.
"""

from __future__ import annotations

import datetime
from typing import Annotated, Any, Literal

import msgspec

import steward
from steward_homeassistant.client import HomeAssistantClient
from steward_homeassistant.codes import HomeAssistantCode
from steward_homeassistant.household import read_settings, read_token

TEXT_CAP = 120
MAX_CHANGES = 50
PERIODS = {"hour": datetime.timedelta(hours=1), "day": datetime.timedelta(days=1), "week": datetime.timedelta(weeks=1)}


class NoArguments(msgspec.Struct, forbid_unknown_fields=True):
    pass


class Entity(msgspec.Struct, kw_only=True):
    entity_id: str
    friendly_name: str
    domain: str
    state: str
    unit_of_measurement: str | None
    last_changed: str


class EntityList(msgspec.Struct, kw_only=True):
    entities: list[Entity]
    retrieved_at: str


class HistoryArguments(msgspec.Struct, forbid_unknown_fields=True):
    entity_id: Annotated[
        str, msgspec.Meta(pattern=r"^[A-Za-z0-9_]+\.[A-Za-z0-9_]+$", max_length=255, description="domain.object_id")
    ]
    period: Literal["hour", "day", "week"]


class Change(msgspec.Struct):
    state: str
    changed_at: str


class History(msgspec.Struct, kw_only=True):
    entity_id: str
    period: str
    state_at_start: str | None
    changes: Annotated[list[Change], msgspec.Meta(max_length=MAX_CHANGES)]
    omitted_changes: int
    retrieved_at: str


def _cap(value: Any) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= TEXT_CAP else text[: TEXT_CAP - 1] + "…"


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def _client(context: steward.InvocationContext) -> HomeAssistantClient:
    settings = read_settings(context.data_dir)
    return HomeAssistantClient(settings.base_url, read_token(context.data_dir), ca_bundle=context.settings.ca_bundle)


def check_configured(arguments: Any, context: steward.InvocationContext) -> steward.Rejection | None:
    settings = read_settings(context.data_dir)
    if not settings.base_url or not read_token(context.data_dir):
        return steward.Rejection(
            steward.Code.CAPABILITY_NOT_CONFIGURED, "Home Assistant is enabled but has no base URL or access token yet"
        )
    entity_id = getattr(arguments, "entity_id", None)
    if entity_id is not None and not settings.allows(entity_id):
        return steward.Rejection(steward.Code.ENTITY_NOT_ALLOWLISTED, "that entity is not on the household's allowlist")
    return None


def curated(state: dict[str, Any]) -> Entity:
    attributes = state.get("attributes") if isinstance(state.get("attributes"), dict) else {}
    entity_id = str(state["entity_id"]).lower()
    unit = attributes.get("unit_of_measurement")
    return Entity(
        entity_id=entity_id,
        friendly_name=_cap(attributes.get("friendly_name") or entity_id),
        domain=entity_id.split(".", 1)[0],
        state=_cap(state.get("state", "")),
        unit_of_measurement=_cap(unit) if unit else None,
        last_changed=_cap(state.get("last_changed", "")),
    )


async def list_entities(arguments: NoArguments, context: steward.InvocationContext) -> EntityList:
    allowed = set(read_settings(context.data_dir).allowlisted_entities)
    states = await _client(context).states()
    entities = [curated(state) for state in states if str(state["entity_id"]).lower() in allowed]
    return EntityList(
        entities=sorted(entities, key=lambda e: e.entity_id), retrieved_at=_now().isoformat(timespec="seconds")
    )


async def get_history(arguments: HistoryArguments, context: steward.InvocationContext) -> History:
    entity_id = arguments.entity_id.lower()
    client = _client(context)
    end = _now()
    start = end - PERIODS[arguments.period]
    rows = await client.history(entity_id, start, end)
    if not rows and await client.state(entity_id) is None:
        raise steward.CapabilityError(
            HomeAssistantCode.ENTITY_NOT_FOUND,
            f"Home Assistant has no entity {entity_id} any more (removed or renamed?)",
        )
    state_at_start = None
    changes = []
    for index, row in enumerate(rows):
        changed_at = str(row.get("last_changed", ""))
        if index == 0 and _at_or_before(changed_at, start):
            state_at_start = _cap(row.get("state", ""))
            continue
        changes.append(Change(state=_cap(row.get("state", "")), changed_at=_cap(changed_at)))
    kept = changes[-MAX_CHANGES:]
    return History(
        entity_id=entity_id,
        period=arguments.period,
        state_at_start=state_at_start,
        changes=kept,
        omitted_changes=len(changes) - len(kept),
        retrieved_at=end.isoformat(timespec="seconds"),
    )


def _at_or_before(timestamp: str, moment: datetime.datetime) -> bool:
    """Home Assistant synthesises a first row "as of the start"; its last_changed is the start."""
    try:
        return datetime.datetime.fromisoformat(timestamp) <= moment + datetime.timedelta(seconds=1)
    except ValueError:
        return False


def capabilities() -> list[steward.Capability]:
    common = {
        "side_effect": steward.SideEffect.READ_ONLY,
        "network": steward.Network.EXTERNAL,
        "policy_key": "home_assistant_enabled",
        "policy_check": check_configured,
    }
    return [
        steward.Capability(
            name="home_assistant.list_entities",
            version=1,
            title="Read the home's devices",
            action="Read the current state of the home's allowlisted devices in Home Assistant",
            description="List the household's allowlisted Home Assistant entities with their current state "
            "(name, domain, state, unit, last change).",
            arguments=NoArguments,
            result=EntityList,
            handler=list_entities,
            bounds=steward.Bounds(timeout_seconds=8),
            **common,
        ),
        steward.Capability(
            name="home_assistant.get_history",
            version=1,
            title="Read a device's history",
            action="Read the last {period} of {entity_id} in Home Assistant",
            description="The state changes of one allowlisted Home Assistant entity over the last hour, day or week "
            "(newest 50 kept).",
            arguments=HistoryArguments,
            result=History,
            handler=get_history,
            bounds=steward.Bounds(timeout_seconds=10),
            **common,
        ),
    ]
