"""Copy passes: a second copy of the text, what comes before the title, labels that close a section."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from xml.etree.ElementTree import Element

from steward_websearch.extraction.cleaning.furniture import says_only
from steward_websearch.extraction.cleaning.rails import LABELS_KEPT
from steward_websearch.extraction.tree import (
    Measures,
    drop_where,
    enclosing,
    is_inside,
    outside_code,
    paragraph_text,
    remove_each,
    text_start,
)
from steward_websearch.extraction.vocabulary import BLOCKS


def drop_second_copies(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop a block that repeats, word for word, a block just before it: one description in a copy
    per screen size; and a preview of a block that follows it whole.

    Shops and landing pages render the same text twice, one copy per screen size (or once more in
    ``noscript``), and let the stylesheet show one; a reader sees it once. A copy is a layout block
    of ``COPY_CHARS`` or more whose first copy is a near relative (a common ancestor at most
    ``COPY_DISTANCE`` levels up). A written block (a paragraph, a heading, a cell) repeated is
    meant (the same lunch on three days of a meal plan); so is a block repeated far away (a
    documentation page describes one field in the request and in the response), and one that
    describes another term (``_described_apart``: two functions' parameters); so is anything
    in a quote (a reply quotes the post it answers), and code. A preview is a near relative that
    says the first part of another block, cut (``…``, "(more)"): the answer a reader expands to
    read whole is kept whole, once.
    """
    measures = measures or Measures(content)
    by_length: dict[int, list[Element]] = {}
    by_opening: dict[str, list[Element]] = {}
    for element in outside_code(content):
        chars = measures.chars.get(element, 0)
        parent = measures.parent.get(element)
        if chars < COPY_CHARS or element.tag in LABELS_KEPT or parent is None:
            continue
        if measures.chars.get(parent, 0) != chars and enclosing(element, "blockquote", measures) is None:
            by_length.setdefault(chars, []).append(element)
            by_opening.setdefault(text_start(element, COPY_CHARS), []).append(element)
    copies: list[Element] = []
    for elements in by_length.values():
        if len(elements) < 2:
            continue
        seen: dict[str, Element] = {}
        for element in elements:
            first = seen.setdefault(paragraph_text(element), element)
            if (
                first is not element
                and _near(first, element, measures)
                and not _described_apart(first, element, measures)
            ):
                copies.append(element)
    for blocks in by_opening.values():
        if len(blocks) > 1:
            copies.extend(_previews(blocks, measures))
    measures.recount(remove_each(copies, measures))


def _previews(blocks: list[Element], measures: Measures) -> Iterator[Element]:
    """The blocks that say the first part of another, a near relative they are not part of, and
    say they are cut: they end in ``…`` or "Read more", or in the middle of a sentence of the
    other, which goes on in lower case (a reply that quotes a whole post before answering it
    starts with the post, not with a cut; blocks set side by side join as ``flowPerform``).

    A preview says at most ``PREVIEW_CHARS``, and no more of any block is read. The blocks that
    start with a preview's text are found in the sorted texts, and at most ``PREVIEW_CANDIDATES``
    of them are tried: a page of a thousand blocks opening alike costs a thousand lookups, not a
    million comparisons.
    """
    ordered = sorted(((text_start(block, PREVIEW_CHARS + 1), block) for block in blocks), key=lambda pair: pair[0])
    texts = [text for text, _ in ordered]
    for text, preview in ordered:
        if len(text) > PREVIEW_CHARS:
            continue
        stem = CUT.sub("", text) if CUT.search(text[-CUT_TAIL:]) else text
        marked = len(stem) < len(text)
        index, tried = bisect.bisect_left(texts, stem), 0
        while index < len(texts) and texts[index].startswith(stem) and tried < PREVIEW_CANDIDATES:
            tried += 1
            if len(texts[index]) <= len(text):
                index = bisect.bisect_right(texts, texts[index])
                continue
            whole, block = ordered[index]
            cut = marked or (stem[-1:].isalnum() and whole[len(stem) :].removeprefix(" ")[:1].islower())
            if (
                cut
                and _near(preview, block, measures)
                and not is_inside(preview, block, measures)
                and not is_inside(block, preview, measures)
            ):
                yield preview
                break
            index += 1


PREVIEW_CHARS = 2000
"""The most a preview says: the first lines of an answer or a description, not a page."""


PREVIEW_CANDIDATES = 8


CUT = re.compile(r"\s*(?:…|\.\.\.|\(more\)|\b(?:read|see|show) more\b|\bcontinue reading\b)+\s*$", re.IGNORECASE)
"""How a preview ends where its text is cut: an ellipsis, "(more)", "Read more", "Continue reading"."""
CUT_TAIL = 40
"""Where ``CUT`` is looked for first: the end of a block's text (whitespace collapsed), which holds
the last mark if there is one. Looked for in the whole text, the pattern is tried from every
character of it."""


COPY_CHARS = 100


COPY_DISTANCE = 3


def _described_apart(first: Element, second: Element, measures: Measures) -> bool:
    """Whether the two copies describe two terms that differ: each in a description (``dd``, or
    inside one) whose term (the ``dt`` before it) says something else. A description belongs to
    its term, however alike: an API reference documents PUT and PATCH with the same parameters."""
    terms = []
    for element in (first, second):
        description = enclosing(element, "dd", measures) if element.tag != "dd" else element
        if description is None:
            return False
        term = measures.previous(description)
        while term is not None and term.tag != "dt":
            term = measures.previous(term)
        if term is None:
            return False
        terms.append(paragraph_text(term))
    return terms[0] != terms[1]


