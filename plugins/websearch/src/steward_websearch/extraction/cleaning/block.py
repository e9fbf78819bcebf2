"""Inside the chosen block: the link lists, rails, bylines, ranks and headings that sit in the
block holding the main content, told apart from the content by what the block's own parts say."""

from __future__ import annotations

import re
from collections import Counter
from xml.etree.ElementTree import Element

from steward_websearch.extraction.blocks import (
    FAMILY_CHARS,
    MEMBER_PROFILE,
    PROSE_SHARE,
    RECORDS,
    TITLES,
    Kind,
    holds_the_page,
    is_an_index,
    is_dated,
    is_glossary,
    is_prose,
    record_kind,
    worthy_paragraph,
)
from steward_websearch.extraction.boilerplate import FAMILY_SHARE, drop_unmarked_captions
from steward_websearch.extraction.cleaning.contents import ContentsSections
from steward_websearch.extraction.cleaning.furniture import is_permalink, links_its_heading
from steward_websearch.extraction.roles import (
    NEGATIVE,
    NO_WORDS,
    SIGNATURES,
    class_weight,
    class_words,
    holds_code_parts,
    is_icon,
)
from steward_websearch.extraction.tree import (
    Measures,
    enclosing,
    holds,
    is_inside_any,
    outermost,
    outside_code,
    paragraph_text,
    remove_each,
)
from steward_websearch.extraction.vocabulary import CODE, HEADINGS, LISTS, SECTION_HEADINGS, TABLE_CELLS


def clean(content: Element, *, article: bool) -> Measures:
    """Drop the furniture inside the block chosen as the main content: link lists, share bars,
    galleries, rails (``_looks_like_boilerplate``), a poster's rank and, in an article, its byline
    (``is_posters_rank``, ``_is_byline``), and headings named like boilerplate. A heading that
    links away stays: it is the title of what it heads, a listicle's "1. Harvard Business School",
    a listing's entry, a documentation index's section (dropping them cost more than they saved:
    WCXB's dev split 0.8698 -> 0.8705 once they stayed).

    What a block's parts say decides, and what the page is tempers it: unless the page declares
    itself an ``article`` or reads as one (``PROSE_SHARE`` of paragraphs), class words such as
    ``media`` or ``tags`` name sections of the content, not furniture; the entries of a listing
    stay whole (``_listed``), and so do a record's date and author (``_a_records_date``,
    ``_a_records_author``). Content that reads as an article without declaring itself one loses
    its captions too (``drop_unmarked_captions``, at most ``CAPTIONS_SHARE`` of it). Content that
    is its lists of links keeps them (``_unless_an_index``). Lines of code are never looked at.

    The content's measures once it is clean, for the passes after it (``tidy``) to go on with.
    """
    measures = Measures(content)
    total = measures.chars.get(content, 0)
    reads_as_article = article or measures.prose_chars.get(content, 0) >= PROSE_SHARE * total
    if reads_as_article and not article and drop_unmarked_captions(content, measures, at_most=CAPTIONS_SHARE):
        total = measures.chars.get(content, 0)
    negative = NEGATIVE - _building_blocks(content, measures)
    alike = siblings_alike(content, measures)
    records = _records(alike)
    listed = _listed(alike, measures, total, at_least=LISTING_ENTRIES if reads_as_article else 0)
    technical = holds(content, CODE)
    contents = ContentsSections(content, measures)
    boilerplate: list[Element] = []
    for element in outside_code(content):
        if element.tag not in CLEANED or element is content or measures.parent.get(element) is content:
            continue
        if holds_the_page(element, measures, total) or element in listed:
            continue
        if _looks_like_boilerplate(
            element,
            measures,
            article=reads_as_article,
            negative=negative,
            records=records,
            technical=technical,
            contents=contents,
        ):
            boilerplate.append(element)
            announcement = _announcement(element, measures) if element.tag in LISTS else None
            if announcement is not None and _points_elsewhere(announcement, measures):
                boilerplate.append(announcement)
    boilerplate = _unless_an_index(content, boilerplate, measures, total)
    gone = remove_each(boilerplate, measures)
    measures.forget_siblings()
    gone |= remove_each(
        (
            element
            for element in outside_code(content)
            if (words := class_words(element))
            and (
                is_posters_rank(element, measures, words=words)
                or (reads_as_article and _is_byline(element, words, measures, records))
            )
        ),
        measures,
    )
    gone |= remove_each(
        (heading for heading in content.iter() if heading.tag in HEADINGS and class_weight(heading, negative) < 0),
        measures,
    )
    measures.recount(gone)
    return measures


