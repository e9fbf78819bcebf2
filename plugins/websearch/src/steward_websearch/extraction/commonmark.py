"""What a CommonMark reader needs of the Markdown we write, so that it shows the page's text.

The renderer decides *what* is bold, a link or code; this module writes it so that a reader
(CommonMark, GFM) reads it back as meant. Emphasis and code are written as markers while the
text is built and resolved once it is whole, because only then are the characters on either
side of a delimiter known: ``**Note:**Text`` and ``** bold **`` are literal asterisks to a
reader, two ``<code>`` side by side must not touch (```a``b```), and code holding backticks
needs a longer fence.
"""

from __future__ import annotations

import itertools
import re
import unicodedata

STRONG, EMPHASIS, STRIKE, CODE = ("\ufdd0", "\ufdd1"), ("\ufdd2", "\ufdd3"), ("\ufdd4", "\ufdd5"), ("\ufdd6", "\ufdd7")
"""Opening and closing markers: Unicode noncharacters, which a program may keep for its own use."""
_KINDS = (STRONG, EMPHASIS, STRIKE, CODE)
_CLOSING = dict(_KINDS)
_MARKERS = "".join(STRONG + EMPHASIS + STRIKE + CODE)
_MARKER = re.compile(f"[{_MARKERS}]")
_EMPHASIS_MARKERS = "".join(STRONG + EMPHASIS + STRIKE)
_WRITTEN = {marker: written for kind, written in ((STRONG, "**"), (EMPHASIS, "*"), (STRIKE, "~~")) for marker in kind}
_SEEN_AS = {**_WRITTEN, CODE[0]: "`", CODE[1]: "`"}
"""What a reader sees where a marker stands, once written: code is fenced by backticks."""
LINK = "\ufdd8"
"""Where a link's ``[`` opens: after a ``!`` it would open an image, so that ``!`` is escaped."""
_NO_MARKERS = dict.fromkeys(map(ord, _MARKERS + LINK))
_ANY_MARKER = re.compile(f"[{_MARKERS}{LINK}]")
_SYNTAX = re.compile(r"[\\`*_\[\]~<&]")
_SYNTAX_OR_MARKER = re.compile(f"[\\\\`*_\\[\\]~<&{_MARKERS}{LINK}]")
"""What ``escape`` has work for: most of a page's text holds none of it, and is returned as it is."""
_ESCAPED = re.compile(r"[\\`*_\[\]]|~(?=~)|(?<=~)~|<(?=[A-Za-z/!?])|&(?=#?\w+;)")
_TOUCHING = re.compile("|".join(closing + opening for opening, closing in _KINDS))
_CODE_SPAN = re.compile(f"{CODE[0]}([^{CODE[1]}]*){CODE[1]}")
_BACKTICKS = re.compile("`+")
_OPENS_A_BLOCK = re.compile(r">|#{1,6}(?!\S)|=+\s*$|-+\s*$|[-+](?!\S)")
_NUMBERS_AN_ITEM = re.compile(r"\d{1,9}(?=[.)](?!\S))")
"""The number of an ordered list's item: its ``.`` or ``)`` is escaped, a backslash before a digit is text."""


def escape(text: str) -> str:
    """Text as Markdown that shows it: the characters that would start syntax are escaped.

    ``<`` only where it would open a tag or an autolink (``Option<U>``, ``<entry>``), ``&`` only
    where it would be read as an entity (``&amp;`` written in the text), ``~`` only doubled.
    """
    if not _SYNTAX_OR_MARKER.search(text):
        return text
    text = plain(text)
    return _ESCAPED.sub(lambda match: "\\" + match.group(0), text) if _SYNTAX.search(text) else text


def line(text: str) -> str:
    """A line of a paragraph that opens no block: ``>`` would quote it, ``# `` make it a heading,
    ``- `` or ``+ `` a list's item, ``2020. `` or ``1) `` a numbered list's (its number the
    item's marker: "1) Lego" read back as "1. Lego"), and a line of ``=`` or ``-`` would make the
    line before it a heading. Looked for past the emphasis the line opens with: emphasis a reader
    would not read is left out, and the ``>`` then leads."""
    rest = text.lstrip(_EMPHASIS_MARKERS)
    opened = len(text) - len(rest)
    if _OPENS_A_BLOCK.match(rest):
        return text[:opened] + "\\" + rest
    number = _NUMBERS_AN_ITEM.match(rest)
    if number:
        return text[: opened + number.end()] + "\\" + text[opened + number.end() :]
    return text


def plain(text: str) -> str:
    """Text as it is, without markers (what a code span holds). Page text hardly ever holds
    them, and looking costs a tenth of translating."""
    return text.translate(_NO_MARKERS) if _ANY_MARKER.search(text) else text


def wrap(kind: tuple[str, str], inner: str) -> str:
    return f"{kind[0]}{inner}{kind[1]}"


