"""Finding a page's main content: the block a reader came for, chosen among the page's blocks.

The rules are the well-tried ones of Arc90's Readability, kept general (nothing site-specific):
score every paragraph (length, commas) into its ancestors; discount link-heavy candidates; take
the best candidate, widened to the thread, the family of sections or the declared body it belongs
to, with its worthy siblings (a table of figures, a glossary; each with the heading right before
it) and the standfirst above it. Around it, ``boilerplate`` drops what is invisible or named like
boilerplate before the scores are counted, and ``cleaning`` drops, inside the chosen block, what
looks like lists of links, rails, bylines or galleries. Text and link lengths are measured once
per tree, bottom-up (``tree.Measures``), and kept true as the tree is cut (``Measures.recount``),
so every pass stays linear.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element

from steward_websearch.extraction.blocks import (
    FAMILY_CHARS,
    RECORDS,
    holds_the_page,
    is_data,
    is_dated,
    is_main,
    is_prose,
    record_kind,
    says_the_title,
    title_words,
    worthy_paragraph,
)
from steward_websearch.extraction.roles import PORTRAITS, ROLE_WORDS, TALK, class_weight, class_words, is_hidden
from steward_websearch.extraction.tree import Measures, ancestors, is_inside, paragraph_text
from steward_websearch.extraction.vocabulary import HEADINGS, INLINE, PICTURES

SCORED = frozenset({"p", "pre", "td", "blockquote"})
BLOCK_CHILDREN = frozenset(
    [
        "a",
        "blockquote",
        "dl",
        "div",
        "img",
        "ol",
        "p",
        "pre",
        "table",
        "ul",
        "section",
        "article",
        "figure",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
    ]
)
TAG_WEIGHT = {
    "div": 5,
    "article": 10,
    "main": 5,
    "section": 3,
    "pre": 3,
    "td": 3,
    "blockquote": 3,
    "address": -3,
    "ol": -3,
    "ul": -3,
    "dl": -3,
    "dd": -3,
    "dt": -3,
    "li": -3,
    "form": -3,
    "h1": -5,
    "h2": -5,
    "h3": -5,
    "h4": -5,
    "h5": -5,
    "h6": -5,
    "th": -5,
}


def _own_text(element: Element) -> str:
    """Text that sits directly in ``element`` (between its children), as in ``<div>text<br>text</div>``."""
    if not len(element):
        return " ".join((element.text or "").split())
    parts = [element.text or ""]
    parts += [child.tail or "" for child in element]
    parts += ["".join(child.itertext()) for child in element if child.tag in INLINE]
    return " ".join(" ".join(parts).split())


MIN_CONTENT_CHARS = 100
SECTIONS_SHARE = 0.35
ARTICLE_SHARE = 0.2


def main_content(
    body: Element, *, article: bool = False, title: str = "", measures: Measures | None = None
) -> Element | None:
    """The element (or a new ``div`` of siblings) holding the main content, or ``None`` for the page.

    A candidate the reader never sees without a click (``_out_of_sight``: in a hidden block that
    holds less than half the page) is chosen only with what holds it; chosen alone, the next best
    is taken instead. On a page whose one ``article`` holds its ``h1`` and prose
    (``_titled_article``), the best candidate in that article or around it is taken; one that
    holds the page's ``main``, itself ``LANDMARK_SHARE`` of the page, is narrowed to it
    (``_within_main``).

    ``None`` when nothing reads like content, and also when the best candidate holds less than
    ``SECTIONS_SHARE`` of the page's text: product, service, listing and documentation pages are
    sequences of sections, not one block of prose, and a single candidate would keep one section
    and drop the rest. A table is one section however much of the page it holds (its row groups
    are lifted to it): a course's schedule, a price list, is a section of a page that says what it
    is; so is a carousel (``CAROUSELS``: a home page's slides of research notes). A page that
    declares itself an ``article`` is held to ``ARTICLE_SHARE`` (CMSs declare every page an
    article, listings and service pages too; a real article's block holds far more than that of
    what boilerplate removal leaves), and a candidate in or around
    the body the page declares (``itemprop=articleBody``) to nothing. A page without a ``main``
    landmark keeps its candidate anyway when it is running text that holds that share of what the
    page says outside its links (``_holds_the_words``); a table or a carousel never, whatever it
    holds: rows and slides are no story. An inline element (a ``small`` byline
    whose class says ``text``) is never the candidate, its block is. A candidate that is one post
    of a thread is widened to the thread (``_thread``) once it has passed those tests as itself:
    a product's reviews are records alike too, and the page is more than its reviews. Siblings
    are then looked for beside the outermost wrapper that holds nothing but the candidate
    (``_outer_wrapper``); a block before that wrapper which holds the page's ``h1`` is the title's
    header, whose lead ``_lead`` takes and whose datelines and share buttons it leaves. On a page
    that does not declare itself an article, a candidate that is or sits in a ``section`` (up to
    that wrapper: ``_in_a_section``) takes the wrapper's sibling sections with it
    (``_another_section``).

    ``measures`` are the body's as it stands, when the caller has them (``remove_boilerplate``
    hands them on): measuring a page costs as much as some of the passes over it.
    """
    measures = measures or Measures(body)
    scores: dict[Element, float] = {}
    for element in body.iter():
        tag = element.tag
        if tag in SCORED or (tag in ("div", "section") and not any(child.tag in BLOCK_CHILDREN for child in element)):
            if measures.chars.get(element, 0) < 25:
                continue
            text, first = paragraph_text(element), measures.parent.get(element)
        elif tag == "a" or tag == "li" or tag in HEADINGS:
            continue
        else:
            text, first = _own_text(element), element
            if len(text) < 25:
                continue
        score = 1 + text.count(",") + text.count("，") + min(len(text) // 100, 3)
        ancestor, level = first, 0
        while ancestor is not None and level < 5:
            if ancestor not in scores:
                scores[ancestor] = TAG_WEIGHT.get(ancestor.tag, 0) + class_weight(ancestor)
            scores[ancestor] += score / (1 if level == 0 else 2 if level == 1 else level * 3)
            ancestor, level = measures.parent.get(ancestor), level + 1
    if not scores:
        return None
    for candidate in scores:
        scores[candidate] *= 1 - measures.link_density(candidate)
    top, declared = _best(body, scores, measures)
    if top is not None and not declared and _out_of_sight(top, body, measures):
        in_sight = {element: score for element, score in scores.items() if not _out_of_sight(element, body, measures)}
        top, declared = _best(body, in_sight, measures)
    story = _titled_article(body, measures) if top is not None and not declared else None
    if story is not None and not _related(top, story, measures):
        inside = {element: score for element, score in scores.items() if _related(element, story, measures)}
        top, declared = _best(body, inside, measures)
    if top is None:
        return None
    if not declared:
        top = _within_main(top, body, measures)
    if top.tag in TABLE_PARTS and measures.parent.get(top) is not None:
        top = measures.parent[top]
    if measures.chars.get(top, 0) < MIN_CONTENT_CHARS:
        return None
    parent = measures.parent.get(top)
    if parent is None:
        return top
    share = measures.chars.get(top, 0) / measures.chars.get(body, 1)
    slides_or_rows = top.tag == "table" or bool(class_words(top) & CAROUSELS)
    one_section = declared is None and (slides_or_rows or share < (ARTICLE_SHARE if article else SECTIONS_SHARE))
    if one_section and (slides_or_rows or not _stands_alone(top, body, measures, title)):
        return None
    top = _thread(top, measures)
    wrapper = _outer_wrapper(top, body, measures)
    sections_too = not article and _in_a_section(top, wrapper, measures)
    siblings = list(measures.parent[wrapper])
    if wrapper is not top:
        headers = {
            sibling for sibling in siblings[: siblings.index(wrapper)] if next(sibling.iter("h1"), None) is not None
        }
        siblings = [sibling for sibling in siblings if sibling not in headers]
    top = wrapper
    threshold = max(10.0, scores.get(top, 0) * 0.2)
    label = top.get("class")
    chosen = Element("div")
    before: Element | None = None
    for sibling in siblings:
        bonus = scores.get(top, 0) * 0.2 if label and sibling.get("class") == label else 0
        if (
            sibling is top
            or scores.get(sibling, -1e9) + bonus >= threshold
            or worthy_paragraph(sibling, measures)
            or is_data(sibling, measures)
            or (sections_too and _another_section(sibling, measures))
        ):
            if before is not None and before.tag in HEADINGS and (not len(chosen) or chosen[-1] is not before):
                chosen.append(before)
            chosen.append(sibling)
        before = sibling
    lead = _lead(body, chosen, measures, title)
    if lead:
        chosen[:0] = lead
    return chosen


def _in_a_section(top: Element, wrapper: Element, measures: Measures) -> bool:
    """Whether ``top`` is, or sits in, an HTML ``section`` no higher than its ``wrapper``."""
    node: Element | None = top
    while node is not None:
        if node.tag == "section":
            return True
        if node is wrapper:
            return False
        node = measures.parent.get(node)
    return False


def _another_section(sibling: Element, measures: Measures) -> bool:
    """Whether ``sibling``, beside a chosen block that is or sits in a ``section``, is another part of
    the same document: it is a ``section`` too, or wraps one and nothing else (sectioning: the
    parts of one whole, side by side; a React page wraps each in a ``div`` or two of its own), and
    says something (``SECTION_CHARS``) other than links (``SECTION_LINK_SHARE``).

    Reference pages and service pages set each part in a ``section`` of its own: an API's
    overview beside its classes, the usage beside the example, a service's "how it works" beside
    its prices. The scores keep the longest and, of the others, only what scores a fifth as
    much; the short parts are the page's all the same. Not on a page that declares itself an
    article (``main_content``'s caller says so): there the sections after the story are its
    related posts and calls to action."""
    node = sibling
    while node.tag != "section" and len(node) == 1 and not (node.text or "").strip():
        node = node[0]
    return (
        node.tag == "section"
        and measures.chars.get(sibling, 0) >= SECTION_CHARS
        and measures.link_density(sibling) < SECTION_LINK_SHARE
    )


SECTION_CHARS = 50
SECTION_LINK_SHARE = 0.3


def _best(body: Element, scores: dict[Element, float], measures: Measures) -> tuple[Element | None, Element | None]:
    """The best scored candidate, widened to what it belongs to, and the body the page declares
    around it if any; ``(None, None)`` when no candidate scores above nothing."""
    top = max((element for element in scores if element.tag not in INLINE), key=scores.__getitem__, default=body)
    if top is body or scores[top] <= 0:
        return None, None
    declared = _declared_body(top, measures)
    return declared or _widen(_family(top, body, measures), scores, measures), declared


def _titled_article(body: Element, measures: Measures) -> Element | None:
    """The page's one ``article`` element, when it holds the page's ``h1`` and written prose: the
    story, by the page's own markup. The best candidate is taken in it or around it; a teaser
    elsewhere, however well named (a magazine's "latest issue" tab under its menu, a ``content``
    block outscoring the story's unnamed one), is not the page. Pages with several articles (a
    feed of cards, a thread) say nothing so plain."""
    articles = list(body.iter("article"))
    if len(articles) != 1:
        return None
    article = articles[0]
    if next(article.iter("h1"), None) is None or not is_prose(article, measures):
        return None
    return article


def _related(element: Element, story: Element, measures: Measures) -> bool:
    """Whether ``element`` is ``story``, inside it or around it."""
    return element is story or is_inside(element, story, measures) or is_inside(story, element, measures)


def _out_of_sight(element: Element, body: Element, measures: Measures) -> bool:
    """Whether the reader sees ``element`` only after a click: it is, or is inside, a hidden block
    (a tab's panel, an accordion's answer, a dialog's text waiting to be opened) that holds less
    than half the page. Kept in place by the boilerplate pass, such blocks are read with what
    holds them; on their own they are no main content: a shop's hidden "Manufacturer's pricing
    policy", all prose, outscored its grid of products, all links."""
    total = measures.chars.get(body, 0)
    node: Element | None = element
    while node is not None and node is not body:
        if node.attrib and is_hidden(node) and not holds_the_page(node, measures, total):
            return True
        node = measures.parent.get(node)
    return False


def _lead(body: Element, chosen: Element, measures: Measures, title_text: str) -> list[Element]:
    """The paragraphs between the page's title and its content: the standfirst, the lead.

    Templates put the title and its standfirst in a header of their own, and the body the scores
    find after it; the lead is the story's first paragraph all the same. When the title (the last
    ``h1`` before the content: a site's logo can be an ``h1`` too; without one, the headline,
    ``_is_headline``) stands outside the content, and the block holding both says little else (at
    most ``LEAD_SPAN`` times what the content says: the article, not the page around it), the
    written paragraphs and decks after the title and before the content are taken with it
    (``_is_lead``; not a dateline, ``DATELINE_CHARS``), up to the second picture: the short
    paragraph right after a picture is its caption (``CAPTION_CHARS``), and the lead goes on past
    it (a review's hero shot over its introduction), but pictures one after another are cards
    whose blurbs are no lead. Not a picture in a ``figure``, which holds its own caption, nor the
    author's photo or an icon beside the title (``_is_portrait``: by its name, or drawn no larger
    than ``ICON_PIXELS``).
    """
    if not len(chosen):
        return []
    first = chosen[0]
    taken = {id(element) for element in chosen.iter()}
    title = _title_before(body, first, title_text)
    held = sum(measures.chars.get(member, 0) for member in chosen)
    common = _title_block(title, first, measures, held) if title is not None else None
    if common is None:
        return []
    in_figures = {id(inner) for figure in common.iter("figure") for inner in figure.iter()}
    around_content = set(ancestors(first, measures))
    lead: list[Element] = []
    after_title = caption_due = False
    pictures = 0
    for element in common.iter():
        if element is first:
            return lead
        if element is title:
            after_title = True
        elif not after_title or id(element) in in_figures:
            continue
        elif element.tag in PICTURES and not _is_portrait(element, common, measures):
            pictures += 1
            if pictures > 1:
                return lead
            caption_due = True
        elif caption_due and element.tag in ("p", "h2") and measures.chars.get(element, 0) <= CAPTION_CHARS:
            caption_due = False
        elif (
            element.tag in ("p", "h2")
            and id(element) not in taken
            and element not in around_content
            and not is_inside(element, title, measures)
            and _is_lead(element, common, measures)
        ):
            lead.append(element)
            caption_due = False
    return []


def _title_before(body: Element, first: Element, title_text: str) -> Element | None:
    """The page's title above ``first``: the last ``h1`` before it (a site's logo can be an ``h1``
    too), or without one the headline (``_is_headline``)."""
    title = headline = None
    wanted = title_words(title_text)
    for element in body.iter():
        if element is first:
            break
        if element.tag == "h1":
            title = element
        elif _is_headline(element, wanted):
            headline = element
    return title if title is not None else headline


def _title_block(title: Element, first: Element, measures: Measures, held: int) -> Element | None:
    """The block holding both ``title`` and ``first``, when it says little else than the ``held``
    characters of content (at most ``LEAD_SPAN`` times as much: the article, not the page around it)."""
    above_title = set(ancestors(title, measures))
    common = measures.parent.get(first)
    while common is not None and common not in above_title:
        common = measures.parent.get(common)
    if common is None or common.tag in ("body", "html") or measures.chars.get(common, 0) > LEAD_SPAN * held:
        return None
    return common


LEAD_SPAN = 1.5
CAPTION_CHARS = 250
"""The longest paragraph right after a picture that is its caption, not the lead."""
DATELINE_CHARS = 80
"""A paragraph this short that gives a date ("UPDATED: Tue., Nov. 19, 2019") is a dateline, no lead."""
DECK_CHARS = 60
NOT_A_LEAD = (ROLE_WORDS - {"header"}) | PORTRAITS
"""Names of blocks whose paragraphs are no lead: boilerplate, the author's."""
TABLE_PARTS = frozenset({"thead", "tbody", "tfoot"})
"""A table's row groups: the candidate is the table, whose siblings say what it is about."""
CAROUSELS = frozenset({"carousel", "slider", "swiper", "slides"})
"""Names of a carousel: slides one after another, one section of a page however much they hold."""


def _is_headline(element: Element, title: str) -> bool:
    """A title set as something else than an ``h1`` (the ``h1`` sits in the breadcrumbs): the page
    says it is the headline (``itemprop=headline``), a heading is named the entry's title, or a
    heading says the page's title (``title``, as its metadata gives it: ``title_words``)."""
    if (element.get("itemprop") or "").strip().lower() == "headline":
        return True
    if element.tag not in HEADLINE_TAGS:
        return False
    return bool(class_words(element) & HEADLINE_WORDS) or (bool(title) and says_the_title(element, title))


HEADLINE_TAGS = frozenset({"h2", "h3"})
HEADLINE_WORDS = frozenset({"title", "headline"})


def _is_lead(paragraph: Element, within: Element, measures: Measures) -> bool:
    """A written paragraph (``worthy_paragraph``), or a deck set as an ``h2`` (a sentence of
    ``DECK_CHARS`` or more, no link), that neither it nor a block around it, below ``within``,
    names like boilerplate (a newsletter prompt, a "metadata" line) or as the author's (a bio).
    ``header`` is no such name here: an article's header is where its lead sits."""
    if paragraph.tag == "h2":
        if measures.chars.get(paragraph, 0) < DECK_CHARS or measures.link_chars.get(paragraph, 0):
            return False
    elif not worthy_paragraph(paragraph, measures) or (
        measures.chars.get(paragraph, 0) <= DATELINE_CHARS and is_dated(paragraph)
    ):
        return False
    return not _named_below(paragraph, within, NOT_A_LEAD, measures)


def _is_portrait(picture: Element, within: Element, measures: Measures) -> bool:
    """An author's photo, an avatar, an icon (by its name or a block's around it, below ``within``):
    a picture beside the byline, with no caption after it."""
    return _drawn_small(picture) or _named_below(picture, within, PORTRAITS, measures)


def _drawn_small(picture: Element) -> bool:
    """Whether a picture is declared no larger than ``ICON_PIXELS`` each way: an avatar, a badge."""
    sizes = [(picture.get("width") or "").strip(), (picture.get("height") or "").strip()]
    return all(size.isdecimal() and len(size) <= 3 and int(size) <= ICON_PIXELS for size in sizes)


ICON_PIXELS = 100
"""The size in pixels, each way, up to which a picture is an icon, an avatar or a badge."""


def _named_below(element: Element, within: Element, words: frozenset[str], measures: Measures) -> bool:
    """Whether ``element``, or a block around it below ``within``, has one of ``words`` in its name."""
    node: Element | None = element
    while node is not None and node is not within:
        if class_words(node) & words:
            return True
        node = measures.parent.get(node)
    return False


def landmark(body: Element, measures: Measures | None = None) -> Element:
    """The page's ``main`` landmark when it holds the page's content, else ``body``; with the
    written sections the template set beside it (``_written_beside``)."""
    measures = measures or Measures(body)
    main = _main_landmark(body, measures)
    if main is None:
        return body
    before, after = _written_beside(main, body, measures)
    if not before and not after:
        return main
    whole = Element("div")
    whole.extend([*before, main, *after])
    return whole


def _written_beside(main: Element, body: Element, measures: Measures) -> tuple[list[Element], list[Element]]:
    """The blocks beside ``main`` (its siblings, its ancestors' siblings) that are prose of
    ``BESIDE_MAIN_CHARS`` or more, before it and after it.

    Shops put a category's guide (what to look for in a lens, its FAQ) below the ``main`` that
    holds the grid; what boilerplate removal leaves out there that is running text, few of its
    words links, is the page's too.
    """
    before: list[Element] = []
    after: list[Element] = []
    node = main
    while node is not body and (parent := measures.parent.get(node)) is not None:
        siblings = list(parent)
        place = siblings.index(node)
        before[:0] = [sibling for sibling in siblings[:place] if _written(sibling, measures)]
        after.extend(sibling for sibling in siblings[place + 1 :] if _written(sibling, measures))
        node = parent
    return before, after


def _written(element: Element, measures: Measures) -> bool:
    return is_prose(element, measures) and measures.chars.get(element, 0) >= BESIDE_MAIN_CHARS


BESIDE_MAIN_CHARS = 500


def _within_main(top: Element, body: Element, measures: Measures) -> Element:
    """The ``main`` inside ``top``, when ``top`` holds one that holds ``LANDMARK_SHARE`` of the page:
    the page says where its content is, and the candidate only reached past it.

    A page whose content is mostly links (a documentation page listing talks and posts, each a
    link) scores low inside ``main``; a paragraph the template sets beside it (the project's
    one-line pitch over a sidebar of links) then makes the block holding both the best candidate.
    Only the ``main`` element is looked for, by ElementTree's own walk in C: ``role=main`` as well,
    as ``_main_landmark`` reads it, would walk the candidate in Python on every page.
    """
    main = next(top.iter("main"), None)
    if main is None or main is top or measures.chars.get(main, 0) < LANDMARK_SHARE * measures.chars.get(body, 0):
        return top
    return main


def _main_landmark(body: Element, measures: Measures) -> Element | None:
    total = measures.chars.get(body, 0)
    for element in body.iter():
        if is_main(element):
            return element if measures.chars.get(element, 0) >= LANDMARK_SHARE * total else None
    return None


def _outer_wrapper(top: Element, body: Element, measures: Measures) -> Element:
    """The outermost of the wrappers around ``top`` that say nothing else: its siblings are the content's.

    Templates wrap a block in wrappers of their own, a ``details`` that folds a crate's description
    (rustdoc), a column around an article's opening paragraphs; the sections that follow (the
    crate's modules, the rest of the article) are the wrapper's siblings, which a look at
    ``top``'s own siblings never sees. A wrapper says ``WRAPPER_CHARS`` at most besides ``top``:
    the ``summary`` that opens a ``details`` ("Expand description"), a heading over the block; a
    table or list beside it is a section of its own however short (a tab beside a tab), and the
    block is no longer alone. The body's child is as high as it goes.
    """
    node = top
    while True:
        parent = measures.parent.get(node)
        if parent is None or parent is body or measures.parent.get(parent) is None:
            return node
        if measures.chars.get(parent, 0) > measures.chars.get(node, 0) + WRAPPER_CHARS or any(
            inner.tag in NOT_A_LABEL for child in parent if child is not node for inner in child.iter()
        ):
            return node
        node = parent


WRAPPER_CHARS = 40
"""What a wrapper may say besides its block: the summary of a ``details``, a heading, a stray word."""
NOT_A_LABEL = frozenset({"table", "ul", "ol", "dl", "pre"})
"""What a wrapper's other child holds when it is a section of its own (a tab's table), however short."""


def _holds_the_words(top: Element, body: Element, measures: Measures) -> bool:
    """Whether ``top`` is running text holding ``SECTIONS_SHARE`` of what the page says outside its links.

    Without a ``main`` landmark the fallback is the whole body; a sidebar of category and tag
    links can outweigh a short news story without being any of it. A blog's post can be two
    sentences (``STORY_CHARS``) under a linked title, a linked author and linked tags
    (``STORY_LINK_SHARE``), beside a sidebar four times as long.
    """
    unlinked = measures.chars.get(body, 0) - measures.link_chars.get(body, 0)
    chars = measures.chars.get(top, 0)
    return chars >= STORY_CHARS and measures.link_density(top) < STORY_LINK_SHARE and chars >= SECTIONS_SHARE * unlinked


def _stands_alone(top: Element, body: Element, measures: Measures, title: str) -> bool:
    """Whether ``top``, short against the page, is its content all the same: the entry the page
    marks up as such (``_the_entrys_content``), a titled story that is the page's only prose
    (``_titled_story``), or, on a page without a ``main`` landmark, running text holding enough of
    what the page says (``_holds_the_words``)."""
    return (
        _the_entrys_content(top, body, measures)
        or _titled_story(top, body, measures, title)
        or (_main_landmark(body, measures) is None and _holds_the_words(top, body, measures))
    )


def _the_entrys_content(top: Element, body: Element, measures: Measures) -> bool:
    """Whether ``top`` is the page's entry by its hAtom markup: an ``entry-content`` holding
    ``ENTRY_SHARE`` of what the page's ``entry-content`` blocks say. Blogs and news sites of the
    microformats' years mark their story so, beside a sidebar and a footer four times as long;
    a blog's home page marks each of its posts, none of which holds that share, and the feed of
    tweets beside a story marks each tweet, together far shorter than the story."""
    if not _marked_as(top, "entry-content"):
        return False
    entries = (element for element in body.iter() if _marked_as(element, "entry-content"))
    return measures.chars.get(top, 0) >= ENTRY_SHARE * sum(measures.chars.get(entry, 0) for entry in entries)


ENTRY_SHARE = 0.6


def _titled_story(top: Element, body: Element, measures: Measures, title_text: str) -> bool:
    """Whether ``top`` is prose under the page's title, in a block saying little else (``_title_block``),
    and the page has no other prose. A short post under its headline, beside an archive, a blogroll
    and lists of related posts, is the page; an intro under a service page's or a shop's title is
    one section among others that are prose too. Not always: on a shop's category page the intro
    under the title can be the one prose above the products, and is then taken alone (two such
    pages of WCXB's dev split, -0.031 and +0.005)."""
    if not is_prose(top, measures):
        return False
    title = _title_before(body, top, title_text)
    block = _title_block(title, top, measures, measures.chars.get(top, 0)) if title is not None else None
    if block is None:
        return False
    elsewhere = set(body.iter()) - set(ancestors(block, measures)) - set(block.iter())
    return not any(is_prose(element, measures) for element in elsewhere)


STORY_CHARS = 200
STORY_LINK_SHARE = 0.3


LANDMARK_SHARE = 0.3


def _family(top: Element, body: Element, measures: Measures) -> Element:
    """The nearest element that holds every block with ``top``'s class, when those blocks are written text.

    A thread's posts, a page's sections, an FAQ's answers are blocks alike, each with the class of
    the others; the best candidate is one of them, and sibling inclusion misses the rest when the
    template wraps each in wrappers of its own. When two or more other blocks share ``top``'s exact
    class and most of them are text (``FAMILY_CHARS`` or more, under a quarter of it links), the
    content is the family: the nearest ancestor that holds them all, unless that is the body or a
    block of links (``FAMILY_LINK_SHARE``). A family of cards, short and mostly links, is not one.
    """
    label = top.get("class")
    if not label:
        return top
    kin = [element for element in body.iter() if element.get("class") == label and element is not top]
    written = sum(
        1 for element in kin if measures.chars.get(element, 0) >= FAMILY_CHARS and measures.link_density(element) < 0.25
    )
    if len(kin) < 2 or written * 2 < len(kin):
        return top
    lineage = [top, *ancestors(top, measures)]
    level = {ancestor: index for index, ancestor in enumerate(lineage)}
    nearest = 0
    for element in kin:
        node = element
        while node is not None and node not in level:
            node = measures.parent.get(node)
        if node is None:
            return top
        nearest = max(nearest, level[node])
    holder = lineage[nearest]
    if holder.tag in ("body", "html") or measures.link_density(holder) >= FAMILY_LINK_SHARE:
        return top
    return holder


FAMILY_LINK_SHARE = 0.3


def _thread(top: Element, measures: Measures) -> Element:
    """The list that holds ``top``'s record and the records like it: a thread's posts, not its first.

    A thread is a list of records alike (one per post: author, date, body), each a block of the
    same tag whose class starts with the same name; the best candidate is the body of one of them,
    and the others, short replies mostly, are too short to be scored as content of their own. Up
    to ``RECORD_LEVELS`` above ``top``, a block with ``RECORDS`` or more such siblings (empty ones
    do not count) makes their parent the content when the others add ``RECORDS_ADD`` to what the
    block holds (a page builder's sections are alike too, and one of them is the article), they are
    text rather than links (``FAMILY_LINK_SHARE``), and they are most of what the parent holds
    (``RECORDS_SHARE``). The highest such parent wins: a nested comment tree is one thread.
    """
    best = top
    node, level = top, 0
    while level < RECORD_LEVELS:
        parent = measures.parent.get(node)
        if parent is None or parent.tag in ("body", "html"):
            break
        kind = record_kind(node)
        if kind is not None:
            records = [child for child in parent if record_kind(child) == kind and measures.chars.get(child, 0)]
            chars = sum(measures.chars.get(record, 0) for record in records)
            links = sum(measures.link_chars.get(record, 0) for record in records)
            own = measures.chars.get(node, 0)
            if (
                len(records) >= RECORDS
                and chars > measures.chars.get(best, 0)
                and chars - own >= RECORDS_ADD * own
                and links < FAMILY_LINK_SHARE * chars
                and chars >= RECORDS_SHARE * measures.chars.get(parent, 0)
            ):
                best = parent
        node, level = parent, level + 1
    return best


RECORD_LEVELS = 8
RECORDS_ADD = 0.2
RECORDS_SHARE = 0.5


def _widen(top: Element, scores: dict[Element, float], measures: Measures) -> Element:
    """Prefer a near ancestor that holds clearly more prose than the candidate, without more links.

    Articles split into chunks (between ads, or in a grid) put their paragraphs in cousins that
    sibling inclusion alone would miss; what the wider choice brings in that is not prose,
    ``clean`` takes out again. Not past the entry the page marks up (hAtom's ``hentry``): around
    it is the blog's column with its sidebar (an "About this blog", a recent post's blurb per
    line), unless the wider block brings the entry's readers' comments, whose convention the
    steps after this one keep (``TALK``, prose).
    """
    prose = measures.prose_chars.get(top, 0)
    best, best_prose = top, prose * 1.5 + 300
    below, ancestor, level = top, measures.parent.get(top), 0
    while ancestor is not None and ancestor.tag not in ("body", "html") and level < 5:
        if _is_entry(below) and not _holds_replies(ancestor, measures):
            break
        wider = measures.prose_chars.get(ancestor, 0)
        if wider > best_prose and measures.link_density(ancestor) < 0.3:
            best, best_prose = ancestor, wider
        below, ancestor, level = ancestor, measures.parent.get(ancestor), level + 1
    return best


def _is_entry(element: Element) -> bool:
    """Whether the page marks ``element`` as an entry, a post (hAtom)."""
    return _marked_as(element, "hentry")


def _marked_as(element: Element, microformat: str) -> bool:
    """Whether ``element``'s class holds ``microformat``'s class name whole (hAtom's ``hentry``,
    ``entry-content``): the page's own markup, read as written, not as role words."""
    return microformat in (element.get("class") or "").split()


def _holds_replies(element: Element, measures: Measures) -> bool:
    """Whether ``element`` holds a block named for comments (``TALK``) that is prose: readers' replies."""
    return any(class_words(inner) & TALK and is_prose(inner, measures) for inner in element.iter())


def _declared_body(top: Element, measures: Measures) -> Element | None:
    """The element the page marks as its article's body (schema.org's ``itemprop=articleBody``)
    around ``top`` or inside it, if any.

    News sites split the body into chunks around embeds and ads; the markup still says where it
    all is.
    """
    node: Element | None = top
    while node is not None and node.tag not in ("body", "html"):
        if _is_declared_body(node):
            return node
        node = measures.parent.get(node)
    return next((element for element in top.iter() if _is_declared_body(element)), None)


def _is_declared_body(element: Element) -> bool:
    return (element.get("itemprop") or "").strip().lower() == "articlebody"
