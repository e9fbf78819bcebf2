"""The parsed tree, measured and cut: text and link lengths of every element computed once, its
ancestors and siblings, and removal that keeps the text around what goes."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from xml.etree.ElementTree import Element

from steward_websearch.extraction.vocabulary import CODE

MAX_DEPTH = 150
"""Deeper than this, an element is read as its text (``flatten_deep``)."""


def flatten_deep(root: Element, max_depth: int = MAX_DEPTH) -> None:
    """Replace whatever is nested deeper than ``max_depth`` by its text.

    Real articles are never that deep; pages that are (broken or hostile markup) would otherwise
    exhaust the recursion of anything that walks the tree.
    """
    stack = [(root, 0)]
    while stack:
        element, depth = stack.pop()
        if depth < max_depth:
            stack.extend((child, depth + 1) for child in element)
            continue
        pieces, pending = [], [element]
        while pending:
            node = pending.pop()
            if isinstance(node, str):
                pieces.append(node)
                continue
            if node is not element and node.tail:
                pending.append(node.tail)
            pending.extend(reversed(list(node)))
            if node.text:
                pending.append(node.text)
        for child in list(element):
            element.remove(child)
        element.text = " ".join("".join(pieces).split())


def drop_where(root: Element, unwanted: Callable[[Element, str], bool], *, inside_code: bool = False) -> list[Element]:
    """Remove, keeping their tails, the elements ``unwanted(element, tag)`` names (``tag`` is ``""``
    for comments and processing instructions); what is removed is not looked inside, nor is a
    code block's inside (``outside_code``: its lines are the code's, whatever they read like)
    unless ``inside_code``, as when what never renders is looked for. The walk is ElementTree's
    own, in C, in document order, stepping over what it need not look inside; nothing goes until
    it ends. A parent's children are then rebuilt once, and only when one of them goes, so
    dropping thousands of siblings stays linear and most parents cost no copy at all. The
    elements removed."""
    removed: list[Element] = []
    walk = root.iter()
    next(walk)
    for element in walk:
        tag = element.tag
        if unwanted(element, tag if isinstance(tag, str) else ""):
            removed.append(element)
        elif inside_code or tag not in CODE:
            continue
        if len(element):
            _skip(walk, sum(1 for _ in element.iter()) - 1)
    if removed:
        gone = set(removed)
        for parent in [parent for parent in root.iter() if len(parent) and not gone.isdisjoint(parent)]:
            _drop_children(parent, gone.__contains__)
    return removed


def _skip(walk: Iterator[Element], elements: int) -> None:
    """Move ``walk`` past ``elements`` elements: an element's descendants, which it would go through next."""
    next(itertools.islice(walk, elements - 1, None), None)


def remove_each(elements: Iterable[Element], measures: Measures) -> set[Element]:
    """Remove ``elements``, keeping their tails; one already gone, or inside one that goes, is no
    matter. Each parent's children are rebuilt once, however many of them go. The elements asked
    to go (``Measures.recount`` brings the counts up to date after them)."""
    gone = set(elements)
    for parent in {measures.parent[element] for element in gone if element in measures.parent}:
        _drop_children(parent, gone.__contains__)
    return gone


def remove_keeping_tail(parent: Element, child: Element) -> None:
    """Remove ``child`` but keep its tail text, which belongs to the parent."""
    if child.tail and child.tail.strip():
        index = list(parent).index(child)
        _keep_tail(parent, parent[index - 1] if index > 0 else None, child.tail)
    parent.remove(child)


def _drop_children(parent: Element, unwanted: Callable[[Element], bool]) -> list[Element]:
    """Remove ``parent``'s unwanted children, keeping their tails; the children kept."""
    kept: list[Element] = []
    for child in parent:
        if not unwanted(child):
            kept.append(child)
        else:
            _keep_tail(parent, kept[-1] if kept else None, child.tail)
    if len(kept) < len(parent):
        parent[:] = kept
    return kept


