"""Finding a page's main content: the article, without the navigation, ads and comments around it.

The rules are the well-tried ones of Arc90's Readability, kept general (nothing site-specific):
drop what is invisible or structurally boilerplate; drop elements whose class or id says
boilerplate unless they also say content; score every paragraph (length, commas) into its
ancestors; discount link-heavy candidates; take the best candidate with its worthy siblings; then
drop, inside it, blocks that look like lists of links, share bars or galleries. Text lengths and
link lengths are measured once per tree, bottom-up, so the whole pass stays linear.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from urllib.parse import urlsplit
from xml.etree.ElementTree import Element

from steward_websearch.extraction.vocabulary import BLOCKS, CODE, FURNITURE, HEADINGS, INLINE, LISTS, UNSEEN

HIDDEN_ROLES = frozenset(
    ["navigation", "banner", "contentinfo", "complementary", "dialog", "alertdialog", "search", "menu", "menubar"]
)
# Words of class and id attributes (split at punctuation and camelCase: "commentsContainer" is
# "comments container"), matched whole: a substring test would read "pageRow" as "pager".
UNLIKELY = frozenset(
    """ad ads adv advert advertisement advertising agegate ai2html banner breadcrumb breadcrumbs combx comment
    comments community consent cookie cookies copyright disqus dsgvo footer gdpr header masthead menu nav navbar
    navigation newsletter outbrain pager pagination paywall popup promo promoted recommend recommended related
    remark replies rss share sharing shoutbox sidebar signature signup skyscraper social sponsor sponsored
    subscribe subscription supplemental taboola toolbar""".split()
)
ELSEWHERE = frozenset("related recommend recommended outbrain taboola".split())
"""Boilerplate words that name other pages' content: never an article, however much of the page they hold."""
CONSENT = frozenset("consent cookie cookies dsgvo gdpr".split())
"""Boilerplate words that name the cookie prompt: never content, however much of the page its
settings and vendor lists hold."""
TALK = frozenset("comment comments disqus".split())
"""Boilerplate words that name readers' replies: beside an article's own prose, never the article."""
LAYOUT = frozenset("header masthead banner popup menu".split())
"""Boilerplate words that name a place in the layout, not a kind of text: prose there is kept."""
MAYBE = frozenset("article body column content main shadow".split())
POSITIVE = frozenset("article body content entry hentry main page post text blog story".split())
NEGATIVE = frozenset(
    """ad ads banner byline caption combx comment comments contact foot footer footnote gdpr hidden masthead media
    meta metadata newsletter outbrain promo recommend related share shopping shoutbox sidebar skyscraper social
    sponsor subscribe tags tool widget""".split()
)
ROLE_WORDS = UNLIKELY | NEGATIVE
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_NAME = re.compile(r"[A-Za-z0-9]+")
_MADE = re.compile(r"[0-9][A-Za-z]")
_UUID = re.compile(r"[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}", re.IGNORECASE)
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
CLEANED = ("div", "section", "ul", "ol", "table", "figure", "header", "dl")


def _words(element: Element) -> frozenset[str]:
    """The words of an element's class and id, where they name its role.

    An id that spells the element's own heading is the heading's anchor, the subject of the
    section and not its role: Sphinx and most documentation generators give the section on
    ``prefetch_related()`` the id ``s-prefetch-related``, which is no related-links rail.
    """
    classes, identifier = element.get("class"), element.get("id")
    if not classes and not identifier:
        return _NO_WORDS
    words = _label_words(f"{classes or ''} {identifier or ''}")
    if identifier and words & ROLE_WORDS and _anchors_its_heading(element, identifier):
        return _label_words(classes) if classes else _NO_WORDS
    return words


def _anchors_its_heading(element: Element, identifier: str) -> bool:
    """Whether ``identifier`` spells the heading that opens ``element`` (one of its first blocks),
    and that heading names a subject: one that opens with a role word ("Related products",
    "Comments") names the role."""
    heading = (
        element
        if element.tag in HEADINGS
        else next(
            (
                node
                for child in element[:HEADING_PLACES]
                for node in (child, *child[:HEADING_PLACES])
                if isinstance(node.tag, str) and node.tag in HEADINGS
            ),
            None,
        )
    )
    if heading is None:
        return False
    title = " ".join(heading.itertext())
    first = _NAME.search(title)
    named = {word for word in _label_words(identifier) if len(word) > 1}
    return bool(named) and named <= _label_words(title) and first is not None and first[0].lower() not in ROLE_WORDS


HEADING_PLACES = 3


_NO_WORDS: frozenset[str] = frozenset()


@functools.lru_cache(maxsize=4096)
def _label_words(label: str) -> frozenset[str]:
    """The words of a class and id, without the ones a machine made.

    Page builders and CSS modules name blocks with hashes and UUIDs (``elementor-element-a0ad13a``,
    ``sc-14uj3bo-2``); read as words, they spell ``ad`` and ``nav`` at random. A UUID says
    nothing, and a name whose letters and digits alternate says nothing after its first letters
    (``ad300x250`` is an ``ad``, ``a0ad13a`` is not).
    """
    words = set()
    for name in _NAME.findall(_UUID.sub(" ", label)):
        made = _MADE.search(name)
        words.update(word.lower() for word in _WORD.findall(name[: made.start() + 1] if made else name))
    for word in list(words):
        words.update(_COMPOUND.findall(word))
    return frozenset(words)


_COMPOUND = re.compile(r"^(?:footer|menu|related)(?=.)|(?<=.)(?:footer|metadata)$")
"""Role words run into others: ``brdfooter``, ``footerlinks``, ``menuwrap``, ``relatedposts``
(WordPress's Jetpack), ``postmetadata`` (its classic themes). Not ``menu`` at the end, where it
is as often something else (``contextmenu`` marks a CMS's body paragraphs)."""


def _is_furniture(element: Element) -> bool:
    """Navigation, banners, dialogs and the like, by the role the page gives them; and skip links."""
    if element.tag == "a":
        return _is_skip_link(element)
    return (element.get("role") or "").lower() in HIDDEN_ROLES


SKIP_LINK = re.compile(r"\s*(skip|jump|back|go) to\b", re.IGNORECASE)


def _is_skip_link(anchor: Element) -> bool:
    """ "Skip to content", "Back to top": a link to a place on the same page, for moving around it."""
    return (anchor.get("href") or "").startswith("#") and bool(SKIP_LINK.match("".join(anchor.itertext())))


def _is_hidden(element: Element) -> bool:
    if element.get("hidden") is not None or element.get("popover") is not None:
        return True
    if _hidden_by_class(element.get("class")):
        return True
    style = (element.get("style") or "").replace(" ", "").lower()
    return "display:none" in style or "visibility:hidden" in style


HIDING = frozenset({"hide", "hidden", "is-hidden", "d-none"})


def _hidden_by_class(classes: str | None) -> bool:
    names = (classes or "").split()
    return bool(HIDING.intersection(names)) and not any(":" in name for name in names)


MAX_DEPTH = 150


def flatten_deep(root: Element, max_depth: int = MAX_DEPTH) -> None:
    """Replace whatever is nested deeper than ``max_depth`` by its text.

    Real articles are never that deep; pages that are (broken or hostile markup) would otherwise
    exhaust the recursion of anything that walks the tree.
    """
    stack = [(root, 0)]
    while stack:
        element, depth = stack.pop()
        if depth < max_depth:
            stack.extend((child, depth + 1) for child in element)
            continue
        pieces, pending = [], [element]
        while pending:
            node = pending.pop()
            if isinstance(node, str):
                pieces.append(node)
                continue
            if node is not element and node.tail:
                pending.append(node.tail)
            pending.extend(reversed(list(node)))
            if node.text:
                pending.append(node.text)
        for child in list(element):
            element.remove(child)
        element.text = " ".join("".join(pieces).split())