CLEANED = ("div", "section", "ul", "ol", "table", "figure", "header", "dl")


def _unless_an_index(content: Element, boilerplate: list[Element], measures: Measures, total: int) -> list[Element]:
    """``boilerplate`` without its lists of links (``INDEX_LISTS``, none named like boilerplate)
    when they are what the content says (``is_an_index``): a chapter's table of contents over its
    short introduction (PostgreSQL's manual), where the same list beside a story is a rail."""
    going = outermost(boilerplate, measures)
    gone = sum(measures.chars.get(block, 0) for block in going)
    if not is_an_index(total - gone, gone):
        return boilerplate
    spared = {block for block in going if holds(block, INDEX_LISTS) and class_weight(block) >= 0}
    return [block for block in boilerplate if block not in spared and not is_inside_any(block, spared, measures)]


INDEX_LISTS = frozenset({"ul", "ol", "dl"})


CAPTIONS_SHARE = 0.1
"""In content that reads as an article without declaring itself one, captions are dropped when
together they say at most this share of it: a shop's tiles of copy named ``caption`` say most."""


LIST_ITEM: Kind = ("li", "")
"""The kind of a list item without a class: the items of one list are alike, classed or not."""


def siblings_alike(content: Element, measures: Measures) -> list[tuple[Element, Kind, list[Element]]]:
    """Each group of ``RECORDS`` or more siblings alike in the content, as (parent, kind, members).

    Siblings are alike when they have one kind (``record_kind``: tag and first class; or
    ``LIST_ITEM``); members say something (empty ones are left out). One walk serves both readings
    of the groups in ``clean``: the records a date belongs to, and a listing's entries.
    """
    found: list[tuple[Element, Kind, list[Element]]] = []
    for parent in outside_code(content):
        if len(parent) < RECORDS:
            continue
        groups: dict[Kind, list[Element]] = {}
        for child in parent:
            kind = record_kind(child) or (LIST_ITEM if child.tag == "li" else None)
            if kind is not None and measures.chars.get(child, 0):
                groups.setdefault(kind, []).append(child)
        found.extend((parent, kind, members) for kind, members in groups.items() if len(members) >= RECORDS)
    return found


def _records(alike: list[tuple[Element, Kind, list[Element]]]) -> set[Element]:
    """The records of the content, as ``_thread`` reads them: every child of a parent whose kind
    has ``RECORDS`` or more members there, empty ones included (a post's empty wrapper is still
    the post's)."""
    return {child for parent, kind, _ in alike if kind != LIST_ITEM for child in parent if record_kind(child) == kind}


def _listed(
    alike: list[tuple[Element, Kind, list[Element]]], measures: Measures, total: int, *, at_least: int = 0
) -> set[Element]:
    """The entries of a listing that is the content, and everything inside them.

    A collection page's cards (a title that links to the product, a price, a count of reviews)
    are mostly links, and as blocks of links ``clean`` would drop them one by one; yet they are
    what the page lists. Entries are siblings alike (``siblings_alike``: records, or items of one
    list, classed or not) that together hold ``LISTING_SHARE`` of the content (``total``
    characters) and are short, under ``FAMILY_CHARS`` each on average: posts of a thread are
    records too, and inside a post the short labels ("#3", "Joined") still go. ``at_least``
    entries, when the content reads as an article: a few cards beside a story are a rail.
    """
    found: set[Element] = set()
    for _, _, entries in alike:
        chars = sum(measures.chars.get(entry, 0) for entry in entries)
        if len(entries) >= at_least and chars >= LISTING_SHARE * total and chars < FAMILY_CHARS * len(entries):
            for entry in entries:
                found.update(entry.iter())
    return found


LISTING_SHARE = 0.5


LISTING_ENTRIES = 10


def _a_records_date(element: Element, records: set[Element], measures: Measures) -> bool:
    """A short block inside a record that gives a date: a post's "Posted Jan 5, 2024", a field of it."""
    return is_dated(element) and _in_a_record(element, records, measures)


