"""What a block reads as by its measures: running prose, a table of figures, a dated line, one of
several records alike, the holder of the page."""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element

from steward_websearch.extraction.tree import Measures, paragraph_text


def holds_the_page(element: Element, measures: Measures, total: int) -> bool:
    """Whether ``element`` says half or more of the ``total`` characters of the page."""
    return total > 0 and measures.chars.get(element, 0) >= total / 2


def title_words(title: str) -> str:
    """A title as headings are compared with it: its whitespace collapsed, lowercased."""
    return " ".join(title.split()).lower()


def says_the_title(element: Element, title: str) -> bool:
    """Whether ``element`` says the page's ``title`` (``title_words``), or its start: the title
    metadata gives often ends with the site's name."""
    said = paragraph_text(element).lower()
    return bool(said) and (said == title or title.startswith(said))


def is_main(element: Element) -> bool:
    """The ``main`` landmark, by its tag or its ``role``."""
    return element.tag == "main" or (element.get("role") or "").lower() == "main"


FAMILY_CHARS = 300
"""What a written block alike its siblings says at least (a post, a section, an answer); shorter
blocks alike are cards or a listing's entries."""


Kind = tuple[str, str]
"""What makes blocks alike: their tag and the first word of their class (``record_kind``)."""


def is_dated(element: Element) -> bool:
    """Whether ``element`` gives a date: a ``time``, or a date written out ("Jan 5, 2024", "2024-01-05")."""
    if next(element.iter("time"), None) is not None:
        return True
    return bool(DATE.search(paragraph_text(element)))


DATE = re.compile(
    r"\b(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2},? \d{4}"
    r"|\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{4}"
    r"|\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{2,4})\b",
    re.IGNORECASE,
)


def record_kind(element: Element) -> Kind | None:
    """The kind of a record (a post, a card): its tag and first class; none without a class."""
    classes = (element.get("class") or "").split()
    return (element.tag, classes[0]) if classes else None


MEMBER_PROFILE = re.compile(
    r"/(?:members?|u|users?|profiles?)/[^/?#]+|member\.php\?|memberlist\.php\?mode=viewprofile"
    r"|profile\.php\?|[?&](?:u|userid|showuser)=\d",
    re.IGNORECASE,
)
"""Where a link to a forum member's profile leads: XenForo's ``/members/ada.12/``, Discourse's
``/u/ada``, phpBB's ``memberlist.php?mode=viewprofile``, FluxBB's ``profile.php?id=``."""


RECORDS = 3
"""Siblings alike that make records (a thread's posts, a listing's entries) at least: two is a pair."""


def worthy_paragraph(element: Element, measures: Measures) -> bool:
    """A written paragraph: a ``p`` of more than 80 characters, under a quarter of them links, or a
    shorter one without links that has a full stop."""
    if element.tag != "p":
        return False
    chars, density = measures.chars.get(element, 0), measures.link_density(element)
    if chars > 80 and density < 0.25:
        return True
    text = paragraph_text(element)
    return 0 < chars <= 80 and density == 0 and bool(re.search(r"\.( |$)", text))


def is_prose(element: Element, measures: Measures) -> bool:
    """Several sentences of running text, few of them links: content, whatever its class says."""
    return measures.prose_chars.get(element, 0) >= PROSE_CHARS and measures.link_density(element) < 0.25


PROSE_CHARS = 280


def is_an_index(said: int, listed: int) -> bool:
    """Whether content that says ``said`` characters beside the lists of links about to go, and
    ``listed`` in them, is an index: a chapter's or a manual's table of contents, what the page is
    for. It says less than ``INDEX_CHARS`` besides (a title, an introduction), and less than its lists."""
    return said < INDEX_CHARS and listed > said


INDEX_CHARS = 600
PROSE_SHARE = 0.5
"""Main content this much of which is paragraphs reads as an article, whatever the page declares."""


def is_data(element: Element, measures: Measures) -> bool:
    """A table of figures (a specification, a size guide), not a grid of links; or a glossary."""
    return is_glossary(element, measures) or (
        measures.link_density(element) < 0.25
        and any(len(table.findall(".//tr")) >= 2 for table in element.iter("table"))
    )


def is_glossary(terms: Element, measures: Measures) -> bool:
    """A definition list that says what each of its terms is: an API reference's index of types
    (each name a link, "Builds a runtime with custom configuration values" beside it), a glossary.

    Half the terms are followed by ``DEFINITION_CHARS`` or more of definition outside links, in
    ``DEFINITION_WORDS`` words or more. A menu set as a ``dl`` has terms and nothing to say of them;
    a list of a shop's fields (``swatch``: an address) has values, not sentences.
    """
    if terms.tag != "dl":
        return False
    seen = defined = said = 0
    for child in terms:
        if child.tag == "dt":
            defined += said >= DEFINITION_CHARS
            seen, said = seen + 1, 0
        elif child.tag == "dd" and seen and len(paragraph_text(child).split()) >= DEFINITION_WORDS:
            said += measures.chars.get(child, 0) - measures.link_chars.get(child, 0)
    defined += said >= DEFINITION_CHARS
    return seen > 0 and defined * 2 >= seen


DEFINITION_CHARS = 10
DEFINITION_WORDS = 3


TITLES = frozenset({"h1"})
"""A block holding the page's title is what the page is about (a product's pictures beside its
name, price and description), never a gallery however many pictures it holds."""
