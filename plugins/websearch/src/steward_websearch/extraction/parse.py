"""HTML to an ``xml.etree`` tree, the way browsers build it (the WHATWG parsing algorithm).

Two implementations of the same algorithm: lexbor (C, through selectolax), about 20 times faster,
used whenever it is installed; and html5lib (pure Python), the reference that always works. Both
give the same tree shape: lower-case HTML tag names without a namespace, ``svg`` and ``math`` in
their namespaces and empty (a drawing's paths and a formula's layout are never read as text, and
an icon set's paths were a tenth of the elements of real pages), attributes without a value as
``""``, comments and doctypes left out, and a highlighter's tokens in code (``pre``, ``code``)
read as the text they hold: a ``span`` holding only its text, or only one such ``span``, with
nothing but a ``class`` and a ``style`` that do not hide it (``_a_token``). Pygments, Prism and
Shiki set every word of code so, a fifth of the elements of the documentation sites of ``make
bench`` (73,000 of 345,000), and every walk after the parse would read them one by one; the code's
text is what is rendered of them. A declaration is code too, though in no ``pre`` or ``code``
(``roles.declares``): Sphinx sets each documented function's signature in a ``dt.sig`` of
``span.n > span.pre``, 44,000 more elements of those pages, and spans of one token were 23,000
more. Tokens count toward ``MAX_ELEMENTS`` all the same.

A page past the budget (``MAX_ELEMENTS`` elements, nesting ``MAX_NESTING`` deep, an element with
more than ``MAX_ATTRIBUTES`` attributes, or attributes whose squares add up past
``MAX_ATTRIBUTE_WORK``) is :class:`PageTooComplex`, said before the work it would cost: the parse
of deep nesting grows with the square of its depth (100,000 nested ``div`` take lexbor 16 s), so
does an element's with its attributes (both parsers look for duplicates: 30,000 attributes on one
``p`` take lexbor 4 s and html5lib 73 s), and everything after it with the number of elements.
Real pages stay far inside all of them: browsers themselves stop nesting at 512, and of 855 real
pages none has an element with more than 34 attributes (the count is an estimate from the page's
text, which reads an SVG inside a ``data:`` URL as attributes: 1,682 on the worst page).
"""

from __future__ import annotations

import re
from typing import Literal
from xml.etree.ElementTree import Element

import html5lib

from steward_websearch.extraction.roles import declares, hides, names_a_line
from steward_websearch.extraction.tree import MAX_DEPTH, add_text, flatten_deep
from steward_websearch.extraction.vocabulary import CODE

try:
    from selectolax.lexbor import LexborHTMLParser
except ImportError:  # pragma: no cover - the fast path is a wheel; html5lib is always there
    LexborHTMLParser = None

Parser = Literal["lexbor", "html5lib"]
DEFAULT_PARSER: Parser = "lexbor" if LexborHTMLParser is not None else "html5lib"
MAX_ELEMENTS = 250_000
MAX_NESTING = 8_192
MAX_ATTRIBUTES = 10_000
MAX_ATTRIBUTE_WORK = 300_000_000
"""The sum over elements of their attributes squared: what duplicate checks cost (about 1 s of lexbor)."""
FOREIGN = {"svg": "{http://www.w3.org/2000/svg}", "math": "{http://www.w3.org/1998/Math/MathML}"}


class PageTooComplex(Exception):
    """A page with more elements, or deeper nesting, than extraction reads; the message says which."""


def parse_html(source: str, parser: Parser = DEFAULT_PARSER) -> Element:
    """The ``html`` element of ``source``; ``parser`` picks the implementation. Elements nested
    ``MAX_DEPTH`` deep come back as their text (``tree.flatten_deep``).

    Raises :class:`PageTooComplex` past ``MAX_NESTING`` or ``MAX_ELEMENTS``.
    """
    source = close_frames_in_noscript(source)
    _check_attributes(source)
    depth = nesting_depth(source)
    if depth > MAX_NESTING:
        raise PageTooComplex(f"the page nests elements about {depth:,} deep; extraction reads at most {MAX_NESTING:,}")
    if parser == "html5lib" or LexborHTMLParser is None:
        root = html5lib.parse(source, treebuilder="etree", namespaceHTMLElements=False)
        _drop_comments(root)
        _empty_foreign(root)
        _count(sum(1 for _ in root.iter()))
        _merge_tokens(root)
        flatten_deep(root)
        return root
    return _from_lexbor(LexborHTMLParser(source).root)


