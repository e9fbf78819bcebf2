"""Cleaning the chosen content: the link lists, rails, teasers, bylines, labels, copies and controls
that sit inside the block holding the main content."""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter
from collections.abc import Iterator
from xml.etree.ElementTree import Element

from steward_websearch.extraction.blocks import (
    FAMILY_CHARS,
    PROSE_SHARE,
    RECORDS,
    TITLES,
    Kind,
    holds_the_page,
    is_dated,
    is_prose,
    record_kind,
    worthy_paragraph,
)
from steward_websearch.extraction.boilerplate import FAMILY_SHARE, drop_unmarked_captions
from steward_websearch.extraction.roles import NEGATIVE, NO_WORDS, SIGNATURES, class_weight, class_words, is_icon
from steward_websearch.extraction.tree import (
    Measures,
    ancestors,
    drop_where,
    enclosing,
    holds,
    is_inside,
    outside_code,
    paragraph_text,
    remove_each,
    text_start,
)
from steward_websearch.extraction.vocabulary import BLOCKS, CODE, HEADINGS, INLINE, LISTS


def clean(content: Element, *, article: bool) -> None:
    """Drop blocks inside the main content that look like link lists, share bars or galleries.

    Lines of code are never looked at. Headings go when their class says boilerplate or when they
    are links away from the page (a heading that links to itself, a permalink, stays; so does one
    that heads written paragraphs, ``_heads_prose``, or is an item of a list that stayed). A list
    the text announces with a colon is the text's (``_introduced``); a short line announcing other
    pages goes with the list it announces (``_points_elsewhere``). Unless the
    page declares itself an ``article`` or the content is mostly paragraphs (``PROSE_SHARE``), a
    block's class words are not held against it: on a product or service page ``media``, ``meta``,
    ``tags`` or ``contact`` name sections of the content, not furniture around it. In an article,
    the byline and timestamp lines (``BYLINES``, at most ``BYLINE_CHARS``) go: they are the
    document's metadata, not its text; so does the box about its author (``author`` with ``box``,
    ``bio``, ``description``…: ``AUTHOR_BOX``, at most ``AUTHOR_BOX_CHARS``), unless it is one of
    several alike (a page of authors' cards). ``author`` alone is not enough: listings and threads
    name whole entries by their author. A block under 25 characters goes, but not a list of two or
    more items without links (a product's facts: "1.7 l", "Steel", "2 kW"), nor a short sentence
    (``_a_short_sentence``: Sphinx's "Added in version 3.7."); and one stays
    when it gives the date of a record it sits in (``_a_records_date``): a reply's date is part of
    the reply, and so is its author, a link to the poster's profile (``_a_records_author``); the
    rank the forum gives the poster is not (``_is_posters_rank``). Pictures with little text
    between them are a gallery, unless they hold the page's title, or, where the content does not
    read as an article, a heading: on a product page a headed section among its pictures is one of
    the product's own (a toolkit's "Jimmy" and what it does), beside a story it is a rail. Content
    that reads as an article without declaring itself one loses its captions too
    (``drop_unmarked_captions``), when they say at most ``CAPTIONS_SHARE`` of it. Content that does
    not read as an article keeps the entries of its listing whole (``_listed``); content that does,
    when there are ``LISTING_ENTRIES`` or more (a listing that calls itself an article, not a rail
    beside a story).
    """
    measures = Measures(content)
    total = measures.chars.get(content, 0)
    reads_as_article = article or measures.prose_chars.get(content, 0) >= PROSE_SHARE * total
    if reads_as_article and not article and drop_unmarked_captions(content, measures, at_most=CAPTIONS_SHARE):
        measures = Measures(content)
        total = measures.chars.get(content, 0)
    negative = NEGATIVE - _building_blocks(content, measures)
    alike = _siblings_alike(content, measures)
    records = _records(alike)
    listed = _listed(alike, measures, total, at_least=LISTING_ENTRIES if reads_as_article else 0)
    boilerplate: list[Element] = []
    for element in outside_code(content):
        if element.tag not in CLEANED or element is content or measures.parent.get(element) is content:
            continue
        if holds_the_page(element, measures, total) or element in listed:
            continue
        if _looks_like_boilerplate(element, measures, article=reads_as_article, negative=negative, records=records):
            boilerplate.append(element)
            announcement = _announcement(element, measures) if element.tag in LISTS else None
            if announcement is not None and _points_elsewhere(announcement, measures):
                boilerplate.append(announcement)
    remove_each(boilerplate, measures)
    measures.forget_siblings()
    remove_each(
        (
            element
            for element in content.iter()
            if _is_posters_rank(element, measures) or (reads_as_article and _is_byline(element, measures, records))
        ),
        measures,
    )
    remove_each(
        (
            heading
            for heading in content.iter()
            if heading.tag in HEADINGS
            and (
                class_weight(heading, negative) < 0
                or (
                    _share_linking_away(heading, measures) > 0.33
                    and measures.parent[heading].tag != "li"
                    and not _a_records_author(heading, records, measures)
                    and not _heads_prose(heading, measures)
                )
            )
        ),
        measures,
    )