def remove_unseen(root: Element) -> None:
    """Drop what a reader never sees (as ``_drop_structural`` judges it) and nothing else: the whole page."""
    _drop_structural(root, article=False, furniture=False)


def remove_boilerplate(root: Element, *, article: bool = False) -> None:
    """Drop invisible and structural boilerplate, then elements named like boilerplate.

    An element named like boilerplate that holds half the page's text is kept: sites wrap whole
    pages in ``Page-ad-margins`` or ``header-wrapper`` as often as they wrap ads. So is a family
    of them (the same boilerplate word) that together hold most of it: on a forum thread or a
    comment page, the ``comment`` blocks are what the reader came for. Prose under a word that only
    names a place in the layout (``LAYOUT``: a documentation page's ``layout__header`` holds its
    introduction) is kept too, and so is a block under such a word that heads a section (an ``h2``
    to ``h6``, few of its words links: a landing page's ``SectionHeader`` holding "Customers growing
    with us" and its standfirst); prose under ``comment`` or ``related`` is not. A block that holds
    most of the page's prose is the story whatever its name (``_is_the_story``); the cookie prompt
    (``CONSENT``) never is, however long its vendor list, unless it holds the page's title or says
    content (a cookie policy). Forms are kept (ASP.NET pages put everything inside one); their
    controls are not. ``article`` is whether the page declares itself one: then a block named for
    other pages' content (``ELSEWHERE``: related, recommended) goes however much it holds (a news
    site's carousel of other stories can be longer than the story), and so do readers' replies
    (``TALK``) when the article has prose of its own beside them (a link aggregator's story is its
    thread); ``_drop_structural`` says what else changes. Between that structural pass and the
    class words, the box around a field asking for an e-mail address goes (``_drop_sign_up_boxes``),
    and on an article a caption that is no ``figcaption`` (``_drop_unmarked_captions``).
    """
    fields = _sign_up_fields(root)
    _drop_structural(root, article=article, furniture=True)
    measures = Measures(root)
    boxes_dropped = bool(fields) and _drop_sign_up_boxes(root, fields, measures)
    captions_dropped = article and _drop_unmarked_captions(root, measures)
    if boxes_dropped or captions_dropped:
        measures = Measures(root)
    total, prose = measures.chars.get(root, 0), measures.prose_chars.get(root, 0)
    suspects: list[tuple[Element, Element, frozenset[str]]] = []
    stack = [root]
    while stack:
        parent = stack.pop()
        for child in parent:
            if child.tag not in KEPT_WHATEVER_THE_NAME:
                words = _words(child)
                named = words & UNLIKELY
                if named & CONSENT and not words & MAYBE and not _holds(child, TITLES):
                    suspects.append((parent, child, named))
                    continue
                if (
                    named
                    and not _is_the_story(child, words, measures, prose)
                    and (
                        (article and named & ELSEWHERE)
                        or (
                            not words & MAYBE
                            and not _holds_the_page(child, measures, total)
                            and not (
                                named <= LAYOUT and (_is_prose(child, measures) or _heads_a_section(child, measures))
                            )
                        )
                    )
                ):
                    suspects.append((parent, child, named))
                    continue
            if child.tag not in CODE:
                stack.append(child)
    family_chars: Counter[frozenset[str]] = Counter()
    for _, child, named in suspects:
        family_chars[named] += measures.chars.get(child, 0)
    talk_prose = sum(measures.prose_chars.get(child, 0) for _, child, named in suspects if named & TALK)
    replies_beside_a_story = article and measures.prose_chars.get(root, 0) - talk_prose >= PROSE_CHARS
    for parent, child, named in suspects:
        if (
            named & CONSENT
            or (article and named & ELSEWHERE)
            or (replies_beside_a_story and named & TALK)
            or family_chars[named] < total * FAMILY_SHARE
        ):
            remove_keeping_tail(parent, child)


FAMILY_SHARE = 0.4


def _heads_a_section(element: Element, measures: Measures) -> bool:
    return measures.link_density(element) < 0.25 and _holds(element, SECTION_HEADINGS)


SECTION_HEADINGS = frozenset({"h2", "h3", "h4", "h5", "h6"})


def _sign_up_fields(root: Element) -> list[Element]:
    """The elements that hold a field asking for an e-mail address: where a sign-up box starts."""
    return [element for element in root.iter() if any(_asks_for_email(child) for child in element)]


def _asks_for_email(field: Element) -> bool:
    if field.tag != "input":
        return False
    if (field.get("type") or "").lower() == "email":
        return True
    said = " ".join(field.get(name) or "" for name in ("name", "id", "placeholder", "autocomplete", "aria-label"))
    return bool(EMAIL_FIELD.search(said))


EMAIL_FIELD = re.compile(r"e-?mail", re.IGNORECASE)


def _drop_sign_up_boxes(root: Element, fields: list[Element], measures: Measures) -> bool:
    """Drop the box around each e-mail field: the newsletter, the sign-in, the "get the deals" prompt.

    Such a box speaks to the reader ("Subscribe to our newsletter", "By signing up, you agree…")
    rather than of the page, wherever it sits and whatever its class. The box is the widest
    element around the field that says no more than ``SIGN_UP_CHARS``, holds no ``h1`` (a landing
    page's hero asks for an e-mail beside the page's title, and the title stays) and not half the
    page (a short contact page is its form). Whether any box went.
    """
    dropped, total = False, measures.chars.get(root, 0)
    for start in fields:
        if start not in measures.parent:
            continue
        box, node = None, start
        while (
            node is not None
            and node is not root
            and measures.chars.get(node, 0) <= SIGN_UP_CHARS
            and not _holds_the_page(node, measures, total)
            and next(node.iter("h1"), None) is None
        ):
            box, node = node, measures.parent.get(node)
        if box is not None and box in measures.parent[box]:
            remove_keeping_tail(measures.parent[box], box)
            dropped = True
    return dropped


SIGN_UP_CHARS = 600


def _drop_unmarked_captions(root: Element, measures: Measures, *, at_most: float = 1.0) -> bool:
    """Drop captions and credits that are not a ``figcaption``: a short block named ``caption`` or
    ``credit`` beside a picture ("(Image: GETTY)", "Photo: AP").

    They say who took the picture, or what it shows, as ``figcaption`` does; the picture stays.
    Only on a page that declares itself an article, or in content that reads as one (``clean``):
    shops call their product copy a ``caption`` (apple.com's product page lost 0.09 of F1 to the
    rule on every page); there they go when together they say at most ``at_most`` of the content.
    Whether any went.
    """
    captions = _unmarked_captions(root, measures)
    if sum(measures.chars.get(caption, 0) for caption in captions) > at_most * measures.chars.get(root, 0):
        return False
    for caption in captions:
        remove_keeping_tail(measures.parent[caption], caption)
    return bool(captions)


def _unmarked_captions(root: Element, measures: Measures) -> list[Element]:
    """The outermost blocks named ``caption`` or ``credit`` (``CAPTIONS``), at most
    ``CAPTION_CHARS``, beside a picture and holding none."""
    found: list[Element] = []
    for caption in root.iter():
        parent = measures.parent.get(caption)
        if (
            parent is not None
            and _words(caption) & CAPTIONS
            and not any(_is_inside(caption, outer, measures) for outer in found[-1:])
            and 0 < measures.chars.get(caption, 0) <= CAPTION_CHARS
            and _holds(parent, PICTURES)
            and not _holds(caption, PICTURES)
        ):
            found.append(caption)
    return found


CAPTIONS = frozenset({"caption", "credit", "credits", "attribution"})
CAPTION_CHARS = 300
CAPTIONS_SHARE = 0.1
"""In content that reads as an article without declaring itself one, captions are dropped when
together they say at most this share of it: a shop's tiles of copy named ``caption`` say most."""
PICTURES = frozenset({"img", "picture", "video"})


