"""Lists of links in the content: which are its menus and tables of contents, to drop, and which
are what the content says, its sections' tables of contents.

A menu is a list of links whose items hold lists of links (``drop_menus``); a table of contents
set after the sections it lists repeats their headings (``drop_tables_of_contents``). A
documentation's landing page sets its parts the other way round, each under its heading with a
sentence on what it holds and the list of its pages (``ContentsSections``): Sphinx's
``toctree``, its lists often nested, where ``clean`` would see a rail and ``drop_menus`` a map of
the site. What sets them apart from a footer's or a mega menu's columns of links, each under its
heading ("Company", "Support"), is the sentence: a menu labels its links, a table of contents says
what each part is for. WCXB's dev pages and ``wcxb-dev`` hold 267 groups of three or more such
labelled columns side by side (2 of them in the truths), and one group of sections each opened by
a sentence: a blog's footer, outside its content.
"""

from __future__ import annotations

import functools
from xml.etree.ElementTree import Element

from steward_websearch.extraction.blocks import is_an_index
from steward_websearch.extraction.cleaning.furniture import is_permalink
from steward_websearch.extraction.roles import class_weight
from steward_websearch.extraction.tree import Measures, outermost, outside_code, remove_each
from steward_websearch.extraction.vocabulary import HEADINGS, LISTS


def drop_menus(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop menus: a list of links whose items hold lists of links, a site's sections and their pages.

    Navigation not marked as such (a hero's "choose a service" dropdown, a mega menu in plain
    ``ul``) sits in the content of pages read whole, by their sections, where ``clean`` does not
    look. A list nested in a list, both links (``NESTED_MENU_LINK_SHARE`` of the outer list's
    text), is a map of the site; a reading list nests what it says about each link, and stays. So
    do the menus of a page that is no article when they are what it says (``is_an_index``): a
    manual's contents page is its nested table of contents (a news site's mega menu above a short
    story is still a menu); and so do the tables of contents of its sections, anywhere
    (``ContentsSections``).
    """
    if not any(_nests_a_list(items) for tag in LISTS for items in content.iter(tag)):
        return
    measures = measures or Measures(content)
    contents = ContentsSections(content, measures)
    menus = [
        items
        for tag in LISTS
        for items in content.iter(tag)
        if measures.link_density(items) >= NESTED_MENU_LINK_SHARE and _nests_a_list(items) and items not in contents
    ]
    going = outermost(menus, measures)
    listed = sum(measures.chars.get(items, 0) for items in going)
    if not article and is_an_index(measures.chars.get(content, 0) - listed, listed):
        return
    measures.recount(remove_each(going, measures))


def drop_tables_of_contents(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop the table of contents set after the sections it lists: a list of ``TOC_LINKS`` or more
    links and nothing else (``TOC_LINK_SHARE``), every one to a heading that comes before it
    (``#`` and the heading's ``id``, or that of the section it opens).

    Documentation themes set it in a column beside the text ("On this page": Docusaurus, Starlight),
    after the text in the page's order, where a page read whole by its sections keeps it; it
    repeats the headings the text holds. A contents box above the sections stays: WCXB's truths
    keep it as often as not (dropping those too changed 6 dev pages, 2 of them for the worse). A
    list of links to other pages, or to footnotes, is no table of contents.
    """
    anchored: set[str] = set()
    tables = []
    for element in content.iter():
        if element.tag in LISTS and anchored:
            measures = measures or Measures(content)
            if measures.link_density(element) >= TOC_LINK_SHARE and _links_only_to(element, anchored, measures):
                tables.append(element)
        identifier = element.get("id")
        if identifier and (element.tag in HEADINGS or any(child.tag in HEADINGS for child in element[:2])):
            anchored.add(identifier)
    if tables:
        measures.recount(remove_each(tables, measures))