def _a_records_author(element: Element, records: set[Element], measures: Measures) -> bool:
    """A short block inside a record whose links all lead to members' profiles: a post's author
    (XenForo's ``/members/ada.12/``, Discourse's ``/u/ada``, phpBB's ``memberlist.php?mode=viewprofile``).

    A thread keeps each post's author as it keeps its date (``_a_records_date``); the name is a
    link, and a block of little more than a link reads as a link list without this."""
    if not records or measures.chars.get(element, 0) > POSTER_CHARS:
        return False
    targets = [anchor.get("href") or "" for anchor in element.iter("a") if measures.chars.get(anchor, 0)]
    return (
        bool(targets) and all(PROFILE.search(target) for target in targets) and _in_a_record(element, records, measures)
    )


def _in_a_record(element: Element, records: set[Element], measures: Measures) -> bool:
    return bool(records) and is_inside_any(element, records, measures)


POSTER_CHARS = 200


PROFILE = re.compile(r"/authors?/[^/?#]+|" + MEMBER_PROFILE.pattern, re.IGNORECASE)
"""A member's profile, or a writer's page (``/authors/ada``): who a short block in a record names."""


def _looks_like_boilerplate(
    element: Element,
    measures: Measures,
    *,
    article: bool,
    negative: frozenset[str],
    records: set[Element],
    contents: ContentsSections,
    technical: bool = False,
) -> bool:
    """A block of the chosen content that is furniture: its class says so (in an article), or its
    links outweigh its words (``LINKED_IN_AN_ARTICLE``, ``LINKED``), or it is a gallery, or a scrap.

    Pictures with little text between them are a gallery, unless they hold the page's title (or,
    where the content does not read as an article, a heading: a product's headed section among
    its pictures; or, anywhere, a section heading over written prose: a landing page's feature
    beside the frames of its animation), or a section heading per picture, few of its words
    links: cards, each picture under its own name (a roundup's recipes, each with its summary
    and a link to it; not a rail's teasers under "Most read in world news",
    ``_each_picture_headed``), or, where the content does not read as an article, more sentences
    than pictures, few of them links (``_written_beside_pictures``: a service's slides). A block
    under 25 characters is a scrap, but not a list of two or
    more items without links (a product's facts: "1.7 l", "Steel"), a short sentence
    (``_a_short_sentence``: "Added in version 3.7.") or a record's date.
    A list the text announces with a colon (``_introduced``) or that says something about each
    link (``_annotated``) is the text's, and so is, in a ``technical`` document (one that shows
    code, in blocks or in its sentences), the list under its "See also" (``_cross_references``).
    So are a manual's parts side by side, each its heading, a sentence and its list of pages
    (``contents``).
    """
    weight = class_weight(element, negative)
    if article and weight < 0 and not is_prose(element, measures):
        return True
    if _a_records_author(element, records, measures) or _wraps_a_signature(element, measures):
        return False
    text = paragraph_text(element)
    if text.count(",") >= 10:
        return False
    paragraphs = sum(1 for e in element.iter("p"))
    images = sum(1 for e in element.iter("img") if not is_icon(e))
    items = sum(1 for e in element.iter("li")) - 100
    density = measures.link_density(element)
    length = len(text)
    if (
        images > 1
        and paragraphs / images < 0.5
        and length < GALLERY_CHARS_PER_IMAGE * images
        and not holds(element, TITLES if article else TITLES | HEADINGS)
        and not (holds(element, SECTION_HEADINGS) and any(is_prose(p, measures) for p in element.iter("p")))
        and not (density < LINKED_IN_AN_ARTICLE and _each_picture_headed(element, images))
        and not (not article and density < LINKED_IN_AN_ARTICLE and _written_beside_pictures(text, images))
    ):
        return True
    if element.tag not in ("ul", "ol") and items > paragraphs:
        return True
    written_link = _a_written_link(element, measures)
    if (
        length < 25
        and not _a_short_sentence(element, text)
        and not _a_records_date(element, records, measures)
        and (images == 0 or images > 2)
        and element.tag not in ("table", "dl")
        and not holds(element, CODE | HEADINGS)
        and not written_link
        and not _describes_a_declaration(element, measures)
        and not (element.tag in LISTS and not measures.link_chars.get(element, 0) and len(element) >= 2)
    ):
        return True
    if technical and _cross_references(element, measures):
        return False
    if element.tag in LISTS and (
        _annotated(element, measures)
        or _introduced(element, measures)
        or _one_of_the_headed_lists(element, measures)
        or _written_items(element, measures)
    ):
        return False
    if is_glossary(element, measures) or _a_table_of_values(element, measures):
        return False
    if element in contents:
        return False
    linked = LINKED_IN_AN_ARTICLE if article else LINKED
    if (
        weight < 25
        and density > linked
        and not written_link
        and not _a_headed_section(element, measures)
        and not _linked_as_it_announces(element, measures, linked)
        and not _a_heading_and_its_permalinks(element, measures)
        and not _titles_an_entry(element, measures, records)
    ):
        return True
    return weight >= 25 and density > 0.5 and not _a_heading_and_its_permalinks(element, measures)