def _drop_structural(root: Element, *, article: bool, furniture: bool) -> None:
    """Drop what never renders text, then (``furniture``) the page's furniture, then what is hidden.

    A ``noscript`` that asks for JavaScript ("You must enable JavaScript to shop", "You need
    JavaScript to view the comments") goes with what never renders text: it speaks to the reader's
    browser, not of the page. Other ``noscript`` is read, as a browser without JavaScript shows it.

    Furniture is what its tag or role says is navigation, a banner, an aside, a footer or a
    dialog, and figure captions. A dialog inside the ``main`` landmark, and the ``aside`` it
    slides in, are not furniture unless the page is an ``article``: shops put the size guide and
    the product details in drawers opened on demand, where an article's dialogs are the site's
    (republish this story, sign up). Furniture that holds the ``main`` landmark is a wrapper, not
    furniture: a ``header`` left open, or a template's banner around the whole page, holds the
    content too, and its own menus go one by one. The page's own ``header`` is its banner
    (``_banners``) and goes with what is hidden, on the same terms: a page wrapped whole in one
    keeps it, unless it is a menu. Hidden is ``hidden``, ``popover`` (shown only when something
    opens it), ``display: none``, ``visibility: hidden``, or a class that only hides (``hide``,
    ``d-none``; not ``hidden md:block``, which shows from a screen size up).

    Hidden is kept when it is content waiting for JavaScript: shops and landing pages ship their
    whole content under ``display: none`` and reveal it once loaded (a hidden element holding half
    the page's text that is not a menu: a grid of products can be half links, a menu is more,
    ``MENU_LINK_SHARE``), and tabs and accordions hide descriptions and specifications the same
    way (a hidden element that is prose, few of its words links, or that holds a table of figures,
    or a panel the reader opens: ``_is_panel``).
    """
    panels = _Panels()
    panels.read_controls(root)
    around_main = _around_main(root) if furniture else set()
    drawers = set() if article or not furniture else _drawers(e for e in around_main if _is_main(e))
    drawers.update([element for drawer in drawers for element in drawer.iter("aside")])

    def unseen(child: Element, tag: str) -> bool:
        if not tag or tag.startswith("{") or tag in UNSEEN or (tag == "noscript" and _asks_for_javascript(child)):
            return True
        return (
            furniture
            and child not in drawers
            and (tag in FURNITURE or _is_furniture(child))
            and child not in around_main
        )

    def unwanted(child: Element, tag: str) -> bool:
        dropped = unseen(child, tag)
        for element in child.iter() if dropped else (child,):
            panels.read_controls(element)
        return dropped

    _drop_where(root, unwanted)
    measures = Measures(root)
    total = measures.chars.get(root, 0)
    banners = _banners(root, measures) if furniture else set()

    def hidden_or_banner(child: Element, tag: str) -> bool:
        if child not in banners and (
            not _is_hidden(child)
            or _is_prose(child, measures)
            or _is_data(child, measures)
            or _is_panel(child, panels, measures)
        ):
            return False
        return not _holds_the_page(child, measures, total) or measures.link_density(child) > MENU_LINK_SHARE

    _drop_where(root, hidden_or_banner)


MENU_LINK_SHARE = 0.5


def _around_main(root: Element) -> set[Element]:
    """Every ``main`` landmark of the page and the elements around it, found in one walk: the
    furniture that must stay as a wrapper, and the landmarks whose drawers are content."""
    found: set[Element] = set()
    path: list[Element] = []
    stack: list[tuple[Element, int]] = [(root, 0)]
    while stack:
        element, depth = stack.pop()
        del path[depth:]
        path.append(element)
        if _is_main(element):
            found.update(path)
        stack.extend((child, depth + 1) for child in reversed(element))
    return found


class _Panels:
    """What tells a hidden panel a reader opens on one page: the ids its controls name
    (``aria-controls``), and, per parent, the blocks shown beside the hidden ones (read once per
    parent, so a carousel of thousands of hidden slides costs one pass)."""

    def __init__(self) -> None:
        self.controlled: set[str] = set()
        self._siblings: dict[Element, tuple[dict[Element, Element], dict[Kind, set[str]]]] = {}

    def read_controls(self, element: Element) -> None:
        """Note the ids ``element`` controls. Every element of the page is read once, during the
        first drop pass of ``_drop_structural``: the buttons that control panels go in that pass."""
        names = element.get("aria-controls")
        if names:
            self.controlled.update(names.split())

    def siblings(self, parent: Element, measures: Measures) -> tuple[dict[Element, Element], dict[Kind, set[str]]]:
        """Each child's previous sibling that says something, and the texts shown by each kind of child."""
        if parent not in self._siblings:
            previous: dict[Element, Element] = {}
            shown: dict[Kind, set[str]] = {}
            last = None
            for child in parent:
                if last is not None:
                    previous[child] = last
                if not measures.chars.get(child, 0):
                    continue
                last = child
                kind = _record_kind(child)
                if kind is not None and not _is_hidden(child):
                    shown.setdefault(kind, set()).add(_paragraph_text(child))
            self._siblings[parent] = previous, shown
        return self._siblings[parent]


def _is_panel(element: Element, panels: _Panels, measures: Measures) -> bool:
    """A hidden panel a reader opens: an accordion's answer, a tab's content; not a menu, not a modal.

    It is one when a control names it or the one element it wraps (``aria-controls``), when a
    sibling alike (same tag, same first class) is shown and says something else (the tab that is
    open, the slide on screen), or when it follows a question ("What is an online certificate?",
    the FAQ's answer under it). A panel of links is a menu (``MENU_LINK_SHARE``); one named a
    modal or an overlay waits to interrupt the reader, not to be read; both go with what is hidden.
    """
    if not measures.chars.get(element, 0) or measures.link_density(element) > MENU_LINK_SHARE:
        return False
    if _words(element) & OVERLAYS:
        return False
    if element.get("id") in panels.controlled or (len(element) == 1 and element[0].get("id") in panels.controlled):
        return True
    parent = measures.parent.get(element)
    if parent is None:
        return False
    previous, shown = panels.siblings(parent, measures)
    kind = _record_kind(element)
    if kind is not None and shown.get(kind, set()) - {_paragraph_text(element)}:
        return True
    before = previous.get(element)
    return before is not None and not _is_hidden(before) and _paragraph_text(before).endswith("?")


OVERLAYS = frozenset({"modal", "popup", "overlay", "lightbox", "dialog", "popover", "toast"})


def _banners(root: Element, measures: Measures) -> set[Element]:
    """The page's own ``header``: one outside any ``article``, ``aside``, ``main``, ``nav`` or ``section``.

    That is the header HTML gives the ``banner`` role (an article's ``header`` holds its title and
    byline, and is content); one that sets a ``role`` of its own is judged by that.
    """
    found: set[Element] = set()
    for header in root.iter("header"):
        if header.get("role"):
            continue
        node = measures.parent.get(header)
        while node is not None and node.tag not in SECTIONING and not _is_main(node):
            node = measures.parent.get(node)
        if node is None:
            found.add(header)
    return found


SECTIONING = frozenset({"article", "aside", "main", "nav", "section"})


def _asks_for_javascript(noscript: Element) -> bool:
    text = "".join(noscript.itertext())
    return len(text) <= NOTICE_CHARS and "javascript" in text.lower()


NOTICE_CHARS = 300


def _drawers(mains: Iterable[Element]) -> set[Element]:
    """Dialogs inside the ``main`` landmarks: the size guide, the product details, opened on demand."""
    found: set[Element] = set()
    for main in mains:
        found.update(
            element
            for element in main.iter()
            if element is not main
            and (
                (element.tag == "dialog" and element.get("open") is not None)
                or (element.get("role") or "").lower() in ("dialog", "alertdialog")
            )
        )
    return found


