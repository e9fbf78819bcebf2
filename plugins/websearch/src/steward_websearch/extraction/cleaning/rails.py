"""Rail passes: teasers for other pages and labels repeated down a listing."""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element

from steward_websearch.extraction.blocks import (
    PROSE_SHARE,
)
from steward_websearch.extraction.cleaning.block import (
    POSTER_CHARS,
    PROFILE,
    RAIL_LABELS,
    RAIL_POINTERS,
    is_posters_rank,
    leads_away,
)
from steward_websearch.extraction.tree import (
    Measures,
    drop_where,
    holds,
    outside_code,
    paragraph_text,
    remove_each,
)
from steward_websearch.extraction.vocabulary import BLOCKS, CODE


def drop_teasers(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop a line that points to another story: "Related: <link>", "READ MORE: <link>", "Watch: <link>",
    and the links to the blog's neighbouring posts ("Previous Post <title>", "Nächster Beitrag <title>").

    News and blog templates put them between the paragraphs of a story; they are the headlines of
    other pages, not part of this one. One is a paragraph (or a block) of at most ``TEASER_CHARS``
    that starts with such a label and a colon (a neighbour's label needs none) and is mostly a
    link; a sentence that only mentions related work is text. So is a rail: a short block that
    only says such a label ("You may also like…", "Customers also bought", "Das könnte Sie auch
    interessieren": ``RAIL_POINTERS``) and the blocks right after it that are links
    (``RAIL_LINK_SHARE``) or a grid of cards each linking elsewhere (``_is_cards``), or the label
    alone when nothing follows it in its block (a rail its script never filled). A section of the
    site's newest or most read pages ("Trending", "Latest news": ``RAIL_SECTIONS``) is a rail
    beside a story (an article, declared, or content that is mostly paragraphs); on a listing or a
    home page it is what the page lists, and stays.
    """
    measures = measures or Measures(content)
    teasers = drop_where(
        content,
        lambda child, tag: (
            tag in TEASER_TAGS
            and measures.chars.get(child, 0) <= TEASER_CHARS
            and measures.link_density(child) >= 0.5
            and bool(TEASER.match(paragraph_text(child)))
        ),
    )
    story = article or measures.prose_chars.get(content, 0) >= PROSE_SHARE * measures.chars.get(content, 0)
    label = RAIL_LABEL if story else RAIL_POINTER
    rails: list[Element] = []
    for parent in outside_code(content):
        if not len(parent) or parent.tag in CODE:
            continue
        children = list(parent)
        for index, child in enumerate(children):
            if not _is_rail_label(child, measures, label):
                continue
            rail, last = [], True
            for sibling in children[index + 1 :]:
                if measures.chars.get(sibling, 0) == 0:
                    continue
                if sibling.tag not in TEASER_TAGS or (
                    measures.link_density(sibling) < RAIL_LINK_SHARE and not _is_cards(sibling, measures)
                ):
                    last = False
                    break
                rail.append(sibling)
            if rail or last:
                rails += [child, *rail]
    measures.recount([*teasers, *remove_each(rails, measures)])


def _is_cards(element: Element, measures: Measures) -> bool:
    """Two or more blocks, each linking to another page: a grid of teaser cards, a headline over
    its picture and its first line, however little of each the links cover. Wrappers that hold
    one block (a page builder's widget, its container) are looked through."""
    cards = [child for child in element if measures.chars.get(child, 0)]
    while len(cards) == 1:
        cards = [child for child in cards[0] if measures.chars.get(child, 0)]
    return len(cards) >= 2 and all(any(leads_away(anchor) for anchor in card.iter("a")) for card in cards)


def _is_rail_label(element: Element, measures: Measures, label: re.Pattern[str]) -> bool:
    chars = measures.chars.get(element, 0)
    return (
        element.tag in TEASER_TAGS
        and 0 < chars <= RAIL_LABEL_CHARS
        and not measures.link_chars.get(element, 0)
        and bool(label.fullmatch(paragraph_text(element)))
    )


RAIL_LABEL = re.compile(r"\W*(?:" + "|".join(RAIL_LABELS) + r")\W*", re.IGNORECASE)
RAIL_POINTER = re.compile(r"\W*(?:" + "|".join(RAIL_POINTERS) + r")\W*", re.IGNORECASE)


RAIL_LABEL_CHARS = 60


RAIL_LINK_SHARE = 0.75


TEASER = re.compile(
    r"\W*(?:related|read more|see more|see also|also read|read also|more|watch|listen|don'?t miss|read next"
    r"|lesen sie (?:auch|mehr)|(?:zum )?weiterlesen|mehr zum thema|auch lesen|lies auch|(?:à )?lire aussi"
    r"|à lire également|voir aussi|le[ae] (?:también|más)|lea|ve[ra] también|(?:le|te) puede interesar"
    r"|puedes ver|mira también|leggi anche|leia (?:também|mais)"
    r"|veja também|lees ook|(?:czytaj|zobacz) (?:też|także|również))\s*[:»›]"
    r"|\W*(?:(?:previous|prev|next|older|newer) (?:post|article|story|entry)"
    r"|(?:vorheriger|nächster|älterer|neuerer) (?:beitrag|artikel)|article (?:précédent|suivant)"
    r"|(?:entrada|artículo) (?:anterior|siguiente)|articolo (?:precedente|successivo)"
    r"|(?:post|artigo) (?:anterior|seguinte)|(?:vorige|volgende) (?:bericht|artikel)"
    r"|(?:poprzedni|następny) (?:wpis|artykuł))",
    re.IGNORECASE,
)


TEASER_CHARS = 200


TEASER_TAGS = frozenset({"p", "div", "li", "h2", "h3", "h4", "h5", "h6"})


def drop_repeated_labels(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop short texts the page's template repeats: the "Joined", "Reply" and "Add to cart" of every post or item.

    A label that stands beside every post or product of a listing is furniture of the template,
    however it is named; what a person wrote is not repeated word for word several times.
    Only blocks of the layout go: a paragraph or a quote is written (a refrain is repeated on
    purpose), table cells are data, and code and headings are kept too. And only a text that is
    all its slot ever says (``_slot``: where the template puts it): a job card's "Full-Time", a
    listing's "Brand New", a shoe's "Neutral" repeat as often as a label, but beside "Contract",
    "Pre-Owned", "Maximum" in the same place of other cards; they are the records' data. A term
    (``dt``) is a label wherever it stands ("Joined" above "Messages"), but in content that shows
    code: there terms repeated are the reference's own outline, the "Parameters", "Returns" and
    "Return type" over each function of a Sphinx API page, and stay. A label the template fills
    with a figure beside every poster's name ("Posts: 138", "Joined: 4 Jul 2012") goes the same way
    (``POSTERS_FIGURE``, ``_beside_a_poster``), though no two of its lines are alike.
    """
    measures = measures or Measures(content)
    technical = holds(content, CODE)
    seen: dict[str, list[Element]] = {}
    figures: dict[str, list[Element]] = {}
    slots: dict[tuple[str, ...], set[str]] = {}
    for element in outside_code(content):
        chars = measures.chars.get(element, 0)
        if not 0 < chars <= LABEL_CHARS or element.tag not in BLOCKS or element.tag in LABELS_KEPT:
            continue
        parent = measures.parent.get(element)
        if parent is None or measures.chars.get(parent, 0) == chars or parent.tag in LABELS_KEPT:
            continue
        text = paragraph_text(element)
        seen.setdefault(text, []).append(element)
        slots.setdefault(_slot(element, parent), set()).add(text)
        figure = POSTERS_FIGURE.fullmatch(text)
        if figure:
            figures.setdefault(figure["label"].casefold(), []).append(element)
    repeated = [
        element
        for elements in seen.values()
        if len(elements) >= LABEL_REPEATS
        for element in elements
        if not (technical and element.tag == "dt")
        and (element.tag == "dt" or len(slots[_slot(element, measures.parent[element])]) == 1)
    ]
    for elements in figures.values():
        if len(elements) >= LABEL_REPEATS:
            repeated.extend(element for element in elements if _beside_a_poster(element, measures))
    measures.recount(remove_each(repeated, measures))


def _slot(element: Element, parent: Element) -> tuple[str, ...]:
    """Where a record's template puts ``element``: its tag and class, and its parent's."""
    return (element.tag, element.get("class") or "", parent.tag, parent.get("class") or "")


def _beside_a_poster(element: Element, measures: Measures) -> bool:
    """Whether a block of at most ``POSTER_CHARS`` around ``element`` (``POSTER_LEVELS`` up at
    most) names a poster: a link to a member's profile, or the rank the forum gives the poster."""
    block = measures.parent.get(element)
    for _ in range(POSTER_LEVELS):
        if block is None or measures.chars.get(block, 0) > POSTER_CHARS:
            return False
        if any(
            (node.tag == "a" and PROFILE.search(node.get("href") or "")) or is_posters_rank(node, measures)
            for node in block.iter()
        ):
            return True
        block = measures.parent.get(block)
    return False


POSTERS_FIGURE = re.compile(r"(?P<label>[^\W\d_]+(?: [^\W\d_]+){0,2}):\s*\S*\d.*")
"""A figure the forum keeps about a poster: phpBB's "Posts: 138" and "Joined: 4 Jul 2012", FluxBB's
"Registered: 2016-07-02". The same line elsewhere is the content's own data ("Founded: 2000" in
a list of franchises, "Impedance: 32 Ohm" on a headphone's card): only beside a poster's name
does it go."""


POSTER_LEVELS = 3


LABEL_CHARS = 40


LABEL_REPEATS = 3


LABELS_KEPT = frozenset({"p", "blockquote", "td", "th", "tr", "code", "pre", "h1", "h2", "h3", "h4", "h5", "h6"})