def _a_table_of_values(table: Element, measures: Measures) -> bool:
    """A table comparing things: each row links its name (the watch, the product, the plan) and
    gives its values in cells of their own, a price, a battery life, a size. Most of its cells
    that say something link nowhere; a table of links set in cells links from most of them."""
    if table.tag != "table":
        return False
    rows = cells = unlinked = 0
    for row in table.iter("tr"):
        rows += 1
        for cell in row:
            if cell.tag in TABLE_CELLS and measures.chars.get(cell, 0):
                cells += 1
                unlinked += not measures.link_chars.get(cell, 0)
    return rows >= 2 and cells >= 4 and unlinked * 2 >= cells


LINKED_IN_AN_ARTICLE = 0.33
"""The share of its text in links past which a block of an article is a link list: beside prose,
a block a third links is a rail, a tag cloud, a "Read next"."""


LINKED = 0.5
"""The same share in content that does not read as an article: a thread's posts, a listing's
entries link as they speak ("Replying to @ada", a card's title over its order number). Half is a
list of links; a third cut WCXB's forums and listings (dev split 0.8711 -> 0.8715, forum 0.818 ->
0.821). Raised for articles too, it kept their rails: scrapinghub 0.9747 -> 0.9740."""


GALLERY_CHARS_PER_IMAGE = 200


def _written_beside_pictures(text: str, images: int) -> bool:
    """Whether the words beside ``images`` pictures are written: more sentences than pictures, so
    more than a caption each. On a page that is no article, a service's slides ("Live odds with
    Xfinity Odds Zone. Full coverage with …") say what it offers; a gallery's captions name what
    each picture shows."""
    return len(SENTENCE_END.findall(text)) > images


SENTENCE_END = re.compile(r"\w[.!?](?:\s|$)")


def _each_picture_headed(element: Element, images: int) -> bool:
    """Whether ``element`` holds a section heading for each of its pictures, none of them pointing
    to other pages ("Most read in world news" heads a rail of other stories): cards, not a gallery."""
    headings = [node for node in element.iter() if node.tag in SECTION_HEADINGS]
    return len(headings) >= images and not any(POINTS_ELSEWHERE.search(paragraph_text(node)) for node in headings)


def _a_heading_and_its_permalinks(element: Element, measures: Measures) -> bool:
    """A block holding a heading whose links are all permalinks (``is_permalink``) or the heading's
    own text linking to itself (``links_its_heading``): Starlight wraps each heading with its
    anchor link, whose words for screen readers outweigh the heading's; MDN sets each heading's
    text in a link to its anchor, and a section whose table its script draws ("Browser
    compatibility") holds nothing else. Its links point at itself, never elsewhere."""
    anchors = [anchor for anchor in element.iter("a") if measures.chars.get(anchor, 0)]
    return (
        bool(anchors)
        and holds(element, HEADINGS)
        and all(is_permalink(anchor, measures) or links_its_heading(anchor, measures) for anchor in anchors)
    )


def _titles_an_entry(element: Element, measures: Measures, records: set[Element]) -> bool:
    """A block whose links are mostly its heading's, a title linking to what it heads, right above
    the written excerpt it heads, the two all but the whole of a record (``ENTRY_SLACK``): the
    header of a blog index's entry (the post's title, its date, its author) over the post's
    opening. A rail's headlines head no excerpt, and the last one, followed by the story's next
    paragraph, is no entry: their parent is the story; a teaser or two beside a story are no
    records."""
    links = measures.link_chars.get(element, 0)
    if not any(
        measures.link_chars.get(heading, 0) * 2 >= links for tag in SECTION_HEADINGS for heading in element.iter(tag)
    ):
        return False
    excerpt, entry = measures.following(element), measures.parent.get(element)
    return (
        excerpt is not None
        and entry in records
        and measures.chars.get(entry, 0)
        <= measures.chars.get(element, 0) + measures.chars.get(excerpt, 0) + ENTRY_SLACK
        and any(worthy_paragraph(paragraph, measures) for paragraph in excerpt.iter("p"))
    )