def close_frames_in_noscript(source: str) -> str:
    """``source`` with an ``iframe`` left open inside a ``noscript`` closed where the ``noscript`` ends.

    Pages are read as a browser without JavaScript shows them, which parses what a ``noscript``
    holds; there an ``iframe`` is raw text up to its end tag. Tag managers' snippet
    (``<noscript><iframe src=… /></noscript>``) writes none: ``/>`` does not close an ``iframe`` in
    HTML, and the rest of the page became the text of an invisible frame. A browser with
    JavaScript, which is what readers use, ends the ``noscript`` at ``</noscript>``; so does this.
    """
    pieces, position = [], 0
    while (opening := _NOSCRIPT.search(source, position)) is not None:
        closing = _END_NOSCRIPT.search(source, opening.end())
        if closing is None:
            break
        inner = source[opening.end() : closing.start()]
        if _OPEN_FRAME.search(inner) and not _END_FRAME.search(inner):
            pieces += [source[position : closing.start()], "</iframe>"]
            position = closing.start()
        else:
            pieces.append(source[position : closing.end()])
            position = closing.end()
    if not pieces:
        return source
    return "".join([*pieces, source[position:]])


_NOSCRIPT = re.compile(r"<noscript\b", re.IGNORECASE)
_END_NOSCRIPT = re.compile(r"</noscript\s*>", re.IGNORECASE)
_OPEN_FRAME = re.compile(r"<iframe\b", re.IGNORECASE)
_END_FRAME = re.compile(r"</iframe", re.IGNORECASE)


_LONG_TAG = re.compile(r"<[A-Za-z][^<>]{4096,}")
_ATTRIBUTE = re.compile(r"""(?<![\s/])[\s/]++[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]*))?""")
"""An attribute: the run of spaces (or ``/``) before it, taken whole and only from its start, so a
tag of 90,000 spaces is read once (matched from every space, backtracking, it took 56 s), its name,
and its value, quoted or not."""
_NOT_MARKUP = re.compile(
    r"<(script|style|textarea|title|xmp|noembed|noframes|plaintext)\b.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL
)


def _check_attributes(source: str) -> None:
    """:class:`PageTooComplex` for an element with more than ``MAX_ATTRIBUTES`` attributes, or
    attributes whose squares add up past ``MAX_ATTRIBUTE_WORK`` over the page.

    Only tags of 4 KiB and more are counted (fewer bytes cannot hold that many attributes), and
    only in markup: a script's ``i<items.length`` is text to the parser, not a tag. A quoted
    value is one attribute however many spaces it holds (an SVG path, a long ``content``). The
    scripts are taken out only when a first count, with them in, is past the budget: taking them
    out costs more than counting, and the first count can only be higher.
    """
    if _LONG_TAG.search(source) is None or _attribute_excess(source) is None:
        return
    excess = _attribute_excess(_NOT_MARKUP.sub("", source))
    if excess is not None:
        raise PageTooComplex(excess)


def _attribute_excess(source: str) -> str | None:
    """Why the long tags of ``source`` hold more attributes than extraction reads, or ``None``."""
    work = 0
    for tag in _LONG_TAG.finditer(source):
        count = len(_ATTRIBUTE.findall(tag.group()))
        if count > MAX_ATTRIBUTES:
            return f"an element of the page has about {count:,} attributes; extraction reads at most {MAX_ATTRIBUTES:,}"
        work += count * count
        if work > MAX_ATTRIBUTE_WORK:
            return "the page's elements have more attributes than extraction reads"
    return None