def add_text(kept: list[Element], parent: Element, text: str | None) -> None:
    """Add ``text`` after what ``kept`` holds so far, as ``parent``'s children are rebuilt: to the
    tail of its last child, or to ``parent``'s text. Whitespace and all: code keeps every space."""
    if not text:
        return
    if kept:
        kept[-1].tail = (kept[-1].tail or "") + text
    else:
        parent.text = (parent.text or "") + text


def _keep_tail(parent: Element, before: Element | None, tail: str | None) -> None:
    """Give the tail of a child that goes to the sibling ``before`` it, or to ``parent``'s text."""
    if not tail or not tail.strip():
        return
    if before is not None:
        before.tail = (before.tail or "") + tail
    else:
        parent.text = (parent.text or "") + tail


class Measures:
    """Text and link-text lengths of every element, computed once, bottom-up; and, when asked,
    where an element stands among its siblings (``previous``, ``following``)."""

    def __init__(self, root: Element) -> None:
        self.chars: dict[Element, int] = {}
        self.link_chars: dict[Element, int] = {}
        self.prose_chars: dict[Element, int] = {}
        self._children: dict[Element, list[Element]] = {}
        self._places: dict[Element, int] = {}
        self._root = root
        self._said: str | None = None
        # every element before its ancestors: ElementTree's own walk (in C), reversed
        order = list(root.iter())
        self.parent: dict[Element, Element] = {child: element for element in order for child in element}
        self._count(reversed(order))

    def _count(self, elements: Iterable[Element]) -> None:
        """Count ``elements``, each after the children it holds."""
        chars, link_chars, prose_chars = self.chars, self.link_chars, self.prose_chars
        for element in elements:
            text = element.text
            total = len(text.strip()) if text else 0
            links = prose = 0
            for child in element:
                tail = child.tail
                total += chars[child] + (len(tail.strip()) if tail else 0)
                links += link_chars[child]
                prose += prose_chars[child]
            tag = element.tag
            if tag == "a":
                links = total
            elif tag == "p":
                prose = total if links < total / 2 else 0
            chars[element], link_chars[element], prose_chars[element] = total, links, prose

    def said(self) -> str:
        """All the root's text, lower-cased, as it stood when first asked: read once for the passes
        that look for a word anywhere before reading any block. What passes removed since only
        makes it say more than the tree now does, never less: a pass it lets through finds nothing."""
        if self._said is None:
            self._said = "".join(self._root.itertext()).lower()
        return self._said

    def recount(self, removed: Iterable[Element]) -> None:
        """Bring the counts up to date after ``removed`` left the tree (``remove_each``,
        ``drop_where``): only what held them changes, each recounted from the children it has now,
        nearest first. The same counts a new ``Measures`` of the tree would make, without walking
        all of it; and the siblings are read anew (``forget_siblings``)."""
        depth: dict[Element, int] = {}
        for element in removed:
            chain = []
            node = self.parent.get(element)
            while node is not None and node not in depth:
                chain.append(node)
                node = self.parent.get(node)
            level = depth[node] if node is not None else 0
            for node in reversed(chain):
                level += 1
                depth[node] = level
        self._count(sorted(depth, key=depth.__getitem__, reverse=True))
        self.forget_siblings()

    def link_density(self, element: Element) -> float:
        chars = self.chars.get(element, 0)
        return self.link_chars.get(element, 0) / chars if chars else 0.0

    def previous(self, element: Element) -> Element | None:
        """The sibling before ``element``, as the tree stood when its parent was first asked about
        (since ``forget_siblings``): each parent's children are listed once, so asking about every
        child of a wide parent stays linear."""
        siblings, place = self._siblings(element)
        return siblings[place - 1] if place > 0 else None

    def following(self, element: Element) -> Element | None:
        """The sibling after ``element``, as ``previous`` sees the tree."""
        siblings, place = self._siblings(element)
        return siblings[place + 1] if 0 <= place < len(siblings) - 1 else None

    def forget_siblings(self) -> None:
        """Read the children anew on the next question: after a pass that removed some."""
        self._children.clear()

    def _siblings(self, element: Element) -> tuple[list[Element], int]:
        parent = self.parent.get(element)
        if parent is None:
            return [], -1
        siblings = self._children.get(parent)
        if siblings is None:
            siblings = self._children[parent] = list(parent)
            self._places.update((child, place) for place, child in enumerate(siblings))
        return siblings, self._places.get(element, -1)