ENTRY_SLACK = 100
"""What an entry may say beside its header and its excerpt: its tags, "Read more"."""


def _a_headed_section(element: Element, measures: Measures) -> bool:
    """A section under its own heading that says ``SECTION_CHARS`` characters or more outside its
    links: a guide's "Complete the prerequisites", its steps linking to each download. A menu's
    headings label links and say little else."""
    unlinked = measures.chars.get(element, 0) - measures.link_chars.get(element, 0)
    return unlinked >= SECTION_CHARS and holds(element, HEADINGS)


SECTION_CHARS = 300


def _linked_as_it_announces(element: Element, measures: Measures, linked: float) -> bool:
    """Whether ``element``'s links are, but for ``linked`` of it, in lists its own text announces
    (``_introduced``): a guide's section whose sentence ends "…the various OAuth 2 flows:" over a
    list of them, each a link. The list is what the sentence says; a rail's links are not
    announced, or announced as other pages (``POINTS_ELSEWHERE``). Only ``element``'s own lists
    are read: a block is never read twice for it."""
    announced = sum(
        measures.link_chars.get(child, 0) for child in element if child.tag in LISTS and _introduced(child, measures)
    )
    if not announced:
        return False
    chars = measures.chars.get(element, 0)
    return (measures.link_chars.get(element, 0) - announced) <= linked * chars


def _a_short_sentence(element: Element, text: str) -> bool:
    """A block that is one paragraph of three words or more ending with a full stop: written, however
    short (a reference's "Added in version 3.7.", a product's "Miles of motivation."); a label
    ("Copy link", "Back to top") is no sentence."""
    return len(element) == 1 and element[0].tag == "p" and len(text.split()) >= 3 and text.endswith(".")


def _describes_a_declaration(element: Element, measures: Measures) -> bool:
    """A block right after a declaration (``_wraps_a_signature``) is what the reference says of it,
    however short: rustdoc's "Contains the error value" under the variant ``Err(E)``."""
    declaration = measures.previous(element)
    return declaration is not None and _wraps_a_signature(declaration, measures)


def _wraps_a_signature(element: Element, measures: Measures) -> bool:
    """A declaration, or a block that is mostly a heading named for the code it holds
    (``SIGNATURES``): rustdoc's ``section.method`` around each function's ``h4.code-header``;
    TypeDoc's ``tsd-signature``, its parts named for code (``holds_code_parts``). Their links are
    the signature's types (``FnOnce``, ``bool``, an interface's properties) and the version's
    tracking issue, not a list of other pages."""
    if class_words(element) & SIGNATURES and holds_code_parts(element):
        return True
    chars = measures.chars.get(element, 0)
    return any(
        class_words(heading) & SIGNATURES and measures.chars.get(heading, 0) * 2 >= chars
        for tag in HEADINGS
        for heading in element.iter(tag)
    )


def _a_written_link(element: Element, measures: Measures) -> bool:
    """A block whose one link sits in a paragraph, or whose links all name code in paragraphs (an
    ``a`` around a ``code``): references the author wrote, an API reference's "Disables sorting in
    a `GtkTreeSortable`." and "See also: `set_sort_column_id()`", not a list of links. A heading's
    permalink (``is_permalink``) is no link of the text: an FAQ's "Python 3 Support?¶" over the one
    sentence that answers it, linked once."""
    anchors = [anchor for anchor in element.iter("a") if not is_permalink(anchor, measures)]
    if len(anchors) == 1:
        return enclosing(anchors[0], "p", measures, within=element) is not None
    named = [anchor for anchor in anchors if measures.chars.get(anchor, 0)]
    return bool(named) and all(
        next(anchor.iter("code"), None) is not None and enclosing(anchor, "p", measures, within=element) is not None
        for anchor in named
    )


def _annotated(items: Element, measures: Measures) -> bool:
    """A list whose items say something of their own beside their links: references, a reading list.

    "Arbor Day Foundation – information about climate change and planting trees", "[Barak-Steurer]
    graduate course on sum-of-squares", a wiki's "Tuning PostgreSQL by Frank Wiles": a writer's list
    of sources, each link annotated. A menu's items are their links and nothing else. Annotated is
    half the items holding ``ANNOTATION_CHARS`` or more characters outside their links: an author's
    name is enough.
    """
    entries = [item for item in items if item.tag == "li" and measures.chars.get(item, 0)]
    annotated = sum(
        1 for item in entries if measures.chars.get(item, 0) - measures.link_chars.get(item, 0) >= ANNOTATION_CHARS
    )
    return bool(entries) and annotated * 2 >= len(entries)


