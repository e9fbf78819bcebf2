"""What a page declares about itself in schema.org terms: its types, and the article body it says it has.

Read from its JSON-LD (``<script type="application/ld+json">``) and, for types, its microdata.
What the page *shows* is still what extraction reads; declarations decide how to read it (an
article, a thread) and stand in for the article only when the HTML does not show it at all.
"""

from __future__ import annotations

import json
import re
from typing import Any
from xml.etree.ElementTree import Element, SubElement

from steward_websearch.extraction.parse import parse_html

ARTICLE_TYPES = frozenset(
    """Article NewsArticle BlogPosting TechArticle ScholarlyArticle Report AnalysisNewsArticle
    OpinionNewsArticle ReportageNewsArticle BackgroundNewsArticle ReviewNewsArticle""".split()
)
DISCUSSION_TYPES = frozenset({"DiscussionForumPosting", "QAPage"})
BODY_CHARS = 500
"""A declared body shorter than this is a summary, never the article."""


def json_ld_items(root: Element) -> list[dict[str, Any]]:
    """The outermost items of the page's JSON-LD, a ``@graph``'s members and a page's ``mainEntity``.

    An article's author is a ``Person`` and its replies are ``Comment`` items nested inside it,
    yet the page is neither: only these items say what the page is. A script that holds no JSON
    (or nests too deep to read) declares nothing.
    """
    found: list[dict[str, Any]] = []
    for script in root.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json" or not script.text:
            continue
        try:
            data = json.loads(script.text)
        except (ValueError, RecursionError):
            continue
        for item in data if isinstance(data, list) else [data]:
            if not isinstance(item, dict):
                continue
            graph = item.get("@graph")
            for node in [item, *(graph if isinstance(graph, list) else [])]:
                if isinstance(node, dict):
                    found.append(node)
                    if isinstance(node.get("mainEntity"), dict):
                        found.append(node["mainEntity"])
    return found


def declared_types(root: Element, items: list[dict[str, Any]]) -> frozenset[str]:
    """The schema.org types a page says it is: its JSON-LD ``items`` and its outermost microdata items."""
    found: set[str] = set()
    for item in items:
        found |= _schema_types(item)
    inside_an_item: set[int] = set()
    for element in root.iter():
        if element.get("itemscope") is not None and element.get("itemtype") and id(element) not in inside_an_item:
            found |= {kind.rstrip("/").rsplit("/", 1)[-1] for kind in element.get("itemtype", "").split()}
            inside_an_item.update(map(id, element.iter()))
    return frozenset(found)


def declares_an_article(og_type: str, declared: frozenset[str]) -> bool:
    """Whether the page says it is an article (``og:type``, or a schema.org type) and not a thread.

    A forum's thread often calls itself an ``og:type`` article; its ``DiscussionForumPosting``
    says better what it is, and there the replies are the content.
    """
    if declared & DISCUSSION_TYPES:
        return False
    return og_type == "article" or bool(declared & ARTICLE_TYPES)


def unrendered_body(items: list[dict[str, Any]], content: Element) -> Element | None:
    """The article body the page declares (``articleBody``) when the ``content`` found does not show it.

    Pages rendered by their scripts ship a shell of menus and the whole article in JSON-LD; the
    declared body is the article then, as paragraphs (or as the HTML it holds, when it holds
    markup). It is taken only when it is ``BODY_CHARS`` or more and fewer than half of its words
    are in ``content``: most pages declare a body their HTML shows, or a summary of it, and
    there the HTML is read.
    """
    declared = max((text for item in items if isinstance(text := item.get("articleBody"), str)), key=len, default="")
    if len(declared.strip()) < BODY_CHARS:
        return None
    wanted = set(_WORD.findall(declared.lower()))
    shown = set(_WORD.findall(" ".join(content.itertext()).lower()))
    if len(wanted & shown) * 2 >= len(wanted):
        return None
    if _MARKUP.search(declared):
        body = parse_html(f"<body>{declared}</body>").find("body")
        if body is not None:
            body.tag = "div"
            return body
    body = Element("div")
    for paragraph in _PARAGRAPH_BREAK.split(declared):
        if paragraph.strip():
            SubElement(body, "p").text = paragraph.strip()
    return body


_WORD = re.compile(r"\w+")
_MARKUP = re.compile(r"</(?:p|div|h[1-6]|li|blockquote)>|<br\s*/?>", re.IGNORECASE)
_PARAGRAPH_BREAK = re.compile(r"\r?\n")


def _schema_types(node: dict[str, Any]) -> set[str]:
    kinds = node.get("@type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return {kind.rsplit("/", 1)[-1] for kind in kinds if isinstance(kind, str)}