def _count(elements: int) -> None:
    if elements > MAX_ELEMENTS:
        raise PageTooComplex(f"the page has more than {MAX_ELEMENTS:,} elements; extraction reads at most that many")


_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)(?:[^>]*([^>]))?>")
"""A tag: whether it closes, its name, and the last character before its ``>`` (``/`` when it
closes itself), read greedily: a lazy look for ``/>`` at every character was three times slower."""
UNNESTED = frozenset(
    """area base br col embed hr img input link meta source track wbr
    p li dt dd tr td th option optgroup rb rt rp tbody thead tfoot colgroup caption""".split()
)
"""Void elements and those whose end tag is implied: they never deepen the tree the way they read."""
_DEEPENING = re.compile(r"<(?!(?:" + "|".join(sorted(UNNESTED)) + r")[\s/>])[A-Za-z]")
"""Where a start tag that could deepen the tree may begin: a ``<`` and a letter, but not a name of
``UNNESTED`` in lower case. At least as many as the scan counts: a ``<`` in a script or a ``<P>``
only makes more. Read without ``IGNORECASE``, which would keep ``re`` from going from ``<`` to
``<`` (four times as fast on requests' API page, where it spares a scan of 17,000 tags)."""


def nesting_depth(source: str) -> int:
    """How deep ``source`` nests its elements, estimated from its tags (0 when it cannot pass the cap).

    Counted without parsing: every start tag deepens, every end tag returns; void elements and those
    with implied end tags do neither, and neither does a self-closing tag inside ``svg`` or ``math``
    (in HTML, ``<div/>`` opens a ``div``). A page with fewer tags than ``MAX_NESTING`` is not scanned,
    nor one with fewer tags that could deepen it (``_DEEPENING``: a long reference's thousands of
    ``p``, ``li`` and ``dd`` cannot), nor what follows its last ``>``: no tag ends there, and each
    ``<`` of it was read to the end (20,000 ``<b x`` and no ``>`` took 13 s).
    """
    if source.count("<") <= MAX_NESTING or len(_DEEPENING.findall(source)) <= MAX_NESTING:
        return 0
    depth = deepest = foreign = 0
    for closing, name, last in _TAG.findall(source, 0, source.rfind(">") + 1):
        name = name.lower()
        if name in UNNESTED:
            continue
        if closing:
            depth = depth - 1 if depth else 0
            if name in FOREIGN and foreign:
                foreign -= 1
        elif not (last == "/" and foreign):
            depth += 1
            if depth > deepest:
                deepest = depth
            if name in FOREIGN:
                foreign += 1
    return deepest


def _from_lexbor(html: object) -> Element:
    """Copy lexbor's tree into ``xml.etree`` elements, iteratively (no depth is too deep), an
    element ``MAX_DEPTH`` deep read as its text (what ``flatten_deep`` does, without another walk),
    ``svg`` and ``math`` without what they hold, a token in code as its text (``_token_text``).

    Every property of a lexbor node is a call that builds a new wrapper, so each is read once.
    """
    root = Element("html", _attributes(html))
    stack = [(html.child, root, 1, False)]
    elements = 1
    while stack:
        node, parent, depth, in_code = stack.pop()
        last: Element | None = parent[-1] if len(parent) else None
        while node is not None:
            tag = node.tag
            text = None
            if tag == "-text":
                text = node.text_content
            elif tag is not None and tag[0] not in "-_!":
                elements += 1
                if elements > MAX_ELEMENTS:
                    _count(elements)
                attributes = _attributes(node)
                child = node.child
                token = _token_text(child) if in_code and tag == "span" and _a_token(attributes) else None
                if token is not None:
                    text, held = token
                    elements += held
                else:
                    namespace = FOREIGN.get(tag)
                    element = Element(namespace + tag if namespace else tag, attributes)
                    parent.append(element)
                    last = element
                    if namespace:
                        child = None
                    if child is not None and depth >= MAX_DEPTH:
                        element.text = " ".join(node.text(deep=True).split())
                    elif child is not None:
                        stack.append((node.next, parent, depth, in_code))
                        stack.append((child, element, depth + 1, in_code or tag in CODE or declares(attributes)))
                        break
            if text is not None:
                if last is None:
                    parent.text = (parent.text or "") + text
                else:
                    last.tail = (last.tail or "") + text
            node = node.next
    return root