ANNOTATION_CHARS = 10


def _written_items(items: Element, measures: Measures) -> bool:
    """A list whose items are paragraphs, their links inside them: steps a writer set down
    ("Install and set up ngrok.", each linking to how), not a menu, whose items are their links."""
    entries = [item for item in items if item.tag == "li" and measures.chars.get(item, 0)]
    return len(entries) >= 2 and all(
        enclosing(anchor, "p", measures, within=item) is not None for item in entries for anchor in item.iter("a")
    )


def _introduced(items: Element, measures: Measures) -> bool:
    """A list the text before it announces with a colon: "Top expert recommendations:", "You'll need:".

    The sentence makes the list part of what it says, links or not; a rail's label ("Related
    stories:", "Read more:") announces other pages and is no introduction. The sentence is a
    paragraph or heading of its own, or the running text the list follows in its block ("…, see the
    following documentation:<br>"); a list nested in an item of an announced list is announced too.
    """
    announcement = _announcement(items, measures)
    if announcement is not None:
        return not POINTS_ELSEWHERE.search(paragraph_text(announcement))
    sentence = _sentence_before(items, measures)
    if sentence.endswith(":") and not POINTS_ELSEWHERE.search(sentence):
        return True
    item = measures.parent.get(items)
    outer = measures.parent.get(item) if item is not None and item.tag == "li" else None
    return outer is not None and outer.tag in LISTS and _introduced(outer, measures)


def _sentence_before(items: Element, measures: Measures) -> str:
    """The running text right before ``items`` in the block that holds it, line breaks passed over:
    "To learn how, see the following documentation:<br><ul>…" inside a list item or a cell."""
    before = measures.previous(items)
    while before is not None and before.tag == "br" and not (before.tail or "").strip():
        before = measures.previous(before)
    if before is None:
        parent = measures.parent.get(items)
        return (parent.text or "").strip() if parent is not None else ""
    return (before.tail or "").strip()


def _one_of_the_headed_lists(items: Element, measures: Measures) -> bool:
    """A list of links that is a section of its own, one of ``HEADED_LISTS`` or more beside it.

    A syllabus, a chapter's pages, a guide's index: "1. Data Preprocessing" over the tutorials it
    lists, "2. Exploratory Data Analysis" over the next. Each list follows its heading (an unlinked
    one that points to no other pages, ``POINTS_ELSEWHERE``) or the one paragraph that opens its
    section, mostly not links ("Used when the output is yes or no."), and the sections stand side
    by side: a rail is one list under "Related posts", or lists whose headings are links.
    """
    heading = _heading_before(items, measures)
    if heading is None:
        return False
    parent = measures.parent.get(items)
    headed = sum(1 for sibling in parent if sibling.tag in LISTS and _heading_before(sibling, measures) is not None)
    return headed >= HEADED_LISTS


def _cross_references(element: Element, measures: Measures) -> bool:
    """Whether ``element`` is a section headed "See also" (``SEE_ALSO``), or the list that opens
    one: a manual's or a reference's pointers to the pages it builds on (MDN's, the Arch Wiki's).
    In a technical document they are the author's; beside a story the same words head a rail, and
    stay ``POINTS_ELSEWHERE``. The heading may sit in a wrapper of its own that says no more than
    it (MediaWiki's ``mw-heading`` around the ``h2`` and its edit link)."""
    if element.tag in LISTS:
        heading = _as_heading(measures.previous(element), measures)
    else:
        blocks = [child for child in element if measures.chars.get(child, 0)]
        if len(blocks) < 2 or any(block.tag not in LISTS for block in blocks[1:]):
            return False
        heading = _as_heading(blocks[0], measures)
    return heading is not None and bool(SEE_ALSO.fullmatch(paragraph_text(heading)))


def _as_heading(block: Element | None, measures: Measures) -> Element | None:
    """``block`` if it is a heading, or the heading it wraps when it says no more than that."""
    if block is None or block.tag in HEADINGS:
        return block
    heading = next((child for child in block if child.tag in HEADINGS), None)
    if heading is None or measures.chars.get(block, 0) > measures.chars.get(heading, 0) + HEADING_WRAPPER_SLACK:
        return None
    return heading