def _links_only_to(items: Element, anchored: set[str], measures: Measures) -> bool:
    """Whether ``items`` links ``TOC_LINKS`` times or more, every time to ``#`` one of ``anchored``:
    the headings met before it, in the content's order (a heading's own id, or its section's)."""
    targets = [(link.get("href") or "") for link in items.iter("a") if measures.chars.get(link, 0)]
    return len(targets) >= TOC_LINKS and all(target[:1] == "#" and target[1:] in anchored for target in targets)


TOC_LINKS = 3
TOC_LINK_SHARE = 0.9


def _nests_a_list(items: Element) -> bool:
    return any(inner.tag in LISTS for item in items for inner in item)


NESTED_MENU_LINK_SHARE = 0.9


class ContentsSections:
    """The contents sections of one content that stand ``CONTENTS_SECTIONS`` or more side by side
    (``_a_contents_section``), and the lists in them: ``block in sections`` for a section, its
    list, the wrapper that holds nothing but that list, or a list nested in an item of it.

    They are found in one walk of the content (outside code), the first time one is asked about.
    ``clean`` asks block by block and ``drop_menus`` list by list; counting each one's sections
    side by side again made 2,000 of them a quadratic page (18 s; 0.25 s before there was a rule
    to ask).
    """

    def __init__(self, content: Element, measures: Measures) -> None:
        self._content = content
        self._measures = measures

    @functools.cached_property
    def _sections(self) -> set[Element]:
        found: set[Element] = set()
        for parent in outside_code(self._content):
            if len(parent) < CONTENTS_SECTIONS:
                continue
            sections = [
                child for child in parent if len(child) >= SECTION_PARTS and _a_contents_section(child, self._measures)
            ]
            if len(sections) >= CONTENTS_SECTIONS and class_weight(parent) >= 0:
                found.update(sections)
        return found

    def __contains__(self, block: Element) -> bool:
        measures = self._measures
        if _wrapped_list(block, measures) is None:
            return block in self._sections
        top = block
        while (item := measures.parent.get(top)) is not None and item.tag == "li":
            outer = measures.parent.get(item)
            if outer is None or outer.tag not in LISTS:
                break
            top = outer
        section = measures.parent.get(top)
        if section is not None and _wrapped_list(section, measures) is top:
            section = measures.parent.get(section)
        return section is not None and section in self._sections


CONTENTS_SECTIONS = 3
SECTION_PARTS = 3
"""A section's heading, a sentence and a list: the fewest children a contents section has."""


def _a_contents_section(section: Element, measures: Measures) -> bool:
    """A block opened by its heading (unlinked but for its permalinks), then lists of links
    (``CONTENTS_LINKS`` of each) and paragraphs that mostly do not link (under
    ``PARAGRAPH_LINKS``), at least one of each."""
    said = (child for child in section if measures.chars.get(child, 0))
    heading = next(said, None)
    if heading is None or heading.tag not in HEADINGS or not _unlinked_heading(heading, measures):
        return False
    if class_weight(section) < 0:
        return False
    lists = paragraphs = 0
    for block in said:
        if _wrapped_list(block, measures) is not None and measures.link_density(block) >= CONTENTS_LINKS:
            lists += 1
        elif block.tag == "p" and measures.link_density(block) < PARAGRAPH_LINKS:
            paragraphs += 1
        else:
            return False
    return lists > 0 and paragraphs > 0


CONTENTS_LINKS = 0.5
PARAGRAPH_LINKS = 0.5


def _wrapped_list(block: Element, measures: Measures) -> Element | None:
    """``block`` if it is a list, or the list it wraps when it holds nothing else (Sphinx's
    ``div.toctree-wrapper``)."""
    if block.tag in LISTS:
        return block
    if block.tag != "div" or len(block) != 1 or block[0].tag not in LISTS:
        return None
    return block[0] if measures.chars.get(block[0], 0) == measures.chars.get(block, 0) else None


def _unlinked_heading(heading: Element, measures: Measures) -> bool:
    """A heading that links nowhere but to itself (``is_permalink``: the "¶" documentation
    themes set beside each heading). A heading that is a link names another page: a card's title."""
    return not measures.link_chars.get(heading, 0) or all(is_permalink(link, measures) for link in heading.iter("a"))
