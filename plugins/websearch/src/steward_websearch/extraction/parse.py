"""HTML to an ``xml.etree`` tree, the way browsers build it (the WHATWG parsing algorithm).

Two implementations of the same algorithm: lexbor (C, through selectolax), about 20 times faster,
used whenever it is installed; and html5lib (pure Python), the reference that always works. Both
give the same tree shape: lower-case HTML tag names without a namespace, ``svg`` and ``math``
content in their namespaces, attributes without a value as ``""``, comments and doctypes left out.
"""

from __future__ import annotations

from typing import Literal
from xml.etree.ElementTree import Element

import html5lib

try:
    from selectolax.lexbor import LexborHTMLParser
except ImportError:  # pragma: no cover - the fast path is a wheel; html5lib is always there
    LexborHTMLParser = None

Parser = Literal["lexbor", "html5lib"]
DEFAULT_PARSER: Parser = "lexbor" if LexborHTMLParser is not None else "html5lib"
FOREIGN = {"svg": "{http://www.w3.org/2000/svg}", "math": "{http://www.w3.org/1998/Math/MathML}"}


def parse_html(source: str, parser: Parser = DEFAULT_PARSER) -> Element:
    """The ``html`` element of ``source``; ``parser`` picks the implementation."""
    if parser == "html5lib" or LexborHTMLParser is None:
        root = html5lib.parse(source, treebuilder="etree", namespaceHTMLElements=False)
        _drop_comments(root)
        return root
    return _from_lexbor(LexborHTMLParser(source).root)


def _from_lexbor(html: object) -> Element:
    """Copy lexbor's tree into ``xml.etree`` elements, iteratively (no depth is too deep)."""
    root = Element("html", _attributes(html))
    stack = [(html.child, root, "")]
    while stack:
        node, parent, namespace = stack.pop()
        last: Element | None = parent[-1] if len(parent) else None
        while node is not None:
            tag = node.tag
            if tag == "-text":
                text = node.text_content
                if last is None:
                    parent.text = (parent.text or "") + text
                else:
                    last.tail = (last.tail or "") + text
            elif tag[0] not in "-_!":
                own = namespace or FOREIGN.get(tag, "")
                element = Element(own + tag, _attributes(node))
                parent.append(element)
                last = element
                if node.child is not None:
                    stack.append((node.next, parent, namespace))
                    stack.append((node.child, element, own))
                    break
            node = node.next
    return root


def _attributes(node: object) -> dict[str, str]:
    attributes = node.attributes
    if not attributes:
        return {}
    return {name: "" if value is None else value for name, value in attributes.items()}


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