SEE_ALSO = re.compile(
    r"\W*(?:see also|siehe auch|voir aussi|v[ée]ase también|ver también|vedi anche|veja também|zie ook"
    r"|zobacz (?:też|także|również))\W*",
    re.IGNORECASE,
)
"""How a section of cross-references is headed, in English, German, French, Spanish, Italian,
Portuguese, Dutch and Polish."""
HEADING_WRAPPER_SLACK = 10
"""What a heading's wrapper may say beside it: an "[edit]" link."""


def _heading_before(items: Element, measures: Measures) -> Element | None:
    before = measures.previous(items)
    if before is not None and before.tag == "p" and measures.link_density(before) < SECTION_OPENING_LINKS:
        before = measures.previous(before)
    if before is None or before.tag not in HEADINGS or measures.link_chars.get(before, 0):
        return None
    return None if POINTS_ELSEWHERE.search(paragraph_text(before)) else before


HEADED_LISTS = 3
SECTION_OPENING_LINKS = 0.5
"""A paragraph between a heading and its list opens the section when under this share of it links."""


def _announcement(items: Element, measures: Measures) -> Element | None:
    """The paragraph or heading right before ``items`` that ends with a colon, if any, less than
    ``ANNOUNCEMENT_LINKS`` of it links: a sentence may link what it names ("See the requests-oauthlib
    documentation for the flows:"); a line of links is no announcement."""
    before = measures.previous(items)
    if (
        before is None
        or not (before.tag == "p" or before.tag in HEADINGS)
        or measures.link_density(before) >= ANNOUNCEMENT_LINKS
    ):
        return None
    return before if paragraph_text(before).endswith(":") else None


def _points_elsewhere(announcement: Element, measures: Measures) -> bool:
    """A short line pointing to other pages ("If you liked this post you might also like:"): it goes
    with the link list it announces. A paragraph that says more than that is the text's."""
    return measures.chars.get(announcement, 0) <= ANNOUNCEMENT_CHARS and bool(
        POINTS_ELSEWHERE.search(paragraph_text(announcement))
    )


ANNOUNCEMENT_CHARS = 100


ANNOUNCEMENT_LINKS = 0.5


RAIL_POINTERS = (
    r"you (?:may|might) also (?:like|enjoy)|you (?:may|might) (?:also )?be interested in"
    r"(?: (?:the following|these)(?: topics| articles| posts| stories)?)?(?: as well)?"
    r"|(?:other )?(?:posts|articles|stories|recipes) you(?:['’]ll| will| may| might)? (?:also )?(?:love|like|enjoy)"
    r"|don'?t miss|more (?:stories|news|from [\w .]+|like this|topics from [\w .]+)"
    r"|(?:related|similar)(?: stories| articles| posts| coverage| content| reading| threads| topics| questions"
    r"| discussions)?|read (?:more|next|also)|see also|also read"
    r"|recommended(?: for you| stories| reading)?|further reading"
    r"|(?:customers|others)(?: who bought this(?: item)?)? also (?:bought|viewed|liked)|frequently bought together"
    r"|(?:related|similar) (?:products|items)|complete the look|pairs well with|shop similar",
    r"das könnte (?:sie|dich) (?:auch )?interessieren|(?:ähnliche|verwandte|weitere) (?:beiträge|artikel"
    r"|themen|themenbereiche|nachrichten)|mehr (?:zum thema|zu [\w .]+|aus [\w .]+)|(?:zum )?weiterlesen"
    r"|lesen sie (?:auch|mehr)|auch (?:interessant|lesen)|schon gelesen|mehr themen|kunden kauften auch"
    r"|das könnte (?:ihnen|dir) auch gefallen|ähnliche produkte|passend dazu|wird oft zusammen gekauft",
    r"vous aimerez aussi|(?:à )?lire aussi|à lire également|voir aussi|dans la même rubrique|sur le même sujet"
    r"|articles? (?:similaires|liés|connexes)|produits similaires|ils vont bien ensemble"
    r"|pour compléter votre achat",
    r"(?:también )?te puede (?:interesar|gustar)|(?:noticias|artículos|productos) relacionad[oa]s|lee también"
    r"|productos similares|los clientes también (?:compraron|vieron)",
    r"potrebbe (?:interessarti|piacerti anche)|(?:articoli|prodotti) correlati|leggi anche",
    r"leia também|veja também|(?:notícias|artigos|produtos) relacionad[oa]s|você também pode gostar",
    r"lees ook|gerelateerde artikelen|vergelijkbare producten",
    r"(?:czytaj|zobacz) (?:też|także|również)|polecane|podobne produkty|klienci kupili (?:też|również)",
)
"""What heads a rail of other pages like this one (stories, products), in English, German, French,
Spanish, Italian, Portuguese, Dutch and Polish: on any page, never what the page itself lists."""
RAIL_SECTIONS = (
    r"most (?:read|popular)|popular on [\w .]+|trending(?: now)?|up next|(?:latest|recent) (?:news|posts|articles"
    r"|stories)",
    r"neueste (?:beiträge|artikel|themen|nachrichten)|meistgelesen|viel gelesen(?: in [\w .]+)?",
    r"les plus lus|derni(?:ers|ères) (?:articles|actualités|nouvelles)",
    r"lo más leído|últimas noticias|artículos recientes",
    r"i più letti|ultime notizie|articoli recenti",
    r"mais lidas|últimas notícias",
    r"laatste nieuws",
    r"najczęściej czytane|najnowsze (?:artykuły|wiadomości)",
)
"""What heads a section of a site's newest or most read pages: a rail beside a story, but on a
home page or a listing what the page lists."""
RAIL_LABELS = RAIL_POINTERS + RAIL_SECTIONS