def _near(first: Element, second: Element, measures: Measures) -> bool:
    ancestor = measures.parent.get(second)
    for _ in range(COPY_DISTANCE):
        if ancestor is None:
            return False
        if is_inside(first, ancestor, measures):
            return True
        ancestor = measures.parent.get(ancestor)
    return False


def drop_before_title(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop what the content holds above its title, the one ``h1``: the header of the page around it.

    Breadcrumbs, promotion bars, "Deliver to" and sale banners sit above the title inside the
    block that holds the page; the content starts at its title. What stands beside the title in
    its own block stays (a kicker, a category line, a date); so does everything when the content
    has no single ``h1`` (a paper heading each section with one has no one title) or when what
    comes first is more than ``BEFORE_TITLE_SHARE`` of the content (an introduction, not a header).
    """
    titles = list(content.iter("h1"))
    if len(titles) != 1:
        return
    measures = measures or Measures(content)
    blocks: list[Element] = []
    node = measures.parent.get(titles[0])
    while node is not None and node is not content:
        blocks.append(node)
        node = measures.parent.get(node)
    if node is None:
        return
    before = sum(
        len((measures.parent[block].text or "").strip())
        + sum(measures.chars.get(sibling, 0) for sibling in _preceding(block, measures))
        for block in blocks
    )
    if before > BEFORE_TITLE_SHARE * measures.chars.get(content, 0):
        return
    removed: list[Element] = []
    for block in blocks:
        parent = measures.parent[block]
        parent.text = None
        for sibling in _preceding(block, measures):
            parent.remove(sibling)
            removed.append(sibling)
    measures.recount([*blocks, *removed])


BEFORE_TITLE_SHARE = 0.1


def _preceding(element: Element, measures: Measures) -> list[Element]:
    siblings = list(measures.parent[element])
    return siblings[: siblings.index(element)]


def drop_closing_labels(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop the labels that close the content but head nothing: a comments section's ("Comments",
    "3 Kommentare", "Leave a reply", "Be the first to comment": ``CLOSING_LABEL``) whose comments
    are gone with the furniture or were never loaded (a script's comments widget, left empty); and
    a sharing or liking widget's ("Share this:", "Like this:", "Tags:", "Pin it for later!") whose
    buttons went as controls (a blog's sharing and likes widgets leave exactly these behind).

    Only at the very end: a label with comments after it heads them.
    """
    parents = {child: parent for parent in content.iter() for child in parent}
    for _ in range(CLOSING_LABELS):
        last = next(
            (
                element
                for element in reversed(list(content.iter()))
                if element.tag in BLOCKS and element is not content and text_start(element, 1)
            ),
            None,
        )
        if last is None or not _closes(last, content, parents):
            return
        removed = drop_where(content, lambda child, tag, label=last: child is label)
        if measures is not None:
            measures.recount(removed)


def _closes(label: Element, content: Element, parents: dict[Element, Element]) -> bool:
    """Whether ``label`` is a comments section's label and nothing is said after it."""
    if not says_only(label, CLOSING_LABEL, CLOSING_LABEL_CHARS):
        return False
    node = label
    while node is not content:
        parent = parents[node]
        siblings = list(parent)
        following = siblings[siblings.index(node) + 1 :]
        if (node.tail or "").strip() or any(text_start(sibling, 1) for sibling in following):
            return False
        node = parent
    return True


CLOSING_LABEL_CHARS = 60


CLOSING_LABEL = re.compile(
    r"\W*(?:\d+\s*)?(?:comments?|kommentare?|commentaires?|comentarios?|commenti|reacties|komentarze|replies"
    r"|responses)\W*(?:\(\d+\))?\W*"
    r"|\W*(?:leave a (?:reply|comment)|post a comment|add a (?:new )?comment|write a comment|be the first to comment"
    r"|(?:tell us )?what do (?:you|YOU) think|join the (?:discussion|conversation)|no comments(?: yet)?"
    r"|(?:einen )?kommentar schreiben|schreibe einen kommentar|keine kommentare|laisser un commentaire"
    r"|deja un comentario|lascia un commento)\W*"
    r"|\W*(?:like this|share(?: this)?(?: (?:post|article|story|recipe|page))?(?: on| via)?"
    r"|pin (?:it|this)(?: for later| here)?|(?:enjoy(?:ed)? (?:this|the) (?:post|recipe|article)\W*)?pin it for later"
    r"|tags?|gefällt mir|teilen|diesen (?:beitrag|artikel) teilen|j'aime|partager(?: cet article)?|me gusta"
    r"|compartir(?: esto)?|mi piace|condividi|compartilhe|delen|udostępnij)\W*",
    re.IGNORECASE,
)
"""What heads a comments section, in English, German, French, Spanish, Italian, Dutch and Polish;
and what a sharing or liking widget leaves once its buttons are gone, in the same languages."""


CLOSING_LABELS = 3
"""How many such labels may close the content, one under another ("Comments", "0 comments")."""