def _drop_where(root: Element, unwanted: Callable[[Element, str], bool]) -> None:
    stack = [root]
    while stack:
        parent = stack.pop()
        for child in list(parent):
            if unwanted(child, child.tag if isinstance(child.tag, str) else ""):
                remove_keeping_tail(parent, child)
            else:
                stack.append(child)


KEPT_WHATEVER_THE_NAME = frozenset({"body", "article", "main", "table", "tbody", "tr", "td", "th", "a", "code", "pre"})


def _holds_the_page(element: Element, measures: Measures, total: int) -> bool:
    return total > 0 and measures.chars.get(element, 0) >= total / 2


def _is_the_story(element: Element, words: frozenset[str], measures: Measures, prose: int) -> bool:
    """Whether a block named like boilerplate is the page's story all the same: it holds
    ``PROSE_HELD`` of what the page has in paragraphs.

    Templates wrap the story in a box named for the ad slot beside it (``skyscraper-height-div``),
    the share bar above it (``entry share``) or the recommendation widget below it
    (``theme-taboola``); dropped, the page says nothing. Readers' replies (``TALK``) are judged
    apart, beside the story. A block named for other pages' content (``ELSEWHERE``) can hold most
    of the prose too, a carousel of teasers beside a short story; it is the story only when it also
    holds the page's title or a name that says content (``article__content js-related``).
    """
    if words & TALK or prose < PROSE_CHARS or measures.prose_chars.get(element, 0) < PROSE_HELD * prose:
        return False
    return not words & ELSEWHERE or bool(words & MAYBE) or _holds(element, TITLES)


PROSE_HELD = 0.75


def remove_keeping_tail(parent: Element, child: Element) -> None:
    """Remove ``child`` but keep its tail text, which belongs to the parent."""
    if child.tail and child.tail.strip():
        index = list(parent).index(child)
        if index > 0:
            previous = parent[index - 1]
            previous.tail = (previous.tail or "") + child.tail
        else:
            parent.text = (parent.text or "") + child.tail
    parent.remove(child)


class Measures:
    """Text and link-text lengths of every element, computed once, bottom-up; and, when asked,
    where an element stands among its siblings (``previous``, ``following``)."""

    def __init__(self, root: Element) -> None:
        self.parent: dict[Element, Element] = {}
        self.chars: dict[Element, int] = {}
        self.link_chars: dict[Element, int] = {}
        self.prose_chars: dict[Element, int] = {}
        self._children: dict[Element, list[Element]] = {}
        self._places: dict[Element, int] = {}
        parent, chars, link_chars, prose_chars = self.parent, self.chars, self.link_chars, self.prose_chars
        order: list[Element] = []
        stack = [root]
        while stack:
            element = stack.pop()
            order.append(element)
            for child in element:
                parent[child] = element
            stack.extend(element)
        for element in reversed(order):
            text = element.text
            total = len(text.strip()) if text else 0
            links = prose = 0
            for child in element:
                tail = child.tail
                total += chars[child] + (len(tail.strip()) if tail else 0)
                links += link_chars[child]
                prose += prose_chars[child]
            tag = element.tag
            if tag == "a":
                links = total
            elif tag == "p":
                prose = total if links < total / 2 else 0
            chars[element], link_chars[element], prose_chars[element] = total, links, prose

    def link_density(self, element: Element) -> float:
        chars = self.chars.get(element, 0)
        return self.link_chars.get(element, 0) / chars if chars else 0.0

    def previous(self, element: Element) -> Element | None:
        """The sibling before ``element``, as the tree stood when its parent was first asked about
        (since ``forget_siblings``): each parent's children are listed once, so asking about every
        child of a wide parent stays linear."""
        siblings, place = self._siblings(element)
        return siblings[place - 1] if place > 0 else None

    def following(self, element: Element) -> Element | None:
        """The sibling after ``element``, as ``previous`` sees the tree."""
        siblings, place = self._siblings(element)
        return siblings[place + 1] if 0 <= place < len(siblings) - 1 else None

    def forget_siblings(self) -> None:
        """Read the children anew on the next question: after a pass that removed some."""
        self._children.clear()

    def _siblings(self, element: Element) -> tuple[list[Element], int]:
        parent = self.parent.get(element)
        if parent is None:
            return [], -1
        siblings = self._children.get(parent)
        if siblings is None:
            siblings = self._children[parent] = list(parent)
            self._places.update((child, place) for place, child in enumerate(siblings))
        return siblings, self._places.get(element, -1)


def _class_weight(element: Element, negative: frozenset[str] = NEGATIVE) -> int:
    words = _words(element)
    return (25 if words & POSITIVE else 0) - (25 if words & negative else 0)


def _own_text(element: Element) -> str:
    """Text that sits directly in ``element`` (between its children), as in ``<div>text<br>text</div>``."""
    parts = [element.text or ""]
    parts += [child.tail or "" for child in element]
    parts += ["".join(child.itertext()) for child in element if child.tag in INLINE]
    return " ".join(" ".join(parts).split())


def _paragraph_text(element: Element) -> str:
    return " ".join("".join(element.itertext()).split())


MIN_CONTENT_CHARS = 100
SECTIONS_SHARE = 0.35
ARTICLE_SHARE = 0.2


