"""What a person reads before saying yes, the same on every surface.

The CLI's prompt, an MCP client's elicitation form and the console's card (``console.js``, whose
sentences a browser test holds to these) say the same things in the same words: what would run,
how it touches the world, the exact arguments, and for how long the question stands.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import msgspec

from steward._capability import Classification
from steward._outcome import PendingConfirmation

ARGUMENTS_INTRO = "It would run once with exactly these arguments:"


def confirmation_prompt(pending: PendingConfirmation, classification: Classification | None) -> str:
    """The whole question as text (the CLI, MCP elicitation); ``classification`` when it is known."""
    question = f"Allow {pending.capability} (version {pending.version}) to run?"
    if classification is not None:
        question += " " + touches(classification)
    return (
        f"{question}\n{ARGUMENTS_INTRO}\n{readable_arguments(pending.arguments)}\n"
        f"This request expires in {pending.expires_in_seconds} s."
    )


def touches(classification: Classification) -> str:
    """How a call touches the world, in a person's words: ``It reads only and leaves this device.``"""
    effect = "changes something" if classification.side_effect == "mutating" else "reads only"
    reach = "leaves this device" if classification.network == "external" else "stays on this device"
    return f"It {effect} and {reach}."


_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cn", "Cs"})


def readable_arguments(arguments: Any) -> str:
    """The exact arguments as a person should read them before saying yes: indented JSON in which
    every character that is invisible or reorders the text around it (bidirectional overrides such
    as U+202E, zero-width spaces, line separators) is written as its ``\\uXXXX`` escape.

    Shown raw, ``"\u202eexe.txt"`` reads as ``txt.exe`` and a zero-width space hides a second
    host name; escaped, what is read is what runs. The result is still JSON of the same value.
    """
    text = msgspec.json.format(msgspec.json.encode(arguments), indent=2).decode()
    return "".join(_escaped(char) if unicodedata.category(char) in _HIDDEN_CATEGORIES else char for char in text)


def _escaped(char: str) -> str:
    if char == "\n":
        return char
    code = ord(char)
    if code > 0xFFFF:
        high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        return f"\\u{high:04x}\\u{low:04x}"
    return f"\\u{code:04x}"