def _token_text(child: object) -> tuple[str | None, int] | None:
    """What a token in code whose first child is ``child`` reads, and the tokens it holds: nothing,
    its one text, or the one text of the one token it holds (a line of one token, Sphinx's
    ``span.n > span.pre``). ``None`` when it holds more: it stays an element."""
    if child is None:
        return None, 0
    if child.next is not None:
        return None
    tag = child.tag
    if tag == "-text":
        return child.text_content, 0
    if tag != "span" or not _a_token(_attributes(child)):
        return None
    inner = child.child
    if inner is None:
        return None, 1
    if inner.tag == "-text" and inner.next is None:
        return inner.text_content, 1
    return None


def _a_token(attributes: dict[str, str]) -> bool:
    """Whether a ``span`` in code with these attributes is a highlighter's token: it has none but
    a ``class`` and a ``style``, they do not hide it, and it is no line of the code
    (``roles.names_a_line``: the renderer sets each on a line of its own)."""
    return (
        attributes.keys() <= TOKEN_ATTRIBUTES
        and not hides(attributes.get)
        and not names_a_line(attributes.get("class"))
    )


TOKEN_ATTRIBUTES = frozenset({"class", "style"})


def _merge_tokens(root: Element) -> None:
    """Each highlighter's token in code or in a declaration (a ``span`` holding only its text, or
    only one such ``span``: ``_a_token``) becomes its text, as ``_from_lexbor`` reads them: in
    document order, each parent before what it holds, so that a line of tokens stays a ``span`` as
    lexbor found it, whatever it holds once they go."""
    read: set[Element] = set()
    for code in [element for element in root.iter() if element.tag in CODE or declares(element.attrib)]:
        for parent in [element for element in code.iter() if element not in read]:
            read.add(parent)
            _merge_children(parent)


def _merge_children(parent: Element) -> None:
    """``parent``'s tokens become their text, in their place."""
    kept: list[Element] = []
    for child in parent:
        text = _token_text_of(child)
        if text is None:
            kept.append(child)
        else:
            add_text(kept, parent, text)
            add_text(kept, parent, child.tail)
    if len(kept) < len(parent):
        parent[:] = kept


def _token_text_of(element: Element) -> str | None:
    """What a token reads, as ``_token_text`` reads lexbor's: ``None`` when ``element`` is none."""
    if element.tag != "span" or not _a_token(element.attrib):
        return None
    if not len(element):
        return element.text or ""
    only = element[0]
    if len(element) == 1 and not element.text and not only.tail and only.tag == "span" and not len(only):
        return (only.text or "") if _a_token(only.attrib) else None
    return None


def _attributes(node: object) -> dict[str, str]:
    """The node's attributes, one without a value as ``""``: lexbor's own dict when all have one."""
    attributes = node.attributes
    if attributes and None in attributes.values():
        return {name: "" if value is None else value for name, value in attributes.items()}
    return attributes


def _empty_foreign(root: Element) -> None:
    """What html5lib gives an ``svg`` or a ``math`` goes, as ``_from_lexbor`` never copies it."""
    for element in [element for element in root.iter() if element.tag in _FOREIGN_ROOTS]:
        element[:] = []
        element.text = None


_FOREIGN_ROOTS = frozenset(namespace + name for name, namespace in FOREIGN.items())


def _drop_comments(root: Element) -> None:
    """html5lib keeps comments as elements; their tails are text of the parent."""
    for parent in list(root.iter()):
        for child in list(parent):
            if not isinstance(child.tag, str):
                index = list(parent).index(child)
                if child.tail:
                    if index:
                        previous = parent[index - 1]
                        previous.tail = (previous.tail or "") + child.tail
                    else:
                        parent.text = (parent.text or "") + child.tail
                parent.remove(child)