def paragraph_text(element: Element) -> str:
    """All the text of ``element``, its whitespace collapsed as a browser shows it."""
    return " ".join("".join(element.itertext()).split())


def text_start(element: Element, chars: int) -> str:
    """The first ``chars`` characters of ``paragraph_text(element)``, read no further than they
    need: what opens a block of megabytes costs what opens a paragraph. (A text node is read at
    most ``8 * chars`` long: one of mostly whitespace comes out shorter.)

    What is read is collapsed only when it could be enough, and then after twice as much again:
    the first ``chars`` characters of collapsed text never change once that many are there, and
    collapsing once per piece cost more than the rest of the passes that ask. A leaf, which most
    short blocks are, is its own text, read without a walk.
    """
    if not len(element) and isinstance(element.tag, str):
        return " ".join((element.text or "")[: 8 * chars].split())[:chars]
    pieces: list[str] = []
    read, collapse_at = 0, chars
    for piece in element.itertext():
        piece = piece[: 8 * chars]
        pieces.append(piece)
        read += len(piece)
        if read >= collapse_at:
            text = " ".join("".join(pieces).split())
            if len(text) >= chars:
                return text[:chars]
            collapse_at = 2 * read
    return " ".join("".join(pieces).split())[:chars]


def is_inside(element: Element, ancestor: Element, measures: Measures) -> bool:
    """Whether ``ancestor`` is one of ``element``'s ancestors (by identity: equal elements are not the same)."""
    return any(node is ancestor for node in ancestors(element, measures))


def is_inside_any(element: Element, group: set[Element], measures: Measures) -> bool:
    """Whether one of ``element``'s ancestors is in ``group``."""
    return any(node in group for node in ancestors(element, measures))


def outermost(elements: list[Element], measures: Measures) -> list[Element]:
    """Those of ``elements`` that are inside none of the others, in their order."""
    group = set(elements)
    return [element for element in elements if not is_inside_any(element, group, measures)]


def ancestors(element: Element, measures: Measures) -> Iterator[Element]:
    """``element``'s parent, its parent's parent, and so on up to the root."""
    node = measures.parent.get(element)
    while node is not None:
        yield node
        node = measures.parent.get(node)


def outside_code(root: Element) -> list[Element]:
    """``root`` and its descendants in document order, but nothing inside a code block.

    Highlighters put every line of code in an element of its own; a short or repeated line of code
    (``}``, ``"card": {``) is code, not a layout block. (ElementTree's own walk, in C, with what
    code blocks hold set aside: several passes walk every element, and a walk in Python cost them
    more than what they do with most elements.)
    """
    inside: set[Element] = set()
    for code in [element for element in root.iter() if element.tag in CODE]:
        if code not in inside:
            inside.update(itertools.islice(code.iter(), 1, None))
    if not inside:
        return list(root.iter())
    return [element for element in root.iter() if element not in inside]


def enclosing(element: Element, tag: str, measures: Measures, within: Element | None = None) -> Element | None:
    """The nearest ancestor of ``element`` that is a ``tag``, looking no higher than ``within``."""
    node = measures.parent.get(element)
    while node is not None and node is not within:
        if node.tag == tag:
            return node
        node = measures.parent.get(node)
    return None


def holds(element: Element, tags: frozenset[str]) -> bool:
    """Whether ``element`` is, or holds, an element with one of ``tags``."""
    return any(next(element.iter(tag), None) is not None for tag in tags)
