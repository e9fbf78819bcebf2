"""The capabilities of the loaded plugins, by name, with what the executor needs precomputed."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from steward.capability import Capability, InvalidCapability


class DuplicateCapability(ValueError):
    """Two plugins declared one name: always a start-up error, whatever ``strict`` says."""


@dataclass(frozen=True)
class Registered:
    capability: Capability
    plugin: str
    arguments_type: type[msgspec.Struct]
    arguments_decoder: msgspec.json.Decoder
    result_decoder: msgspec.json.Decoder
    arguments_schema: dict[str, Any]
    result_schema: dict[str, Any]


def _strict(arguments: type[msgspec.Struct]) -> type[msgspec.Struct]:
    """A subclass that refuses unknown fields, so no plugin can forget to."""
    if arguments.__struct_config__.forbid_unknown_fields:
        return arguments
    return type(arguments.__name__, (arguments,), {"__module__": arguments.__module__}, forbid_unknown_fields=True)


def register(capability: Capability, plugin: str) -> Registered:
    """Precompute decoders and schemas; a schema msgspec cannot express makes the capability invalid."""
    try:
        arguments_schema = msgspec.json.schema(capability.arguments)
        result_schema = msgspec.json.schema(capability.result)
    except (TypeError, ValueError) as error:
        raise InvalidCapability(f"{capability.name}: schema cannot be expressed as JSON Schema: {error}") from None
    arguments_type = _strict(capability.arguments)
    return Registered(
        capability=capability,
        plugin=plugin,
        arguments_type=arguments_type,
        arguments_decoder=msgspec.json.Decoder(arguments_type),
        result_decoder=msgspec.json.Decoder(capability.result),
        arguments_schema=arguments_schema,
        result_schema=result_schema,
    )


class Registry:
    def __init__(self) -> None:
        self._entries: dict[str, Registered] = {}

    def add(self, entry: Registered) -> None:
        existing = self._entries.get(entry.capability.name)
        if existing is not None:
            raise DuplicateCapability(
                f"capability {entry.capability.name!r} is declared by both plugin "
                f"{existing.plugin!r} and plugin {entry.plugin!r}"
            )
        self._entries[entry.capability.name] = entry

    def get(self, name: str) -> Registered | None:
        return self._entries.get(name)

    def __iter__(self) -> Iterator[Registered]:
        return iter(sorted(self._entries.values(), key=lambda entry: entry.capability.name))

    def __len__(self) -> int:
        return len(self._entries)

    def of_plugin(self, plugin: str) -> list[str]:
        return sorted(name for name, entry in self._entries.items() if entry.plugin == plugin)
