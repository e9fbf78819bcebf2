"""React's streamed server rendering, put together the way the page's own scripts would.

React 18 and later (Next.js's App Router, Remix, any streaming server renderer) send a page in
pieces. Where a part is not ready, the server writes a placeholder (``<template id="B:0">``) and
goes on; the part follows later, near the end of the body, in a hidden ``<div id="S:0">``, with a
one-line script that moves it into place (``$RC("B:0","S:0")``). A browser runs those scripts as
they arrive, so a reader sees one page; an extractor that does not run them finds the page's
content after the footer, hidden, and drops it or reads it out of order. Doing the moves the
scripts name, in their order, gives the page the reader sees. Nothing else of the scripts is
run or read.

The moves: ``$RC(boundary, segment)`` and ``$RR(boundary, segment, styles)`` complete a Suspense
boundary; ``$RS(segment, placeholder)`` fills a placeholder (``<template id="P:1">``) inside
another part. React's external runtime says the same with attributes of a ``template``
(``data-rci`` or ``data-rri`` with ``data-bid`` and ``data-sid``; ``data-rsi`` with ``data-sid``
and ``data-pid``). A boundary completed with an error (a third argument that is a digest) is left
as it is: the browser renders it on the client, from data the page does not hold.
"""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element

from steward_websearch.extraction.tree import add_text

_CALL = re.compile(r"""\$R([CRS])\(\s*["']([^"'\\]{1,64})["']\s*,\s*["']([^"'\\]{1,64})["']\s*([,)])""")
_PENDING = re.compile(
    r"""<template id="(B:[^"]{1,64})"></template>(?:(?!<!--\$|<template id="B:).){0,65536}?<!--/\$-->""", re.DOTALL
)


def drop_fallbacks(source: str) -> str:
    """``source`` without the fallbacks (a spinner, "Loading…", a skeleton) of the boundaries it completes.

    React shows a fallback between a boundary's ``template`` and its closing ``<!--/$-->`` comment
    until the part arrives, then takes it out; the comments are what mark its end, and the parse
    leaves comments out, so this is done on the source. A fallback that holds another boundary is
    left alone, and so is the fallback of a boundary the page never completes: that is what the
    reader sees.
    """
    if '<template id="B:' not in source:
        return source
    completed = {placeholder for _, placeholder in _script_moves(source)}
    completed.update(_COMPLETED_BY_ATTRIBUTE.findall(source))
    if not completed:
        return source

    def without_fallback(boundary: re.Match[str]) -> str:
        return f'<template id="{boundary[1]}"></template><!--/$-->' if boundary[1] in completed else boundary[0]

    return _PENDING.sub(without_fallback, source)


_COMPLETED_BY_ATTRIBUTE = re.compile(r'<template\b[^>]*\bdata-r[cr]i\b[^>]*\bdata-bid="([^"]{1,64})"')


def place_streamed_parts(root: Element) -> int:
    """Put every streamed part in its placeholder, as the page's scripts name them; how many were placed.

    All the moves are made in one pass over each element they touch, so the cost grows with the
    page, not with the number of parts times the size of their parents.
    """
    if next(root.iter("template"), None) is None:
        return 0
    moves = _moves(root)
    if not moves:
        return 0
    by_id = {element.get("id"): element for element in root.iter() if element.tag in ("div", "template")}
    parents = {child: parent for parent in root.iter() for child in parent}
    fills: dict[Element, Element] = {}
    for segment_id, placeholder_id in moves:
        segment, placeholder = by_id.pop(segment_id, None), by_id.get(placeholder_id)
        if segment is None or placeholder is None or segment.tag != "div" or placeholder.tag != "template":
            continue
        if segment in parents and placeholder in parents and not _is_within(placeholder, segment, parents):
            fills[placeholder] = segment
    placed, segments = len(fills), set(fills.values())
    for parent in {parents[element] for element in [*segments, *fills]} - segments:
        _rebuild(parent, fills, segments)
    return placed


def _moves(root: Element) -> list[tuple[str, str]]:
    """(segment id, placeholder id) of every move: the scripts' in their order, then the templates'."""
    moves = [move for script in root.iter("script") if script.text for move in _script_moves(script.text)]
    for template in root.iter("template"):
        if template.get("data-rci") is not None or template.get("data-rri") is not None:
            moves.append((template.get("data-sid") or "", template.get("data-bid") or ""))
        elif template.get("data-rsi") is not None:
            moves.append((template.get("data-sid") or "", template.get("data-pid") or ""))
    return moves


def _script_moves(text: str) -> list[tuple[str, str]]:
    """(segment id, placeholder id) of the ``$RS`` / ``$RC`` / ``$RR`` calls in ``text``, in order.

    A ``$RC`` with a third argument (an error digest) is no move: that boundary renders on the client.
    """
    if "$R" not in text:
        return []
    return [
        (first, second) if kind == "S" else (second, first)
        for kind, first, second, end in _CALL.findall(text)
        if kind != "C" or end == ")"
    ]


def _is_within(element: Element, ancestor: Element, parents: dict[Element, Element]) -> bool:
    node: Element | None = element
    while node is not None:
        if node is ancestor:
            return True
        node = parents.get(node)
    return False


def _rebuild(parent: Element, fills: dict[Element, Element], segments: set[Element]) -> None:
    """Give ``parent`` its children again, without the parts that move and with each placeholder filled.

    Iterative, as parts can fill placeholders inside parts to any depth.
    """
    pending: list[Element | str] = [*reversed(parent)]
    kept: list[Element] = []
    parent.text, text = None, parent.text
    add_text(kept, parent, text)
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            add_text(kept, parent, item)
        elif item in segments:
            add_text(kept, parent, item.tail)
        elif (segment := fills.pop(item, None)) is None:
            kept.append(item)
        else:
            pending.append(item.tail or "")
            pending.extend(reversed(segment))
            pending.append(segment.text or "")
    parent[:] = kept