CLEANED = ("div", "section", "ul", "ol", "table", "figure", "header", "dl")


CAPTIONS_SHARE = 0.1
"""In content that reads as an article without declaring itself one, captions are dropped when
together they say at most this share of it: a shop's tiles of copy named ``caption`` say most."""


LIST_ITEM: Kind = ("li", "")
"""The kind of a list item without a class: the items of one list are alike, classed or not."""


def _siblings_alike(content: Element, measures: Measures) -> list[tuple[Element, Kind, list[Element]]]:
    """Each group of ``RECORDS`` or more siblings alike in the content, as (parent, kind, members).

    Siblings are alike when they have one kind (``record_kind``: tag and first class; or
    ``LIST_ITEM``); members say something (empty ones are left out). One walk serves both readings
    of the groups in ``clean``: the records a date belongs to, and a listing's entries.
    """
    found: list[tuple[Element, Kind, list[Element]]] = []
    for parent in outside_code(content):
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
    what the page lists. Entries are siblings alike (``_siblings_alike``: records, or items of one
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
    return bool(records) and any(node in records for node in ancestors(element, measures))


POSTER_CHARS = 200


PROFILE = re.compile(
    r"/(?:members?|u|users?|profiles?|authors?)/[^/?#]+|member\.php\?|memberlist\.php\?mode=viewprofile"
    r"|[?&](?:u|userid|showuser)=\d",
    re.IGNORECASE,
)


def _looks_like_boilerplate(
    element: Element, measures: Measures, *, article: bool, negative: frozenset[str], records: set[Element]
) -> bool:
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
        and not (element.tag in LISTS and not measures.link_chars.get(element, 0) and len(element) >= 2)
    ):
        return True
    if element.tag in LISTS and (_annotated(element, measures) or _introduced(element, measures)):
        return False
    if weight < 25 and density > 0.33 and not written_link:
        return True
    return weight >= 25 and density > 0.5


GALLERY_CHARS_PER_IMAGE = 200


def _a_short_sentence(element: Element, text: str) -> bool:
    """A block that is one paragraph of three words or more ending with a full stop: written, however
    short (a reference's "Added in version 3.7.", a product's "Miles of motivation."); a label
    ("Copy link", "Back to top") is no sentence."""
    return len(element) == 1 and element[0].tag == "p" and len(text.split()) >= 3 and text.endswith(".")


def _wraps_a_signature(element: Element, measures: Measures) -> bool:
    """A block that is mostly a heading named for the code it holds (``SIGNATURES``): rustdoc's
    ``section.method`` around each function's ``h4.code-header``. Its links are the signature's
    types (``FnOnce``, ``bool``) and the version's tracking issue, not a list of other pages."""
    chars = measures.chars.get(element, 0)
    return any(
        class_words(heading) & SIGNATURES and measures.chars.get(heading, 0) * 2 >= chars
        for tag in HEADINGS
        for heading in element.iter(tag)
    )


def _a_written_link(element: Element, measures: Measures) -> bool:
    """A block whose one link sits in a paragraph: a reference the author wrote, not a list of links."""
    anchors = list(element.iter("a"))
    return len(anchors) == 1 and enclosing(anchors[0], "p", measures, within=element) is not None


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


def _introduced(items: Element, measures: Measures) -> bool:
    """A list the text before it announces with a colon: "Top expert recommendations:", "You'll need:".

    The sentence makes the list part of what it says, links or not; a rail's label ("Related
    stories:", "Read more:") announces other pages and is no introduction.
    """
    announcement = _announcement(items, measures)
    return announcement is not None and not POINTS_ELSEWHERE.search(paragraph_text(announcement))