def resolve(text: str) -> str:
    """The markers of ``text`` written as CommonMark.

    Bold inside bold is bold once; runs that touch are one (``<b>Game D</b><b>ay</b>``); code
    spans get their fences; and emphasis a reader would not read as emphasis is left as plain
    text rather than shown as asterisks.
    """
    text = text.replace("!" + LINK, "\\![").replace(LINK, "[")
    if not _MARKER.search(text):
        return text
    text = _joined(_without(text, _pairs(text)[1]))
    text = _joined(_emphasis(text))
    return _CODE_SPAN.sub(lambda match: code_span(match.group(1)), text)


def _joined(text: str) -> str:
    """``text`` with the runs that touch made one: the emphasis and code a reader sees as one."""
    while (joined := _TOUCHING.sub("", text)) != text:
        text = joined
    return text


def code_span(code: str) -> str:
    """``code`` between enough backticks that none inside ends it; nothing for no code."""
    if not code.strip():
        return ""
    fence = "`" * (_longest_backticks(code) + 1)
    padding = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{fence}{padding}{code}{padding}{fence}"


def code_fence(code: str) -> str:
    """A fence for a code block, longer than any run of backticks the code holds."""
    return "`" * max(3, _longest_backticks(code) + 1)


def _longest_backticks(code: str) -> int:
    return max(map(len, _BACKTICKS.findall(code)), default=0)


def link_destination(url: str) -> str:
    """``url`` as a link's destination: spaces, parentheses, backslashes and control characters
    would end it early or be read as escapes (``Ajax_(programming)``)."""
    return re.sub(r"[\x00-\x20\x7f()\\]", lambda match: f"%{ord(match.group(0)):02X}", url)


def _pairs(text: str) -> tuple[list[tuple[int, int]], set[int]]:
    """The positions of each opening marker and its closing one, and of the markers to leave
    out: those without a pair, and those inside a pair of their own kind."""
    pairs: list[tuple[int, int]] = []
    left_out: set[int] = set()
    open_at: list[int] = []
    for match in _MARKER.finditer(text):
        index, marker = match.start(), match.group(0)
        if marker in _CLOSING:
            open_at.append(index)
        elif open_at and _CLOSING[text[open_at[-1]]] == marker:
            opening = open_at.pop()
            if any(text[outer] == text[opening] for outer in open_at):
                left_out |= {opening, index}
            else:
                pairs.append((opening, index))
        else:
            left_out.add(index)
    return pairs, left_out | set(open_at)


def _without(text: str, positions: set[int]) -> str:
    edges = [-1, *sorted(positions), len(text)]
    return "".join(text[start + 1 : end] for start, end in itertools.pairwise(edges))


def _emphasis(text: str) -> str:
    """Each pair of emphasis markers as its delimiters, or as nothing where a reader would not
    read them as emphasis: an opening delimiter run must not be followed by a space, nor by
    punctuation where a letter comes before it; a closing run the mirror (CommonMark's flanking)."""
    pairs = [pair for pair in _pairs(text)[0] if text[pair[0]] in _WRITTEN]
    dropped: set[int] = set()
    while failing := {
        index
        for opening, closing in pairs
        if not (_can_open(text, opening, dropped) and _can_close(text, closing, dropped))
        for index in (opening, closing)
    }:
        dropped |= failing
        pairs = [pair for pair in pairs if pair[0] not in failing]
    return _MARKER.sub(
        lambda match: "" if match.start() in dropped else _WRITTEN.get(match.group(0), match.group(0)), text
    )


def _neighbour(text: str, index: int, step: int, dropped: set[int]) -> str:
    """The character a reader sees beside the delimiter run that holds the delimiter at
    ``index`` (``***`` is one run for ``**`` and ``*``); a line's edge is a space."""
    written = _WRITTEN[text[index]][0]
    index += step
    while 0 <= index < len(text) and (index in dropped or _WRITTEN.get(text[index], " ")[0] == written):
        index += step
    if not 0 <= index < len(text):
        return " "
    return _SEEN_AS.get(text[index], text[index])[0]


def _can_open(text: str, index: int, dropped: set[int]) -> bool:
    before, after = _neighbour(text, index, -1, dropped), _neighbour(text, index, 1, dropped)
    return not (_is_space(after) or (_is_punctuation(after) and not (_is_space(before) or _is_punctuation(before))))


def _can_close(text: str, index: int, dropped: set[int]) -> bool:
    before, after = _neighbour(text, index, -1, dropped), _neighbour(text, index, 1, dropped)
    return not (_is_space(before) or (_is_punctuation(before) and not (_is_space(after) or _is_punctuation(after))))


def _is_space(character: str) -> bool:
    return character.isspace() or unicodedata.category(character) == "Zs"


def _is_punctuation(character: str) -> bool:
    return unicodedata.category(character)[0] in "PS"
