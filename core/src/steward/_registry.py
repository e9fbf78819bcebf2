"""The capabilities of the loaded plugins, by name and surface, with what the executor needs precomputed."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from steward._capability import Capability, InvalidCapability


class DuplicateCapability(ValueError):
    """One name declared twice for one surface, or by two plugins: always a start-up error."""


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
    """Every declaration of a name, one per surface it is offered on."""

    def __init__(self) -> None:
        self._entries: dict[str, list[Registered]] = {}

    def add(self, entry: Registered) -> None:
        name = entry.capability.name
        for existing in self._entries.get(name, []):
            if existing.plugin != entry.plugin:
                one, other = sorted((existing.plugin, entry.plugin))
                raise DuplicateCapability(
                    f"capability {name!r} is declared by both plugin {one!r} and plugin {other!r}"
                )
            shared = existing.capability.surfaces & entry.capability.surfaces
            if shared:
                raise DuplicateCapability(
                    f"plugin {entry.plugin!r} declares capability {name!r} twice for the "
                    f"{', '.join(sorted(shared))} surface"
                )
        self._entries.setdefault(name, []).append(entry)

    def get(self, name: str, surface: str | None = None) -> Registered | None:
        """The declaration of ``name`` offered on ``surface`` (with no surface: the first declared)."""
        for entry in self._entries.get(name, ()):
            if surface is None or surface in entry.capability.surfaces:
                return entry
        return None

    def offered_on(self, surface: str) -> list[Registered]:
        return [entry for entry in self if surface in entry.capability.surfaces]

    def __iter__(self) -> Iterator[Registered]:
        return iter(
            sorted(
                (entry for entries in self._entries.values() for entry in entries),
                key=lambda entry: (entry.capability.name, sorted(entry.capability.surfaces)),
            )
        )

    def declarations(self) -> Iterator[list[Registered]]:
        """Each name's declarations, in name order, the one offered on the most surfaces first."""
        for name in sorted(self._entries):
            yield sorted(self._entries[name], key=lambda entry: (-len(entry.capability.surfaces), entry.plugin))

    def __len__(self) -> int:
        return sum(len(entries) for entries in self._entries.values())

    def of_plugin(self, plugin: str) -> list[str]:
        return sorted(name for name, entries in self._entries.items() if entries[0].plugin == plugin)