def _announcement(items: Element, measures: Measures) -> Element | None:
    """The unlinked paragraph or heading right before ``items`` that ends with a colon, if any."""
    before = measures.previous(items)
    if before is None or not (before.tag == "p" or before.tag in HEADINGS) or measures.link_density(before) > 0:
        return None
    return before if paragraph_text(before).endswith(":") else None


def _points_elsewhere(announcement: Element, measures: Measures) -> bool:
    """A short line pointing to other pages ("If you liked this post you might also like:"): it goes
    with the link list it announces. A paragraph that says more than that is the text's."""
    return measures.chars.get(announcement, 0) <= ANNOUNCEMENT_CHARS and bool(
        POINTS_ELSEWHERE.search(paragraph_text(announcement))
    )


ANNOUNCEMENT_CHARS = 100


RAIL_POINTERS = (
    r"you (?:may|might) also like|don'?t miss|more (?:stories|news|from [\w .]+|like this|topics from [\w .]+)"
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


def _is_posters_rank(element: Element, measures: Measures) -> bool:
    """The rank a forum gives a poster ("New Head-Fier", "Junior Guru Wannabe", "Gold Member"):
    XenForo's ``userTitle``, vBulletin's ``usertitle``, phpBB's ``profile-rank``, Discourse's
    ``user-title``. The forum's label of the poster, not what the poster wrote."""
    words = class_words(element)
    ranked = bool(words & RANKS) or (bool(words & {"title", "rank"}) and bool(words & POSTERS))
    return ranked and 0 < measures.chars.get(element, 0) <= RANK_CHARS


RANKS = frozenset({"usertitle", "userrank"})


POSTERS = frozenset({"user", "profile", "author", "member"})


RANK_CHARS = 60


BYLINES = frozenset({"byline", "dateline", "timestamp"})


BYLINE_CHARS = 200


def _is_byline(element: Element, measures: Measures, records: set[Element]) -> bool:
    """A byline, a timestamp line or the box about the author: an article's metadata, not its text."""
    words = class_words(element)
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


def _heads_prose(heading: Element, measures: Measures) -> bool:
    """Whether written paragraphs follow ``heading``: the next block is one, or opens with one.

    A listicle's sections are headed by links to what each one is about ("1. Harvard Business
    School" links to the school); a rail's teaser headings are followed by another teaser, a
    date, a picture.
    """
    after = measures.following(heading)
    if after is None:
        return False
    return worthy_paragraph(after, measures) or (len(after) > 0 and worthy_paragraph(after[0], measures))


def _share_linking_away(element: Element, measures: Measures) -> float:
    """Like ``Measures.link_density``, but a link to a place on the same page (``#…``) does not count."""
    chars = measures.chars.get(element, 0)
    if not chars:
        return 0.0
    away = sum(measures.chars.get(anchor, 0) for anchor in element.iter("a") if _leads_away(anchor))
    return away / chars


def _leads_away(anchor: Element) -> bool:
    """Whether a link leads to another page: an ``href`` that is not a place on this one (``#…``).
    An anchor without one leads nowhere (a script's button, a named place)."""
    href = (anchor.get("href") or "").strip()
    return bool(href) and not href.startswith("#")


def drop_menus(content: Element) -> None:
    """Drop menus: a list of links whose items hold lists of links, a site's sections and their pages.

    Navigation not marked as such (a hero's "choose a service" dropdown, a mega menu in plain
    ``ul``) sits in the content of pages read whole, by their sections, where ``clean`` does not
    look. A list nested in a list, both links (``NESTED_MENU_LINK_SHARE`` of the outer list's
    text), is a map of the site; a reading list nests what it says about each link, and stays.
    """
    if not any(_nests_a_list(items) for tag in LISTS for items in content.iter(tag)):
        return
    measures = Measures(content)

    def menu(child: Element, tag: str) -> bool:
        return tag in LISTS and measures.link_density(child) >= NESTED_MENU_LINK_SHARE and _nests_a_list(child)

    drop_where(content, menu)


def _nests_a_list(items: Element) -> bool:
    return any(inner.tag in LISTS for item in items for inner in item)


NESTED_MENU_LINK_SHARE = 0.9


def drop_credits(content: Element) -> None:
    """Drop picture credits set as lines of the text: "Photo: AP", "Titelbild: …", "Crédits photos : …".

    Captions go with the furniture; a credit the editor typed as a line of the story ("Bild via
    Instagram", "Credit: Getty") says who took a picture, not what the story says. One is a short
    block (at most ``CREDIT_CHARS``) that opens with such a label and a colon, a ``©`` or "by".
    A source ("Quelle:", "Source:") is the text's citation and stays.
    """
    if not CREDIT_ANYWHERE.search("".join(content.itertext())):
        return
    measures = Measures(content)
    drop_where(
        content,
        lambda child, tag: (
            tag in CREDIT_TAGS
            and 0 < measures.chars.get(child, 0) <= CREDIT_CHARS
            and bool(CREDIT.match(paragraph_text(child)))
        ),
    )


CREDIT_LABEL = (
    r"(?:photo(?:graph)?s?|pictures?|images?|foto(?:s|grafie)?|bild(?:er)?|titelbild|beitragsbild|bildquelle"
    r"|crédits? photos?|photo credits?|credits?)(?:\s*(?:by|via|von|de)\b|\s*[:©])"
)
CREDIT = re.compile(r"\W*" + CREDIT_LABEL, re.IGNORECASE)
CREDIT_ANYWHERE = re.compile(CREDIT_LABEL, re.IGNORECASE)
CREDIT_CHARS = 100
CREDIT_TAGS = frozenset({"p", "div", "span", "small", "em", "figcaption"})


def drop_controls(content: Element) -> None:
    """Drop links and spans drawn as buttons (``btn``, ``button``): controls, as ``button`` elements
    are; and what asks the reader to act rather than says anything (``ASKS``), a block of one such
    sentence: a prompt to sign in before acting ("You must log in to answer this question.",
    "Create an account or sign in to comment", "Sie müssen sich einloggen, um …"), a thread's
    notice that a guest cannot ("Not open for further replies."), a request to rate the page
    ("Was this article helpful?", "War der Artikel nützlich?"). What a guest sees in place of the
    form, and the form's question, are not what the page says; "Log in to your console and click
    Create" is an instruction, and stays.

    Done last, on the content already chosen: taken out earlier, the links they are would no
    longer count in the link density that tells a rail of other stories from the story.
    """
    drop_where(
        content,
        lambda child, tag: (
            (tag in ("a", "span") and bool(class_words(child) & CONTROLS)) or _asks_the_reader(child, tag)
        ),
    )


def _asks_the_reader(element: Element, tag: str) -> bool:
    if tag not in ASKING_TAGS:
        return False
    return _says_only(element, ASKS, ASKING_CHARS)


def _says_only(element: Element, said: re.Pattern[str], chars: int) -> bool:
    """Whether all ``element`` says, at most ``chars`` characters of it, is what ``said`` reads;
    no more of a longer block is read."""
    text = text_start(element, chars + 1)
    return 0 < len(text) <= chars and bool(said.fullmatch(text))


CONTROLS = frozenset({"btn", "button"})


ASKS = re.compile(
    r"(?:(?:please )?(?:log|sign) ?in|you (?:must|need to|have to) (?:be )?(?:logged in|log in|sign in|signed in"
    r"|registered|register|a member))(?: or (?:register|sign up))?(?: in order)? to (?:comment|reply|post|answer"
    r"|continue|view|add|leave|provide|see|access|join|participate|vote|like|follow|save|download|rate|review"
    r"|write|ask|read|start)\b[^.!?]*[.!?]?"
    r"|create an account or (?:log|sign) in\b[^.!?]*[.!?]?"
    r"|sie müssen (?:sich )?(?:einloggen|anmelden|angemeldet sein|registriert sein)\b[^.!?]*[.!?]?"
    r"|bitte (?:melde dich|logge dich|melden sie sich|loggen sie sich) (?:an|ein)\b[^.!?]*[.!?]?"
    r"|vous devez (?:être connecté|vous connecter|être inscrit)\b[^.!?]*[.!?]?"
    r"|(?:debes|tienes que) (?:iniciar sesión|estar registrado|registrarte)\b[^.!?]*[.!?]?"
    r"|devi (?:effettuare il login|essere registrato|accedere)\b[^.!?]*[.!?]?"
    r"|(?:you are not logged in|not open for further replies)\.?"
    r"|this (?:topic|thread) (?:was|has been|is) (?:automatically )?(?:closed|locked|archived)\b[^.!?]*[.!?]?"
    r"(?: new replies are no longer allowed\.?)?"
    r"|(?:was|is|did you find) this (?:article |page |post |answer |information |guide )?(?:helpful|useful)\W*"
    r"|how (?:useful|helpful) was this (?:post|article|page)\W*|rate this (?:article|post|page|recipe)\W*"
    r"|(?:war|ist) (?:der|dieser) (?:artikel|beitrag|inhalt) (?:hilfreich|nützlich)\W*"
    r"|wie (?:bewerten sie|hilfreich (?:war|ist)|gefällt ihnen) (?:diesen|dieser|der) (?:artikel|beitrag)\W*"
    r"|cet article (?:vous a-t-il été|était-il) utile\W*|¿?(?:te|le) (?:ha )?(?:resultado|resultó) útil\W*"
    r"|hier können sie (?:den|diesen) (?:artikel|beitrag) bewerten\W*"
    r"|share this (?:article|post|story|page)\W*|(?:möchten sie|willst du) (?:den|diesen) (?:artikel|beitrag) teilen\W*"
    r"|(?:diesen )?(?:artikel|beitrag) teilen\W*|partager (?:cet|l')article\W*|compart(?:e|ir) (?:este|el) artículo\W*"
    r"|(?:[^.!?]*\b(?:requires? javascript|(?:please )?enable javascript|javascript (?:is|must be) (?:required|enabled)"
    r"|javascript aktivier(?:en|t)|aktivieren sie javascript|activ(?:er|ez) (?:le )?javascript"
    r"|habilit(?:ar|e) (?:el )?javascript|attiva(?:re)? javascript)\b[^.!?]*[.!?]?\s*){1,2}",
    re.IGNORECASE,
)
"""What asks the reader to act: a prompt to sign in before acting, a thread's notice that a guest
cannot, a request to rate or share the page, or to turn JavaScript on ("This slideshow requires
JavaScript.", what WordPress's slideshows say outside any ``noscript``); in English, German,
French, Spanish and Italian."""


ASKING_TAGS = frozenset({"p", "div", "span", "h2", "h3", "h4", "h5", "h6", "li", "strong", "em", "a"})


ASKING_CHARS = 160


def drop_line_numbers(content: Element) -> None:
    """Drop the column of line numbers a highlighter sets beside a code block (Pygments'
    ``linenos``, Chroma's ``lntd``): a ``pre`` that only counts, 1, 2, 3…, in a table row whose
    other ``pre`` holds more than numbers. Kept, the count reads as a block of code of its own."""
    gutters = {
        pre
        for row in content.iter("tr")
        if len(blocks := {pre: "".join(pre.itertext()).split() for pre in row.iter("pre")}) > 1
        and not all(_numbers(words) for words in blocks.values())
        for pre, words in blocks.items()
        if _numbers(words) and all(int(after) == int(before) + 1 for before, after in itertools.pairwise(words))
    }
    if gutters:
        drop_where(content, lambda child, tag: child in gutters)


def _numbers(words: list[str]) -> bool:
    return bool(words) and all(word.isdecimal() for word in words)


def drop_placeholders(content: Element) -> None:
    """Drop placeholders: "Loading…", and the template's filler text ("Lorem ipsum dolor sit amet…").

    "Loading…" is what a page shows until its script puts the real thing there: a reader who waits
    never sees it, and an extractor that does not run the script has nothing to put in its place.
    Only an element that says nothing else is one (``PLACEHOLDER``); a sentence that mentions
    loading is text. Filler is the Latin a designer sets where copy will go, left in a template's
    unused slides and cards: a block of running text (no block inside it) that opens with it
    (``FILLER``) goes, unless the filler is ``FILLER_SHARE`` or more of the content: a template
    never filled in is all the page there is.
    """
    said = "".join(content.itertext()).lower()
    if PLACEHOLDER.search(said):
        drop_where(
            content,
            lambda child, tag: (
                tag in PLACEHOLDER_TAGS and not len(child) and bool(PLACEHOLDER.fullmatch((child.text or "").strip()))
            ),
        )
    if "lorem ipsum" in said:
        measures = Measures(content)
        filler = [element for element in content.iter() if _is_filler(element)]
        if sum(measures.chars.get(element, 0) for element in filler) < FILLER_SHARE * measures.chars.get(content, 0):
            remove_each(filler, measures)


def _is_filler(element: Element) -> bool:
    return (
        element.tag in BLOCKS
        and not any(child.tag in BLOCKS for child in element)
        and bool(FILLER.match(paragraph_text(element)))
    )


PLACEHOLDER = re.compile(
    r"(?:loading|wird geladen|lädt|chargement(?: en cours)?|cargando|caricamento(?: in corso)?|carregando"
    r"|bezig met laden|ładowanie)(?:\s*(?:\.{1,3}|…))?",
    re.IGNORECASE,
)
"""What a placeholder says ("Loading…", "Wird geladen", "Cargando..."), in the eight languages."""
FILLER = re.compile(r"lorem ipsum(?: dolor\b|$)", re.IGNORECASE)
"""Filler opens with "Lorem ipsum dolor", or is a heading saying "Lorem Ipsum"; a sentence about it
("Lorem Ipsum is simply dummy text…") is text."""
FILLER_SHARE = 0.9


PLACEHOLDER_TAGS = BLOCKS | INLINE


def drop_teasers(content: Element, *, article: bool) -> None:
    """Drop a line that points to another story: "Related: <link>", "READ MORE: <link>", "Watch: <link>".

    News and blog templates put them between the paragraphs of a story; they are the headlines of
    other pages, not part of this one. One is a paragraph (or a block) of at most ``TEASER_CHARS``
    that starts with such a label and a colon and is mostly a link; a sentence that only mentions
    related work is text. So is a rail: a short block that only says such a label ("You may also
    like…", "Customers also bought", "Das könnte Sie auch interessieren": ``RAIL_POINTERS``) and the
    blocks right after it that are links (``RAIL_LINK_SHARE``) or a grid of cards each linking
    elsewhere (``_is_cards``), or the label alone when nothing follows it in its block (a rail its
    script never filled). A section of the site's newest or most read pages ("Trending", "Latest
    news": ``RAIL_SECTIONS``) is a rail beside a story (an article, declared, or content that is
    mostly paragraphs); on a listing or a home page it is what the page lists, and stays.
    """
    measures = Measures(content)
    drop_where(
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
    for parent in content.iter():
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
    remove_each(rails, measures)


def _is_cards(element: Element, measures: Measures) -> bool:
    """Two or more blocks, each linking to another page: a grid of teaser cards, a headline over
    its picture and its first line, however little of each the links cover. Wrappers that hold
    one block (a page builder's widget, its container) are looked through."""
    cards = [child for child in element if measures.chars.get(child, 0)]
    while len(cards) == 1:
        cards = [child for child in cards[0] if measures.chars.get(child, 0)]
    return len(cards) >= 2 and all(any(_leads_away(anchor) for anchor in card.iter("a")) for card in cards)


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
    r"|veja também|lees ook|(?:czytaj|zobacz) (?:też|także|również))\s*[:»›]",
    re.IGNORECASE,
)


TEASER_CHARS = 200


TEASER_TAGS = frozenset({"p", "div", "li", "h2", "h3", "h4", "h5", "h6"})


def drop_repeated_labels(content: Element) -> None:
    """Drop short texts the page's template repeats: the "Joined", "Reply" and "Add to cart" of every post or item.

    A label that stands beside every post or product of a listing is furniture of the template,
    however it is named; what a person wrote is not repeated word for word several times.
    Only blocks of the layout go: a paragraph or a quote is written (a refrain is repeated on
    purpose), table cells are data, and code and headings are kept too. A label the template fills
    with a figure beside every poster's name ("Posts: 138", "Joined: 4 Jul 2012") goes the same way
    (``POSTERS_FIGURE``, ``_beside_a_poster``), though no two of its lines are alike.
    """
    measures = Measures(content)
    seen: dict[str, list[Element]] = {}
    figures: dict[str, list[Element]] = {}
    for element in outside_code(content):
        chars = measures.chars.get(element, 0)
        if not 0 < chars <= LABEL_CHARS or element.tag not in BLOCKS or element.tag in LABELS_KEPT:
            continue
        parent = measures.parent.get(element)
        if parent is None or measures.chars.get(parent, 0) == chars or parent.tag in LABELS_KEPT:
            continue
        text = paragraph_text(element)
        seen.setdefault(text, []).append(element)
        figure = POSTERS_FIGURE.fullmatch(text)
        if figure:
            figures.setdefault(figure["label"].casefold(), []).append(element)
    repeated = [element for elements in seen.values() if len(elements) >= LABEL_REPEATS for element in elements]
    for elements in figures.values():
        if len(elements) >= LABEL_REPEATS:
            repeated.extend(element for element in elements if _beside_a_poster(element, measures))
    remove_each(repeated, measures)


def _beside_a_poster(element: Element, measures: Measures) -> bool:
    """Whether a block of at most ``POSTER_CHARS`` around ``element`` (``POSTER_LEVELS`` up at
    most) names a poster: a link to a member's profile, or the rank the forum gives the poster."""
    block = measures.parent.get(element)
    for _ in range(POSTER_LEVELS):
        if block is None or measures.chars.get(block, 0) > POSTER_CHARS:
            return False
        if any(
            (node.tag == "a" and PROFILE.search(node.get("href") or "")) or _is_posters_rank(node, measures)
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


def drop_second_copies(content: Element) -> None:
    """Drop a block that repeats, word for word, a block just before it: one description in a copy
    per screen size; and a preview of a block that follows it whole.

    Shops and landing pages render the same text twice, one copy per screen size (or once more in
    ``noscript``), and let the stylesheet show one; a reader sees it once. A copy is a layout block
    of ``COPY_CHARS`` or more whose first copy is a near relative (a common ancestor at most
    ``COPY_DISTANCE`` levels up). A written block (a paragraph, a heading, a cell) repeated is
    meant (the same lunch on three days of a meal plan); so is a block repeated far away (a
    documentation page describes one field in the request and in the response); so is anything
    in a quote (a reply quotes the post it answers), and code. A preview is a near relative that
    says the first part of another block, cut (``…``, "(more)"): the answer a reader expands to
    read whole is kept whole, once.
    """
    measures = Measures(content)
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
        seen: dict[str, Element] = {}
        for element in elements:
            first = seen.setdefault(paragraph_text(element), element)
            if first is not element and _near(first, element, measures):
                copies.append(element)
    for blocks in by_opening.values():
        if len(blocks) > 1:
            copies.extend(_previews(blocks, measures))
    remove_each(copies, measures)


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
        stem = CUT.sub("", text)
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


COPY_CHARS = 100


COPY_DISTANCE = 3


def _near(first: Element, second: Element, measures: Measures) -> bool:
    ancestor = measures.parent.get(second)
    for _ in range(COPY_DISTANCE):
        if ancestor is None:
            return False
        if is_inside(first, ancestor, measures):
            return True
        ancestor = measures.parent.get(ancestor)
    return False


def drop_before_title(content: Element) -> None:
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
    measures = Measures(content)
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
    for block in blocks:
        parent = measures.parent[block]
        parent.text = None
        for sibling in _preceding(block, measures):
            parent.remove(sibling)


BEFORE_TITLE_SHARE = 0.1


def _preceding(element: Element, measures: Measures) -> list[Element]:
    siblings = list(measures.parent[element])
    return siblings[: siblings.index(element)]


def drop_closing_labels(content: Element) -> None:
    """Drop the labels that close the content but head nothing: a comments section's ("Comments",
    "3 Kommentare", "Leave a reply", "Be the first to comment": ``CLOSING_LABEL``) whose comments
    are gone with the furniture or were never loaded (a script's comments widget, left empty).

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
        drop_where(content, lambda child, tag, label=last: child is label)


def _closes(label: Element, content: Element, parents: dict[Element, Element]) -> bool:
    """Whether ``label`` is a comments section's label and nothing is said after it."""
    if not _says_only(label, CLOSING_LABEL, CLOSING_LABEL_CHARS):
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
    r"|\W*(?:leave a (?:reply|comment)|post a comment|add a comment|write a comment|be the first to comment"
    r"|(?:tell us )?what do (?:you|YOU) think|join the (?:discussion|conversation)|no comments(?: yet)?"
    r"|(?:einen )?kommentar schreiben|schreibe einen kommentar|keine kommentare|laisser un commentaire"
    r"|deja un comentario|lascia un commento)\W*",
    re.IGNORECASE,
)
"""What heads a comments section, in English, German, French, Spanish, Italian, Dutch and Polish."""


CLOSING_LABELS = 3
"""How many such labels may close the content, one under another ("Comments", "0 comments")."""