def main_content(body: Element, *, article: bool = False) -> Element | None:
    """The element (or a new ``div`` of siblings) holding the main content, or ``None`` for the page.

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
    page says outside its links (``_holds_the_words``). An inline element (a ``small`` byline
    whose class says ``text``) is never the candidate, its block is. A candidate that is one post
    of a thread is widened to the thread (``_thread``) once it has passed those tests as itself:
    a product's reviews are records alike too, and the page is more than its reviews.
    """
    measures = Measures(body)
    scores: dict[Element, float] = {}
    for element in body.iter():
        tag = element.tag
        if tag in SCORED or (tag in ("div", "section") and not any(child.tag in BLOCK_CHILDREN for child in element)):
            if measures.chars.get(element, 0) < 25:
                continue
            text, first = _paragraph_text(element), measures.parent.get(element)
        else:
            text, first = _own_text(element), element
            if len(text) < 25 or tag == "a" or tag == "li" or tag in HEADINGS:
                continue
        score = 1 + text.count(",") + text.count("，") + min(len(text) // 100, 3)
        ancestor, level = first, 0
        while ancestor is not None and level < 5:
            if ancestor not in scores:
                scores[ancestor] = TAG_WEIGHT.get(ancestor.tag, 0) + _class_weight(ancestor)
            scores[ancestor] += score / (1 if level == 0 else 2 if level == 1 else level * 3)
            ancestor, level = measures.parent.get(ancestor), level + 1
    if not scores:
        return None
    for candidate in scores:
        scores[candidate] *= 1 - measures.link_density(candidate)
    top = max((element for element in scores if element.tag not in INLINE), key=scores.__getitem__, default=body)
    if top is body or scores[top] <= 0:
        return None
    declared = _declared_body(top, measures)
    top = declared or _widen(_family(top, body, measures), scores, measures)
    if top.tag in TABLE_PARTS and measures.parent.get(top) is not None:
        top = measures.parent[top]
    if measures.chars.get(top, 0) < MIN_CONTENT_CHARS:
        return None
    parent = measures.parent.get(top)
    if parent is None:
        return top
    share = measures.chars.get(top, 0) / measures.chars.get(body, 1)
    one_section = declared is None and (
        top.tag == "table" or bool(_words(top) & CAROUSELS) or share < (ARTICLE_SHARE if article else SECTIONS_SHARE)
    )
    if one_section and (_main_landmark(body, measures) is not None or not _holds_the_words(top, body, measures)):
        return None
    top = _thread(top, measures)
    parent = measures.parent.get(top)
    threshold = max(10.0, scores.get(top, 0) * 0.2)
    label = top.get("class")
    chosen = Element("div")
    for sibling in parent:
        if sibling is top:
            chosen.append(sibling)
            continue
        bonus = scores.get(top, 0) * 0.2 if label and sibling.get("class") == label else 0
        if (
            scores.get(sibling, -1e9) + bonus >= threshold
            or _worthy_paragraph(sibling, measures)
            or _is_data(sibling, measures)
        ):
            chosen.append(sibling)
    lead = _lead(body, chosen, measures)
    if lead:
        chosen[:0] = lead
    return chosen


def _lead(body: Element, chosen: Element, measures: Measures) -> list[Element]:
    """The paragraphs between the page's title and its content: the standfirst, the lead.

    Templates put the title and its standfirst in a header of their own, and the body the scores
    find after it; the lead is the story's first paragraph all the same. When the title (the last
    ``h1`` before the content: a site's logo can be an ``h1`` too) stands outside the content, and
    the block holding both says little else (at most ``LEAD_SPAN`` times what the content says:
    the article, not the page around it), the written paragraphs after the title and before the
    content are taken with it (``_is_lead``; not a dateline, ``DATELINE_CHARS``), up to the first
    picture: what follows a picture is its caption. Not a picture in a ``figure``, which holds its
    own caption, nor the author's photo or an icon beside the title (``_is_portrait``).
    """
    if not len(chosen):
        return []
    first = chosen[0]
    taken = {id(element) for element in chosen.iter()}
    title = None
    for element in body.iter():
        if element is first:
            break
        if element.tag == "h1":
            title = element
    if title is None:
        return []
    above_title = set(_ancestors(title, measures))
    common = measures.parent.get(first)
    while common is not None and common not in above_title:
        common = measures.parent.get(common)
    held = sum(measures.chars.get(member, 0) for member in chosen)
    if common is None or common.tag in ("body", "html") or measures.chars.get(common, 0) > LEAD_SPAN * held:
        return []
    in_figures = {id(inner) for figure in common.iter("figure") for inner in figure.iter()}
    lead: list[Element] = []
    after_title = False
    for element in common.iter():
        if element is first:
            return lead
        if element is title:
            after_title = True
        elif not after_title or id(element) in in_figures:
            continue
        elif element.tag in PICTURES and not _is_portrait(element, common, measures):
            return lead
        elif (
            element.tag == "p"
            and id(element) not in taken
            and not _is_inside(element, title, measures)
            and _is_lead(element, common, measures)
        ):
            lead.append(element)
    return []


LEAD_SPAN = 1.5
DATELINE_CHARS = 80
"""A paragraph this short that gives a date ("UPDATED: Tue., Nov. 19, 2019") is a dateline, no lead."""
TABLE_PARTS = frozenset({"thead", "tbody", "tfoot"})
"""A table's row groups: the candidate is the table, whose siblings say what it is about."""
CAROUSELS = frozenset({"carousel", "slider", "swiper", "slides"})
"""Names of a carousel: slides one after another, one section of a page however much they hold."""


def _is_lead(paragraph: Element, within: Element, measures: Measures) -> bool:
    """A written paragraph (``_worthy_paragraph``) that neither it nor a block around it, below
    ``within``, names like boilerplate (a newsletter prompt, a "metadata" line) or as the
    author's (a bio)."""
    if not _worthy_paragraph(paragraph, measures) or (
        measures.chars.get(paragraph, 0) <= DATELINE_CHARS and _is_dated(paragraph)
    ):
        return False
    return not _named_below(paragraph, within, ROLE_WORDS | PORTRAITS, measures)


def _is_portrait(picture: Element, within: Element, measures: Measures) -> bool:
    """An author's photo, an avatar, an icon (by its name or a block's around it, below ``within``):
    a picture beside the byline, with no caption after it."""
    return _named_below(picture, within, PORTRAITS, measures)


def _named_below(element: Element, within: Element, words: frozenset[str], measures: Measures) -> bool:
    """Whether ``element``, or a block around it below ``within``, has one of ``words`` in its name."""
    node: Element | None = element
    while node is not None and node is not within:
        if _words(node) & words:
            return True
        node = measures.parent.get(node)
    return False


def landmark(body: Element) -> Element:
    """The page's ``main`` landmark when it holds the page's content, else ``body``."""
    return _main_landmark(body, Measures(body)) or body


def _main_landmark(body: Element, measures: Measures) -> Element | None:
    total = measures.chars.get(body, 0)
    for element in body.iter():
        if _is_main(element):
            return element if measures.chars.get(element, 0) >= LANDMARK_SHARE * total else None
    return None


def _is_main(element: Element) -> bool:
    return element.tag == "main" or (element.get("role") or "").lower() == "main"


def _holds_the_words(top: Element, body: Element, measures: Measures) -> bool:
    """Whether ``top`` is running text holding ``SECTIONS_SHARE`` of what the page says outside its links.

    Without a ``main`` landmark the fallback is the whole body; a sidebar of category and tag
    links can outweigh a short news story without being any of it.
    """
    unlinked = measures.chars.get(body, 0) - measures.link_chars.get(body, 0)
    chars = measures.chars.get(top, 0)
    return chars >= STORY_CHARS and measures.link_density(top) < 0.25 and chars >= SECTIONS_SHARE * unlinked


STORY_CHARS = 500


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
    ancestors: list[Element] = []
    node: Element | None = top
    while node is not None:
        ancestors.append(node)
        node = measures.parent.get(node)
    level = {ancestor: index for index, ancestor in enumerate(ancestors)}
    nearest = 0
    for element in kin:
        node = element
        while node is not None and node not in level:
            node = measures.parent.get(node)
        if node is None:
            return top
        nearest = max(nearest, level[node])
    holder = ancestors[nearest]
    if holder.tag in ("body", "html") or measures.link_density(holder) >= FAMILY_LINK_SHARE:
        return top
    return holder


FAMILY_CHARS = 300
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
        kind = _record_kind(node)
        if kind is not None:
            records = [child for child in parent if _record_kind(child) == kind and measures.chars.get(child, 0)]
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


Kind = tuple[str, str]
LIST_ITEM: Kind = ("li", "")
"""The kind of a list item without a class: the items of one list are alike, classed or not."""


def _siblings_alike(content: Element, measures: Measures) -> list[tuple[Element, Kind, list[Element]]]:
    """Each group of ``RECORDS`` or more siblings alike in the content, as (parent, kind, members).

    Siblings are alike when they have one kind (``_record_kind``: tag and first class; or
    ``LIST_ITEM``); members say something (empty ones are left out). One walk serves both readings
    of the groups in ``clean``: the records a date belongs to, and a listing's entries.
    """
    found: list[tuple[Element, Kind, list[Element]]] = []
    for parent in _outside_code(content):
        groups: dict[Kind, list[Element]] = {}
        for child in parent:
            kind = _record_kind(child) or (LIST_ITEM if child.tag == "li" else None)
            if kind is not None and measures.chars.get(child, 0):
                groups.setdefault(kind, []).append(child)
        found.extend((parent, kind, members) for kind, members in groups.items() if len(members) >= RECORDS)
    return found


def _records(alike: list[tuple[Element, Kind, list[Element]]]) -> set[Element]:
    """The records of the content, as ``_thread`` reads them: every child of a parent whose kind
    has ``RECORDS`` or more members there, empty ones included (a post's empty wrapper is still
    the post's)."""
    return {child for parent, kind, _ in alike if kind != LIST_ITEM for child in parent if _record_kind(child) == kind}


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
    return _is_dated(element) and _in_a_record(element, records, measures)


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
    return bool(records) and any(node in records for node in _ancestors(element, measures))


POSTER_CHARS = 200
PROFILE = re.compile(
    r"/(?:members?|u|users?|profiles?|authors?)/[^/?#]+|member\.php\?|memberlist\.php\?mode=viewprofile"
    r"|[?&](?:u|userid|showuser)=\d",
    re.IGNORECASE,
)


def _is_dated(element: Element) -> bool:
    if next(element.iter("time"), None) is not None:
        return True
    return bool(DATE.search(" ".join("".join(element.itertext()).split())))


DATE = re.compile(
    r"\b(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2},? \d{4}"
    r"|\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{4}"
    r"|\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{2,4})\b",
    re.IGNORECASE,
)


def _record_kind(element: Element) -> Kind | None:
    classes = (element.get("class") or "").split()
    return (element.tag, classes[0]) if classes else None


RECORD_LEVELS = 8
RECORDS = 3
RECORDS_ADD = 0.2
RECORDS_SHARE = 0.5


def _widen(top: Element, scores: dict[Element, float], measures: Measures) -> Element:
    """Prefer a near ancestor that holds clearly more prose than the candidate, without more links.

    Articles split into chunks (between ads, or in a grid) put their paragraphs in cousins that
    sibling inclusion alone would miss; what the wider choice brings in that is not prose,
    ``clean`` takes out again.
    """
    prose = measures.prose_chars.get(top, 0)
    best, best_prose = top, prose * 1.5 + 300
    ancestor, level = measures.parent.get(top), 0
    while ancestor is not None and ancestor.tag not in ("body", "html") and level < 5:
        wider = measures.prose_chars.get(ancestor, 0)
        if wider > best_prose and measures.link_density(ancestor) < 0.3:
            best, best_prose = ancestor, wider
        ancestor, level = measures.parent.get(ancestor), level + 1
    return best


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


def _is_inside(element: Element, ancestor: Element, measures: Measures) -> bool:
    return any(node is ancestor for node in _ancestors(element, measures))


def _ancestors(element: Element, measures: Measures) -> Iterator[Element]:
    """``element``'s parent, its parent's parent, and so on up to the root."""
    node = measures.parent.get(element)
    while node is not None:
        yield node
        node = measures.parent.get(node)


def _worthy_paragraph(element: Element, measures: Measures) -> bool:
    if element.tag != "p":
        return False
    chars, density = measures.chars.get(element, 0), measures.link_density(element)
    if chars > 80 and density < 0.25:
        return True
    text = _paragraph_text(element)
    return 0 < chars <= 80 and density == 0 and bool(re.search(r"\.( |$)", text))


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
    name whole entries by their author. A block too short to be one (under 25 characters) stays
    when it gives the date of a record it sits in (``_a_records_date``): a reply's date is part of
    the reply, and so is its author, a link to the poster's profile (``_a_records_author``); the
    rank the forum gives the poster is not (``_is_posters_rank``). Content that reads as an article
    without declaring itself one loses its captions too (``_drop_unmarked_captions``), when they
    say at most ``CAPTIONS_SHARE`` of it. Content that does not read as an article keeps the
    entries of its listing whole (``_listed``); content that does, when there are
    ``LISTING_ENTRIES`` or more (a listing that calls itself an article, not a rail beside a story).
    """
    measures = Measures(content)
    total = measures.chars.get(content, 0)
    reads_as_article = article or measures.prose_chars.get(content, 0) >= PROSE_SHARE * total
    if reads_as_article and not article and _drop_unmarked_captions(content, measures, at_most=CAPTIONS_SHARE):
        measures = Measures(content)
        total = measures.chars.get(content, 0)
    negative = NEGATIVE - _building_blocks(content, measures)
    alike = _siblings_alike(content, measures)
    records = _records(alike)
    listed = _listed(alike, measures, total, at_least=LISTING_ENTRIES if reads_as_article else 0)
    for element in list(_outside_code(content)):
        if element.tag not in CLEANED or element is content or measures.parent.get(element) is content:
            continue
        if _holds_the_page(element, measures, total):
            continue
        parent = measures.parent.get(element)
        if parent is None or not _is_inside(element, content, measures):
            continue
        if element in listed:
            continue
        if _looks_like_boilerplate(element, measures, article=reads_as_article, negative=negative, records=records):
            announcement = _announcement(element, measures) if element.tag in LISTS else None
            remove_keeping_tail(parent, element)
            if announcement is not None and _points_elsewhere(announcement, measures):
                remove_keeping_tail(parent, announcement)
    measures.forget_siblings()
    labels = [
        element
        for element in content.iter()
        if _is_posters_rank(element, measures) or (reads_as_article and _is_byline(element, measures, records))
    ]
    for label in labels:
        parent = measures.parent.get(label)
        if parent is not None and label in parent:
            remove_keeping_tail(parent, label)
    for heading in [e for e in content.iter() if e.tag in HEADINGS]:
        parent = measures.parent.get(heading)
        if parent is not None and (
            _class_weight(heading, negative) < 0
            or (
                _share_linking_away(heading, measures) > 0.33
                and parent.tag != "li"
                and not _a_records_author(heading, records, measures)
                and not _heads_prose(heading, measures)
            )
        ):
            remove_keeping_tail(parent, heading)


def _is_posters_rank(element: Element, measures: Measures) -> bool:
    """The rank a forum gives a poster ("New Head-Fier", "Junior Guru Wannabe", "Gold Member"):
    XenForo's ``userTitle``, vBulletin's ``usertitle``, phpBB's ``profile-rank``, Discourse's
    ``user-title``. The forum's label of the poster, not what the poster wrote."""
    words = _words(element)
    ranked = bool(words & RANKS) or (bool(words & {"title", "rank"}) and bool(words & POSTERS))
    return ranked and 0 < measures.chars.get(element, 0) <= RANK_CHARS


RANKS = frozenset({"usertitle", "userrank"})
POSTERS = frozenset({"user", "profile", "author", "member"})
RANK_CHARS = 60


BYLINES = frozenset({"byline", "dateline", "timestamp"})
BYLINE_CHARS = 200


def _is_byline(element: Element, measures: Measures, records: set[Element]) -> bool:
    """A byline, a timestamp line or the box about the author: an article's metadata, not its text."""
    words = _words(element)
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
    for element in _outside_code(content):
        words = _words(element) & NEGATIVE
        if words:
            parent = measures.parent.get(element)
            for word in words - (_words(parent) if parent is not None else _NO_WORDS):
                held[word] += measures.chars.get(element, 0)
    total = measures.chars.get(content, 0)
    return frozenset(word for word, chars in held.items() if chars >= FAMILY_SHARE * total)


def _outside_code(root: Element) -> Iterator[Element]:
    """``root`` and its descendants in document order, but nothing inside a code block.

    Highlighters put every line of code in an element of its own; a short or repeated line of code
    (``}``, ``"card": {``) is code, not a layout block.
    """
    stack = [root]
    while stack:
        element = stack.pop()
        yield element
        if element.tag not in CODE:
            stack.extend(reversed(element))


def _heads_prose(heading: Element, measures: Measures) -> bool:
    """Whether written paragraphs follow ``heading``: the next block is one, or opens with one.

    A listicle's sections are headed by links to what each one is about ("1. Harvard Business
    School" links to the school); a rail's teaser headings are followed by another teaser, a
    date, a picture.
    """
    after = measures.following(heading)
    if after is None:
        return False
    return _worthy_paragraph(after, measures) or (len(after) > 0 and _worthy_paragraph(after[0], measures))


def _share_linking_away(element: Element, measures: Measures) -> float:
    """Like ``Measures.link_density``, but a link to a place on the same page (``#…``) does not count."""
    chars = measures.chars.get(element, 0)
    if not chars:
        return 0.0
    away = sum(measures.chars.get(a, 0) for a in element.iter("a") if not (a.get("href") or "").startswith("#"))
    return away / chars


def drop_controls(content: Element) -> None:
    """Drop links and spans drawn as buttons (``btn``, ``button``): controls, as ``button`` elements are.

    Done last, on the content already chosen: taken out earlier, the links they are would no
    longer count in the link density that tells a rail of other stories from the story.
    """
    _drop_where(content, lambda child, tag: tag in ("a", "span") and bool(_words(child) & CONTROLS))


CONTROLS = frozenset({"btn", "button"})


def drop_placeholders(content: Element) -> None:
    """Drop "Loading…" placeholders: what a page shows until its script puts the real thing there.

    A reader who waits never sees them, and an extractor that does not run the script has nothing
    to put in their place. Only an element that says nothing else is one (``PLACEHOLDER``); a
    sentence that mentions loading is text.
    """
    if "loading" not in "".join(content.itertext()).lower():
        return
    _drop_where(
        content,
        lambda child, tag: (
            tag in PLACEHOLDER_TAGS and not len(child) and bool(PLACEHOLDER.fullmatch((child.text or "").strip()))
        ),
    )


PLACEHOLDER = re.compile(r"loading(?:\s*(?:\.{1,3}|…))?", re.IGNORECASE)
PLACEHOLDER_TAGS = BLOCKS | INLINE


def drop_repeated_labels(content: Element) -> None:
    """Drop short texts the page's template repeats: the "Joined", "Reply" and "Add to cart" of every post or item.

    A label that stands beside every post or product of a listing is furniture of the template,
    however it is named; what a person wrote is not repeated word for word several times.
    Only blocks of the layout go: a paragraph or a quote is written (a refrain is repeated on
    purpose), table cells are data, and code and headings are kept too.
    """
    measures = Measures(content)
    seen: dict[str, list[Element]] = {}
    for element in _outside_code(content):
        chars = measures.chars.get(element, 0)
        if not 0 < chars <= LABEL_CHARS or element.tag not in BLOCKS or element.tag in LABELS_KEPT:
            continue
        parent = measures.parent.get(element)
        if parent is None or measures.chars.get(parent, 0) == chars or parent.tag in LABELS_KEPT:
            continue
        seen.setdefault(" ".join("".join(element.itertext()).split()), []).append(element)
    for elements in seen.values():
        if len(elements) >= LABEL_REPEATS:
            for element in elements:
                parent = measures.parent.get(element)
                if parent is not None and element in parent:
                    remove_keeping_tail(parent, element)


def drop_second_copies(content: Element) -> None:
    """Drop a block that repeats, word for word, a block just before it: one description in a copy per screen size.

    Shops and landing pages render the same text twice, one copy per screen size (or once more in
    ``noscript``), and let the stylesheet show one; a reader sees it once. A copy is a layout block
    of ``COPY_CHARS`` or more whose first copy is a near relative (a common ancestor at most
    ``COPY_DISTANCE`` levels up). A written block (a paragraph, a heading, a cell) repeated is
    meant (the same lunch on three days of a meal plan); so is a block repeated far away (a
    documentation page describes one field in the request and in the response); so is anything
    in a quote (a reply quotes the post it answers), and code.
    """
    measures = Measures(content)
    by_length: dict[int, list[Element]] = {}
    for element in _outside_code(content):
        chars = measures.chars.get(element, 0)
        parent = measures.parent.get(element)
        if chars < COPY_CHARS or element.tag in LABELS_KEPT or parent is None:
            continue
        if measures.chars.get(parent, 0) != chars:
            by_length.setdefault(chars, []).append(element)
    for elements in by_length.values():
        if len(elements) < 2:
            continue
        seen: dict[str, Element] = {}
        for element in elements:
            first = seen.setdefault(_paragraph_text(element), element)
            if first is element or not _near(first, element, measures):
                continue
            if _enclosing(element, "blockquote", measures) is None:
                remove_keeping_tail(measures.parent[element], element)


COPY_CHARS = 100
COPY_DISTANCE = 3


def _near(first: Element, second: Element, measures: Measures) -> bool:
    ancestor = measures.parent.get(second)
    for _ in range(COPY_DISTANCE):
        if ancestor is None:
            return False
        if _is_inside(first, ancestor, measures):
            return True
        ancestor = measures.parent.get(ancestor)
    return False


def _enclosing(element: Element, tag: str, measures: Measures, within: Element | None = None) -> Element | None:
    """The nearest ancestor of ``element`` that is a ``tag``, looking no higher than ``within``."""
    node = measures.parent.get(element)
    while node is not None and node is not within:
        if node.tag == tag:
            return node
        node = measures.parent.get(node)
    return None


def drop_teasers(content: Element, *, article: bool) -> None:
    """Drop a line that points to another story: "Related: <link>", "READ MORE: <link>", "Watch: <link>".

    News and blog templates put them between the paragraphs of a story; they are the headlines of
    other pages, not part of this one. One is a paragraph (or a block) of at most ``TEASER_CHARS``
    that starts with such a label and a colon and is mostly a link; a sentence that only mentions
    related work is text. In an article (declared, or content that is mostly paragraphs), so is a
    rail: a short block that only says such a label ("You may also like…", "DON'T MISS", "Das könnte
    Sie auch interessieren": ``RAIL_LABELS``) and the blocks right after it that are links
    (``RAIL_LINK_SHARE``) or a grid of cards each linking elsewhere (``_is_cards``), or the label
    alone when nothing follows it in its block (a rail its script never filled). On a listing or a
    home page a "Trending" rail is what the page lists, and stays.
    """
    measures = Measures(content)
    _drop_where(
        content,
        lambda child, tag: (
            tag in TEASER_TAGS
            and measures.chars.get(child, 0) <= TEASER_CHARS
            and measures.link_density(child) >= 0.5
            and bool(TEASER.match(" ".join("".join(child.itertext()).split())))
        ),
    )
    if not (article or measures.prose_chars.get(content, 0) >= PROSE_SHARE * measures.chars.get(content, 0)):
        return
    for parent in list(content.iter()):
        children = list(parent)
        for index, child in enumerate(children):
            if not _is_rail_label(child, measures):
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
                for element in [child, *rail]:
                    if element in parent:
                        remove_keeping_tail(parent, element)


def _is_cards(element: Element, measures: Measures) -> bool:
    """Two or more blocks, each linking to another page: a grid of teaser cards, a headline over
    its picture and its first line, however little of each the links cover."""
    cards = [child for child in element if measures.chars.get(child, 0)]
    return len(cards) >= 2 and all(
        any(not (anchor.get("href") or "#").startswith("#") for anchor in card.iter("a")) for card in cards
    )


def _is_rail_label(element: Element, measures: Measures) -> bool:
    chars = measures.chars.get(element, 0)
    return (
        element.tag in TEASER_TAGS
        and 0 < chars <= RAIL_LABEL_CHARS
        and not measures.link_chars.get(element, 0)
        and bool(RAIL_LABEL.fullmatch(" ".join("".join(element.itertext()).split())))
    )


RAIL_LABELS = (
    r"you (?:may|might) also like|don'?t miss|more (?:stories|news|from [\w .]+|like this)|related"
    r"(?: stories| articles| posts| coverage| content| reading)?|read (?:more|next|also)|see also|also read"
    r"|recommended(?: for you| stories| reading)?|most (?:read|popular)|popular on [\w .]+|trending(?: now)?"
    r"|further reading|up next",
    r"das könnte (?:sie|dich) (?:auch )?interessieren|(?:ähnliche|verwandte|weitere|neueste) (?:beiträge|artikel"
    r"|themen|themenbereiche|nachrichten)|mehr (?:zum thema|zu [\w .]+|aus [\w .]+)|(?:zum )?weiterlesen"
    r"|lesen sie (?:auch|mehr)|auch interessant|meistgelesen|viel gelesen(?: in [\w .]+)?",
    r"vous aimerez aussi|(?:à )?lire aussi|à lire également|voir aussi|dans la même rubrique|sur le même sujet"
    r"|articles? (?:similaires|liés|connexes)|les plus lus",
    r"(?:también )?te puede interesar|(?:noticias|artículos) relacionad[oa]s|lee también|lo más leído",
    r"potrebbe interessarti|articoli correlati|leggi anche|i più letti",
    r"leia também|veja também|(?:notícias|artigos) relacionad[oa]s|mais lidas",
    r"lees ook|gerelateerde artikelen",
    r"(?:czytaj|zobacz) (?:też|także|również)|polecane|najczęściej czytane",
)
"""What heads a rail of other stories, in English, German, French, Spanish, Italian, Portuguese,
Dutch and Polish."""
RAIL_LABEL = re.compile(r"\W*(?:" + "|".join(RAIL_LABELS) + r")\W*", re.IGNORECASE)
RAIL_LABEL_CHARS = 60
RAIL_LINK_SHARE = 0.75


TEASER = re.compile(
    r"\W*(?:related|read more|see more|see also|also read|read also|more|watch|listen|don'?t miss|read next"
    r"|lesen sie (?:auch|mehr)|(?:zum )?weiterlesen|mehr zum thema|(?:à )?lire aussi|voir aussi|lee también"
    r"|leggi anche|leia também|veja também|lees ook|(?:czytaj|zobacz) (?:też|także|również))\s*:",
    re.IGNORECASE,
)
TEASER_CHARS = 200
TEASER_TAGS = frozenset({"p", "div", "li", "h2", "h3", "h4", "h5", "h6"})


LABEL_CHARS = 40
LABEL_REPEATS = 3
LABELS_KEPT = frozenset({"p", "blockquote", "td", "th", "tr", "code", "pre", "h1", "h2", "h3", "h4", "h5", "h6"})


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


def _is_prose(element: Element, measures: Measures) -> bool:
    """Several sentences of running text, few of them links: content, whatever its class says."""
    return measures.prose_chars.get(element, 0) >= PROSE_CHARS and measures.link_density(element) < 0.25


PROSE_CHARS = 280
PROSE_SHARE = 0.5
"""Main content this much of which is paragraphs reads as an article, whatever the page declares."""


def _is_data(element: Element, measures: Measures) -> bool:
    """A table of figures (a specification, a size guide), not a grid of links."""
    return measures.link_density(element) < 0.25 and any(
        len(table.findall(".//tr")) >= 2 for table in element.iter("table")
    )


GALLERY_CHARS_PER_IMAGE = 200
ICONS = frozenset({"avatar", "emoji", "smilie", "smiley", "icon", "reaction"})
"""Names of pictures that stand beside text rather than make a gallery: a poster's avatar, an
emoji, a reaction."""
PORTRAITS = ICONS | {"author", "byline", "logo"}
"""Names of pictures (or of the blocks around them) that stand beside a title: no caption follows."""


def _is_icon(image: Element) -> bool:
    """A picture that marks text rather than shows something: named an icon, an avatar, an emoji
    (``ICONS``), or drawn as SVG (a toggle's arrow, a check mark, a logo; photographs are not SVG)."""
    return bool(_words(image) & ICONS) or urlsplit(image.get("src") or "").path.lower().endswith(".svg")


TITLES = frozenset({"h1"})
"""A block holding the page's title is what the page is about (a product's pictures beside its
name, price and description), never a gallery however many pictures it holds."""


def _holds(element: Element, tags: frozenset[str]) -> bool:
    return any(next(element.iter(tag), None) is not None for tag in tags)


def _a_written_link(element: Element, measures: Measures) -> bool:
    """A block whose one link sits in a paragraph: a reference the author wrote, not a list of links."""
    anchors = list(element.iter("a"))
    return len(anchors) == 1 and _enclosing(anchors[0], "p", measures, within=element) is not None


def _looks_like_boilerplate(
    element: Element, measures: Measures, *, article: bool, negative: frozenset[str], records: set[Element]
) -> bool:
    weight = _class_weight(element, negative)
    if article and weight < 0 and not _is_prose(element, measures):
        return True
    if _a_records_author(element, records, measures):
        return False
    text = _paragraph_text(element)
    if text.count(",") >= 10:
        return False
    paragraphs = sum(1 for e in element.iter("p"))
    images = sum(1 for e in element.iter("img") if not _is_icon(e))
    items = sum(1 for e in element.iter("li")) - 100
    density = measures.link_density(element)
    length = len(text)
    if (
        images > 1
        and paragraphs / images < 0.5
        and length < GALLERY_CHARS_PER_IMAGE * images
        and not _holds(element, TITLES)
    ):
        return True
    if element.tag not in ("ul", "ol") and items > paragraphs:
        return True
    written_link = _a_written_link(element, measures)
    if (
        length < 25
        and not _a_records_date(element, records, measures)
        and (images == 0 or images > 2)
        and element.tag not in ("table", "dl")
        and not _holds(element, CODE | HEADINGS)
        and not written_link
    ):
        return True
    if element.tag in LISTS and (_annotated(element, measures) or _introduced(element, measures)):
        return False
    if weight < 25 and density > 0.33 and not written_link:
        return True
    return weight >= 25 and density > 0.5


def _annotated(items: Element, measures: Measures) -> bool:
    """A list whose items say something of their own beside their links: references, a reading list.

    "Arbor Day Foundation – information about climate change and planting trees", "[Barak-Steurer]
    graduate course on sum-of-squares": a writer's list of sources, each link annotated. A menu's
    items are their links and nothing else. Annotated is half the items holding
    ``ANNOTATION_CHARS`` or more characters outside their links.
    """
    entries = [item for item in items if item.tag == "li" and measures.chars.get(item, 0)]
    annotated = sum(
        1 for item in entries if measures.chars.get(item, 0) - measures.link_chars.get(item, 0) >= ANNOTATION_CHARS
    )
    return bool(entries) and annotated * 2 >= len(entries)


ANNOTATION_CHARS = 25


def _introduced(items: Element, measures: Measures) -> bool:
    """A list the text before it announces with a colon: "Top expert recommendations:", "You'll need:".

    The sentence makes the list part of what it says, links or not; a rail's label ("Related
    stories:", "Read more:") announces other pages and is no introduction.
    """
    announcement = _announcement(items, measures)
    return announcement is not None and not POINTS_ELSEWHERE.search(_paragraph_text(announcement))


def _announcement(items: Element, measures: Measures) -> Element | None:
    """The unlinked paragraph or heading right before ``items`` that ends with a colon, if any."""
    before = measures.previous(items)
    if before is None or not (before.tag == "p" or before.tag in HEADINGS) or measures.link_density(before) > 0:
        return None
    return before if _paragraph_text(before).endswith(":") else None


def _points_elsewhere(announcement: Element, measures: Measures) -> bool:
    """A short line pointing to other pages ("If you liked this post you might also like:"): it goes
    with the link list it announces. A paragraph that says more than that is the text's."""
    return measures.chars.get(announcement, 0) <= ANNOUNCEMENT_CHARS and bool(
        POINTS_ELSEWHERE.search(_paragraph_text(announcement))
    )


ANNOUNCEMENT_CHARS = 100
POINTS_ELSEWHERE = re.compile(
    r"\b(?:" + "|".join((*RAIL_LABELS, r"more|más|mehr|plus d[e']|meer|więcej")) + r")\b", re.IGNORECASE
)
"""What a sentence pointing to other pages says: a rail's label anywhere in it ("If you liked this
post you might also like:"), or "more" ("Learn more in our plumbing series:", "MÁS INFORMACIÓN:")."""