POINTS_ELSEWHERE = re.compile(
    r"\b(?:" + "|".join((*RAIL_LABELS, r"more|más|mehr|plus d[e']|meer|więcej")) + r")\b", re.IGNORECASE
)
"""What a sentence pointing to other pages says: a rail's label anywhere in it ("If you liked this
post you might also like:"), or "more" ("Learn more in our plumbing series:", "MÁS INFORMACIÓN:")."""


def is_posters_rank(element: Element, measures: Measures, *, words: frozenset[str] | None = None) -> bool:
    """The rank a forum gives a poster ("New Head-Fier", "Junior Guru Wannabe", "Gold Member"):
    XenForo's ``userTitle``, vBulletin's ``usertitle``, phpBB's ``profile-rank``, Discourse's
    ``user-title``. The forum's label of the poster, not what the poster wrote. ``words`` are
    the element's ``class_words``, when the caller has read them."""
    if not 0 < measures.chars.get(element, 0) <= RANK_CHARS:
        return False
    words = class_words(element) if words is None else words
    return bool(words & RANKS) or (bool(words & RANK_WORDS) and bool(words & POSTERS))


RANKS = frozenset({"usertitle", "userrank"})
RANK_WORDS = frozenset({"title", "rank"})


POSTERS = frozenset({"user", "profile", "author", "member"})


RANK_CHARS = 60


BYLINES = frozenset({"byline", "dateline", "timestamp"})


BYLINE_CHARS = 200


def _is_byline(element: Element, words: frozenset[str], measures: Measures, records: set[Element]) -> bool:
    """A byline, a timestamp line or the box about the author (``words``, its ``class_words``, say
    so): an article's metadata, not its text."""
    if words & BYLINES:
        return measures.chars.get(element, 0) <= BYLINE_CHARS
    return (
        "author" in words
        and bool(words & AUTHOR_BOX)
        and element not in records
        and measures.chars.get(element, 0) <= AUTHOR_BOX_CHARS
    )


AUTHOR_BOX = frozenset({"box", "bio", "description", "info", "about", "profile", "card"})


AUTHOR_BOX_CHARS = 1000


def _building_blocks(content: Element, measures: Measures) -> frozenset[str]:
    """Negative class words that label ``FAMILY_SHARE`` of the content: what it is built of, not boilerplate.

    Page builders name every block of a page alike (Elementor's ``elementor-widget-container``):
    a word on most of the content says nothing about any one block.
    """
    held: Counter[str] = Counter()
    for element in outside_code(content):
        words = class_words(element) & NEGATIVE
        if words:
            parent = measures.parent.get(element)
            for word in words - (class_words(parent) if parent is not None else NO_WORDS):
                held[word] += measures.chars.get(element, 0)
    total = measures.chars.get(content, 0)
    return frozenset(word for word, chars in held.items() if chars >= FAMILY_SHARE * total)


def leads_away(anchor: Element) -> bool:
    """Whether a link leads to another page: an ``href`` that is not a place on this one (``#…``).
    An anchor without one leads nowhere (a script's button, a named place)."""
    href = (anchor.get("href") or "").strip()
    return bool(href) and not href.startswith("#")
