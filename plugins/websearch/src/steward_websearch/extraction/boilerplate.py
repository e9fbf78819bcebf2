"""Dropping boilerplate before the main content is looked for: what never renders, the page's
furniture, what is hidden, sign-up boxes, captions, and blocks named like boilerplate."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable
from xml.etree.ElementTree import Element

from steward_websearch.extraction.blocks import (
    PROSE_CHARS,
    TITLES,
    Kind,
    holds_the_page,
    is_data,
    is_main,
    is_prose,
    record_kind,
    worthy_paragraph,
)
from steward_websearch.extraction.roles import (
    CODE_ENTITIES,
    ELSEWHERE,
    LAYOUT,
    MAYBE,
    NO_WORDS,
    NOTICES,
    SIGNATURES,
    TALK,
    UNLIKELY,
    class_words,
    holds_code_parts,
    is_callout,
    is_furniture,
    is_hidden,
)
from steward_websearch.extraction.tree import (
    Measures,
    drop_where,
    holds,
    is_inside,
    paragraph_text,
    remove_each,
)
from steward_websearch.extraction.vocabulary import (
    BLOCKS,
    CODE,
    FURNITURE,
    HEADINGS,
    PICTURES,
    SECTION_HEADINGS,
    UNSEEN,
)


def remove_unseen(root: Element) -> None:
    """Drop what a reader never sees (as ``_drop_structural`` judges it) and nothing else: the whole page."""
    _drop_structural(root, article=False, furniture=False)


def remove_boilerplate(root: Element, *, article: bool = False) -> Measures:
    """Drop invisible and structural boilerplate, then elements named like boilerplate.

    An element named like boilerplate that holds half the page's text is kept: sites wrap whole
    pages in ``Page-ad-margins`` or ``header-wrapper`` as often as they wrap ads. So is a family of
    them (the same boilerplate word) that together hold most of it: on a forum thread or a comment
    page, the ``comment`` blocks are what the reader came for; but not a family beside the page's
    ``main`` landmark, when that says something (``_beside_the_main_landmark``: a documentation
    theme's sidebars can say more than the short page they flank), and a block that is all its
    ``article`` or ``main`` says is never named away (``_all_the_article_says``). Prose under a word
    that only names a place in the layout (``LAYOUT``: a documentation page's ``layout__header``
    holds its introduction) is kept too, and so is a block under such a word that heads a section
    (an ``h2`` to ``h6``, few of its words links: a landing page's ``SectionHeader`` holding
    "Customers growing with us" and its standfirst), and a ``header`` that holds the page's ``h1``
    and a written paragraph (the title and its introduction, however short); prose under ``comment``
    or ``related`` is not. On a page that declares no article, a block named only for navigation
    that heads a paragraph of its own is a card describing what it links to
    (``_a_card_that_describes``), no menu. A heading named for the code it holds (``SIGNATURES``: rustdoc's
    ``code-header`` over each function) is not named for the layout at all, a heading named a header
    is the header it says it is (Divi's ``et_pb_module_header`` over each blurb, a link to the
    service it describes), and what a heading holds is its text, never looked at by name (a job
    card's ``listing__header__title__text``). A block that holds most of the page's prose is the
    story whatever its name (``_is_the_story``); so is the block about to go with the most prose
    when it holds most of what stays once the others have gone (a story in its ``share_wrapper``
    beside a sponsor's box of prose: each held too little of the page, and the page said nothing),
    what is named like boilerplate inside it weighed in turn. The cookie prompt and the copyright
    notice (``NOTICES``) never are, however long the vendor list or short the page, unless they hold
    the page's title or say content (a cookie policy, a copyright page's ``copyright-content``).
    Forms are kept (ASP.NET pages put everything inside one); their controls are not. ``article`` is
    whether the page declares itself one: then a block named for other pages' content
    (``ELSEWHERE``: related, recommended) goes however much it holds (a news site's carousel of
    other stories can be longer than the story), and so do readers' replies (``TALK``) when the
    article has prose of its own beside them (a link aggregator's story is its thread);
    ``_drop_structural`` says what else changes. Between that structural pass and the class words,
    the box around a field asking for an e-mail address goes (``_drop_sign_up_boxes``), and on an
    article a caption that is no ``figcaption`` (``drop_unmarked_captions``). The tree's measures
    after all of it, for the next step to read.
    """
    fields = _sign_up_fields(root)
    titled = _around(root, lambda element: element.tag == "h1") if fields else set()
    replies = {form for form in root.iter("form") if _takes_replies(form)} if fields else set()
    measures = _drop_structural(root, article=article, furniture=True)
    if fields:
        _drop_sign_up_boxes(root, fields, titled, replies, measures)
    if article:
        drop_unmarked_captions(root, measures)
    total, prose = measures.chars.get(root, 0), measures.prose_chars.get(root, 0)
    suspects = _named_like_boilerplate([root], measures, article=article, total=total, prose=prose)

    @functools.cache
    def mains() -> list[Element]:
        return [element for element in root.iter() if is_main(element) and measures.chars.get(element, 0)]

    family_chars: Counter[frozenset[str]] = Counter()
    for child, named in suspects:
        family_chars[named] += measures.chars.get(child, 0)
    talk_prose = sum(measures.prose_chars.get(child, 0) for child, named in suspects if named & TALK)
    replies_beside_a_story = article and prose - talk_prose >= PROSE_CHARS
    going = [
        (child, named)
        for child, named in suspects
        if named & NOTICES
        or (article and named & ELSEWHERE)
        or (replies_beside_a_story and named & TALK)
        or family_chars[named] < total * FAMILY_SHARE
        or _beside_the_main_landmark(child, mains(), measures)
    ]
    written = [(child, named) for child, named in going if not named & NOTICES]
    if written:
        story, named = max(written, key=lambda suspect: measures.prose_chars.get(suspect[0], 0))
        held = prose - sum(measures.prose_chars.get(child, 0) for child, _ in going if child is not story)
        if _is_the_story(story, class_words(story), measures, held) and not _beside_the_main_landmark(
            story, mains(), measures
        ):
            going.remove((story, named))
            going += _named_like_boilerplate([story], measures, article=article, total=total, prose=held)
    gone = remove_each((child for child, _ in going), measures)
    measures.recount(gone)
    return measures


def _named_like_boilerplate(
    roots: list[Element], measures: Measures, *, article: bool, total: int, prose: int
) -> list[tuple[Element, frozenset[str]]]:
    """The outermost blocks under ``roots`` named like boilerplate, with their boilerplate words,
    for ``remove_boilerplate`` to weigh: a page's ``total`` characters, and the ``prose`` a block
    named so must hold (``PROSE_HELD`` of it) to be the story all the same."""
    suspects: list[tuple[Element, frozenset[str]]] = []
    declared: set[Element] = set()
    stack = list(roots)
    while stack:
        parent = stack.pop()
        for child in parent:
            if parent in declared:
                declared.add(child)
            if child.tag not in KEPT_WHATEVER_THE_NAME:
                words = class_words(child)
                named = words & UNLIKELY
                if child.tag in HEADINGS:
                    named -= LAYOUT if words & SIGNATURES else HEADER
                if named and named <= TALK and _comments_on_code(child, measures):
                    named = NO_WORDS
                if "signature" in named and (child in declared or holds_code_parts(child)):
                    named -= SIGNED
                    declared.add(child)
                if named & NOTICES and not words & MAYBE and not holds(child, TITLES):
                    suspects.append((child, named))
                    continue
                if (
                    named
                    and not _all_the_article_says(child, parent, named, measures)
                    and not _is_the_story(child, words, measures, prose)
                    and (
                        (article and named & ELSEWHERE)
                        or (
                            not words & MAYBE
                            and not holds_the_page(child, measures, total)
                            and not (not article and named <= NAVIGATION and _a_card_that_describes(child))
                            and not (
                                named <= LAYOUT
                                and (
                                    is_prose(child, measures)
                                    or _heads_a_section(child, measures)
                                    or (named <= HEADER and _holds_the_title_and_words(child, measures))
                                )
                            )
                        )
                    )
                ):
                    suspects.append((child, named))
                    continue
            if child.tag not in CODE and child.tag not in HEADINGS:
                stack.append(child)
    return suspects


FAMILY_SHARE = 0.4
NAVIGATION = frozenset({"nav", "navigation"})


def _a_card_that_describes(element: Element) -> bool:
    """A heading and a paragraph of ``CARD_DESCRIPTION_CHARS`` or more: a service page's card for
    one of its services, however its template names it (Protiviti's ``m-nestedNavCard``, "Data and
    Analytics Strategy" over four sentences of what it is). A menu names its pages; when it says
    anything of them, a line."""
    return holds(element, HEADINGS) and any(
        len(paragraph_text(paragraph)) >= CARD_DESCRIPTION_CHARS for paragraph in element.iter("p")
    )


CARD_DESCRIPTION_CHARS = 100


def _beside_the_main_landmark(element: Element, mains: list[Element], measures: Measures) -> bool:
    """Whether ``element`` stands beside the page's ``main`` landmarks that say something (``mains``):
    inside none of them and holding none. A block named like boilerplate there is the page's
    furniture, however much of the page its family holds: a documentation theme's sidebars
    (pydata-sphinx-theme's ``bd-sidebar-primary``, a shop's ``sidebar`` of collections) can say
    more than a short page in the ``main`` they stand beside."""
    return bool(mains) and not any(
        element is main or is_inside(element, main, measures) or is_inside(main, element, measures) for main in mains
    )


def _all_the_article_says(child: Element, parent: Element, named: frozenset[str], measures: Measures) -> bool:
    """Whether ``child`` is all its ``parent``, an ``article`` or the ``main`` landmark, says: then
    it is that article whatever its name. Sphinx gives a page's one section the id its title
    spells, and a title opening with a role word ("Community Updates") reads as the role; the
    section is still the whole article. Readers' replies (each reply an ``article`` of its own)
    and notices are judged by their names all the same."""
    return (
        (parent.tag == "article" or is_main(parent))
        and not named & (TALK | NOTICES)
        and measures.chars.get(child, 0) == measures.chars.get(parent, 0) > 0
    )


def _comments_on_code(comment: Element, measures: Measures) -> bool:
    """Whether a block named ``comment`` is a documentation comment, not a reader's: it follows a
    declaration (a block named for the code it declares, ``SIGNATURES`` or ``CODE_ENTITIES``, or
    holding parts so named, as TypeDoc's ``tsd-signature`` holds its ``tsd-signature-type``; or a
    code block), or the page's title, the first thing under it or the block it opens; it is
    written (a paragraph, less than half of it links: not Stack Exchange's "Add a comment" under
    an answer's code); and it names no one who wrote it (``_attributed``). TypeDoc calls every
    description ``tsd-comment``. A reader's comment has an author, a date, an avatar, a reply
    link, or a form to post one."""
    node, levels = comment, 0
    while levels <= COMMENT_LEVELS:
        before = measures.previous(node)
        while before is not None and not measures.chars.get(before, 0):
            before = measures.previous(before)
        if before is not None:
            return (
                _declares(before)
                and next(comment.iter("p"), None) is not None
                and measures.link_density(comment) < MENU_LINK_SHARE
                and not _attributed(comment)
            )
        parent = measures.parent.get(node)
        if parent is None:
            return False
        node, levels = parent, levels + 1
    return False


COMMENT_LEVELS = 1
"""How many wrappers a comment may open before what it follows: TypeDoc sets a method's comment
first in the ``li`` that follows its signature's ``li``."""


def _declares(block: Element) -> bool:
    """A declaration (its name says so, or its parts' names), a code block, or the page's title."""
    return (
        block.tag == "pre"
        or bool(class_words(block) & DECLARATIONS)
        or holds_code_parts(block)
        or next(block.iter("h1"), None) is not None
    )


DECLARATIONS = SIGNATURES | CODE_ENTITIES


SIGNED = frozenset({"signature"})


def _attributed(comment: Element) -> bool:
    """Whether ``comment`` says who wrote it or lets a reader answer: a date, a picture, a form, or
    a block named for its author (``COMMENTERS``)."""
    return holds(comment, ATTRIBUTIONS) or any(class_words(node) & COMMENTERS for node in comment.iter())


ATTRIBUTIONS = frozenset({"time", "img", "form", "input", "textarea", "cite"})
COMMENTERS = frozenset("author avatar byline date meta reply respond user username vcard".split())


def _heads_a_section(element: Element, measures: Measures) -> bool:
    return measures.link_density(element) < 0.25 and holds(element, SECTION_HEADINGS)


def _sign_up_fields(root: Element) -> list[Element]:
    """The elements that hold a field asking for an e-mail address: where a sign-up box starts.
    (Most pages have none: the fields are looked for first, the elements around them only then.)"""
    if not any(_asks_for_email(field) for field in root.iter("input")):
        return []
    return [element for element in root.iter() if any(_asks_for_email(child) for child in element)]


def _asks_for_email(field: Element) -> bool:
    if field.tag != "input":
        return False
    if (field.get("type") or "").lower() == "email":
        return True
    said = " ".join(field.get(name) or "" for name in ("name", "id", "placeholder", "autocomplete", "aria-label"))
    return bool(EMAIL_FIELD.search(said))


EMAIL_FIELD = re.compile(r"e-?mail", re.IGNORECASE)


def _drop_sign_up_boxes(
    root: Element, fields: list[Element], titled: set[Element], replies: set[Element], measures: Measures
) -> None:
    """Drop the box around each e-mail field: the newsletter, the sign-in, the "get the deals" prompt.

    Such a box speaks to the reader ("Subscribe to our newsletter", "By signing up, you agree…")
    rather than of the page, wherever it sits and whatever its class. The box is the widest
    element around the field that says no more than ``SIGN_UP_CHARS``, held no ``h1`` as the page
    was written (``titled``: a landing page's hero asks for an e-mail beside the page's title, and
    the title stays; so does an article's header whose ``h1`` sat in breadcrumbs that went with the
    navigation) and holds not half the page (a short contact page is its form). A form for readers'
    replies (``_takes_replies``) asks for an address beside the reply: the box is that form and
    what says no more than ``REPLY_PROMPT_CHARS`` around it ("Leave a reply", "No comments yet"),
    for what is around that is what the reply answers (a blog's short post went with the comment
    form under it). ``measures`` are kept up to date.
    """
    boxes, total = [], measures.chars.get(root, 0)
    for start in fields:
        if start not in measures.parent:
            continue
        box, node, most = None, start, SIGN_UP_CHARS
        while (
            node is not None
            and node is not root
            and measures.chars.get(node, 0) <= most
            and not holds_the_page(node, measures, total)
            and node not in titled
        ):
            box, node = node, measures.parent.get(node)
            if box in replies:
                most = measures.chars.get(box, 0) + REPLY_PROMPT_CHARS
        if box is not None:
            boxes.append(box)
    measures.recount(remove_each(boxes, measures))


SIGN_UP_CHARS = 600
REPLY_PROMPT_CHARS = 150


def _takes_replies(form: Element) -> bool:
    """Whether ``form`` takes a reader's reply: it has a ``textarea`` and its class, id or address
    say so (WordPress's ``commentform`` posting to ``wp-comments-post.php``, a shop's
    ``write-review``). A contact form has a ``textarea`` too, but its box, the "Let us help" prompt
    around it, is no more the page's text than a newsletter's."""
    if next(form.iter("textarea"), None) is None:
        return False
    return bool(REPLY_FORM.search(" ".join(form.get(name) or "" for name in ("class", "id", "action"))))


REPLY_FORM = re.compile("comment|reply|respond|review", re.IGNORECASE)


def drop_unmarked_captions(root: Element, measures: Measures, *, at_most: float = 1.0) -> bool:
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
    measures.recount(remove_each(captions, measures))
    return bool(captions)


def _unmarked_captions(root: Element, measures: Measures) -> list[Element]:
    """The outermost blocks named ``caption`` or ``credit`` (``CAPTIONS``), at most
    ``CAPTION_CHARS``, beside a picture and holding none."""
    found: list[Element] = []
    for caption in root.iter():
        classes, identifier = caption.get("class"), caption.get("id")
        if not (classes and _NAMES_A_CAPTION.search(classes)) and not (
            identifier and _NAMES_A_CAPTION.search(identifier)
        ):
            continue
        parent = measures.parent.get(caption)
        if (
            parent is not None
            and class_words(caption) & CAPTIONS
            and not any(is_inside(caption, outer, measures) for outer in found[-1:])
            and 0 < measures.chars.get(caption, 0) <= CAPTION_CHARS
            and holds(parent, PICTURES)
            and not holds(caption, PICTURES)
        ):
            found.append(caption)
    return found


CAPTIONS = frozenset({"caption", "credit", "credits", "attribution"})
_NAMES_A_CAPTION = re.compile("caption|credit|attribution", re.IGNORECASE)
"""What a class or id naming a caption holds somewhere: most hold none, and are not split into words."""
CAPTION_CHARS = 300


def _read_headings_buttons(root: Element) -> None:
    """Make the ``button`` a heading's text is set in a ``span``: an accordion's question ("What
    are the prerequisites?") is the heading's text, set in the button that opens its answer
    (Bootstrap's ``h2.accordion-header > button.accordion-button``). Its class goes with it:
    ``accordion-button`` would read as a control drawn as a button (``cleaning.drop_controls``).
    A heading that says something besides its buttons has its words outside them, and the
    buttons beside them are controls, as all other buttons are, and go: rustdoc's "Copy item
    path" beside the item's name, a shop's "See more" beside a section's title."""
    for tag in HEADINGS:
        for heading in root.iter(tag):
            buttons = list(heading.iter("button"))
            if buttons and not _says_besides(heading, buttons):
                for button in buttons:
                    button.tag = "span"
                    button.attrib.pop("class", None)


def _says_besides(element: Element, inner: list[Element]) -> bool:
    """Whether ``element`` has text of its own outside the ``inner`` elements it holds, spaces aside."""
    said = sum(_non_space_chars(part) for part in inner)
    return _non_space_chars(element) > said


def _non_space_chars(element: Element) -> int:
    return sum(len(word) for word in "".join(element.itertext()).split())


def listing_captions(root: Element) -> set[Element]:
    """The captions of figures that show code or a table: "Listing 4-1: A variable and the scope
    in which it is valid" titles the program above it, as a table's caption does, and the text
    refers to it by that name. A picture's caption is its credit and description, furniture."""
    figures = (figure for figure in root.iter("figure") if holds(figure, LISTINGS))
    return {caption for figure in figures for caption in figure.iter("figcaption")}


LISTINGS = frozenset({"pre", "table"})
"""What a figure shows when its caption titles a listing: code, or a table."""
HEADER = frozenset({"header"})
"""The layout word a page's header goes by, which a block over the title and its introduction, or
a heading, goes by too: there it names the header of what follows, not the page's banner."""


def _holds_the_title_and_words(element: Element, measures: Measures) -> bool:
    """Whether ``element`` holds the page's title and a written paragraph: the title's header."""
    return holds(element, TITLES) and any(worthy_paragraph(paragraph, measures) for paragraph in element.iter("p"))


def _drop_structural(root: Element, *, article: bool, furniture: bool) -> Measures:
    """Drop what never renders text, then (``furniture``) the page's furniture, then what is hidden.

    A ``noscript`` that asks for JavaScript ("You must enable JavaScript to shop", "You need
    JavaScript to view the comments") goes with what never renders text: it speaks to the reader's
    browser, not of the page. Other ``noscript`` is read, as a browser without JavaScript shows it.
    A ``button`` is a control, except inside a heading, whose text it is (``_read_headings_buttons``).

    Furniture is what its tag or role says is navigation, a banner, an aside, a footer or a
    dialog, a language switcher, and the captions of figures other than a listing's
    (``listing_captions``). A dialog inside the ``main`` landmark, and the ``aside`` it
    slides in, are not furniture unless the page is an ``article``: shops put the size guide and
    the product details in drawers opened on demand, where an article's dialogs are the site's
    (republish this story, sign up). Furniture that holds the ``main`` landmark is a wrapper, not
    furniture: a ``header`` left open, or a template's banner around the whole page, holds the
    content too, and its own menus go one by one. The page's own ``header`` is its banner
    (``_banners``) and goes with what is hidden, on the same terms: a page wrapped whole in one
    keeps it, unless it is a menu. Hidden is ``hidden``, ``popover`` (shown only when something
    opens it), ``display: none``, ``visibility: hidden``, a class that only hides (``hide``,
    ``d-none``; not ``hidden md:block``, which shows from a screen size up), or a ``figure`` hidden
    from assistive technology (``aria-hidden``: a drawing made of markup).

    Hidden is kept when it is content waiting for JavaScript: shops and landing pages ship their
    whole content under ``display: none`` and reveal it once loaded (a hidden element holding half
    the page's text that is not a menu: a grid of products can be half links, a menu is more,
    ``MENU_LINK_SHARE``; and that is written, ``_is_written``: a hidden list of the fields a
    shop's scripts read, a thumbnail's address per colour, can hold half the page too), and tabs
    and accordions hide descriptions and specifications the same way (a hidden element that is
    prose, few of its words links, or that holds a table of figures, or a panel the reader opens:
    ``_is_panel``). What a closed ``details`` folds away (all but its ``summary``) is read as the
    reader who opens it reads it, an FAQ's answers, a reference's details; a menu folded so
    (``MENU_LINK_SHARE`` links or more: GitHub's hundreds of languages to filter a list by) is
    navigation waiting for a click, and goes.
    """
    panels = _Panels()
    panels.read_controls(root)
    _read_headings_buttons(root)
    around_main = _around(root, is_main) if furniture else set()
    drawers = set() if article or not furniture else _drawers(e for e in around_main if is_main(e))
    drawers.update([element for drawer in drawers for element in drawer.iter("aside")])
    listings = listing_captions(root) if furniture else set()

    @functools.cache
    def titled_asides() -> set[Element]:
        return _titled_asides(root)

    def unseen(child: Element, tag: str) -> bool:
        if not tag or tag.startswith("{") or tag in UNSEEN or (tag == "noscript" and _asks_for_javascript(child)):
            return True
        return (
            furniture
            and child not in drawers
            and (tag in FURNITURE or is_furniture(child))
            and child not in around_main
            and child not in listings
            and not (tag == "aside" and (is_callout(child) or child in titled_asides()))
        )

    def unwanted(child: Element, tag: str) -> bool:
        if unseen(child, tag):
            for element in child.iter():
                panels.read_controls(element)
            return True
        panels.read_controls(child)
        return False

    drop_where(root, unwanted, inside_code=True)
    measures = Measures(root)
    total = measures.chars.get(root, 0)
    banners = _banners(root, measures) if furniture else set()

    folded_menus = {
        child
        for details in root.iter("details")
        if details.get("open") is None and _folds_a_menu(details, measures)
        for child in details
        if child.tag != "summary"
    }

    def hidden_or_banner(child: Element, tag: str) -> bool:
        if child in folded_menus:
            return True
        if not child.attrib and child not in banners:
            return False
        if child not in banners and (
            not is_hidden(child)
            or is_prose(child, measures)
            or is_data(child, measures)
            or _is_panel(child, panels, measures)
        ):
            return False
        return (
            not holds_the_page(child, measures, total)
            or measures.link_density(child) > MENU_LINK_SHARE
            or not _is_written(child, measures)
        )

    measures.recount(drop_where(root, hidden_or_banner, inside_code=True))
    return measures


MENU_LINK_SHARE = 0.5


def _titled_asides(root: Element) -> set[Element]:
    """The ``aside`` elements around the page's one ``h1``: a story set in an ``aside``
    (``aside.blogPost``, as some themes wrote HTML5's new tags in 2012) holds the page's title. Its
    one: a page that titles every box ``h1`` titles its sidebar's widgets so too."""
    titles = list(root.iter("h1"))
    if len(titles) != 1:
        return set()
    return {aside for aside in root.iter("aside") if any(title is titles[0] for title in aside.iter("h1"))}


def _folds_a_menu(details: Element, measures: Measures) -> bool:
    """Whether what a closed ``details`` folds away (all but its ``summary``), read as one, is
    ``MENU_LINK_SHARE`` links or more. Read as one: rustdoc folds a trait's methods into a
    ``details`` inside its declaration's ``pre``, each name a link among the types' words; judged
    child by child, every link is all link and the declaration came out ``fn (&self) -> ;``."""
    summary = next((child for child in details if child.tag == "summary"), None)
    chars, links = measures.chars.get(details, 0), measures.link_chars.get(details, 0)
    if summary is not None:
        chars -= measures.chars.get(summary, 0)
        links -= measures.link_chars.get(summary, 0)
    return chars > 0 and links / chars > MENU_LINK_SHARE


def _is_written(element: Element, measures: Measures) -> bool:
    """Whether ``element`` holds a heading or a written paragraph: what a page says to its reader,
    not a store of fields its scripts read (``cat_thumb_Bone: https://…``)."""
    return holds(element, HEADINGS) or any(worthy_paragraph(paragraph, measures) for paragraph in element.iter("p"))


def _around(root: Element, wanted: Callable[[Element], bool]) -> set[Element]:
    """Every element ``wanted`` names and the elements around it: the ``main`` landmarks and the
    furniture that must stay as their wrapper; the ``h1`` and the blocks that held it as the page
    was written (before its breadcrumbs went with the navigation). The elements are found by
    ElementTree's own walk, and the tree's parents read only on a page that has some."""
    targets = [element for element in root.iter() if wanted(element)]
    if not targets:
        return set()
    parents = {child: element for element in root.iter() for child in element}
    found: set[Element] = set()
    for target in targets:
        node: Element | None = target
        while node is not None and node not in found:
            found.add(node)
            node = parents.get(node)
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
                kind = record_kind(child)
                if kind is not None and not is_hidden(child):
                    shown.setdefault(kind, set()).add(paragraph_text(child))
            self._siblings[parent] = previous, shown
        return self._siblings[parent]


def _is_panel(element: Element, panels: _Panels, measures: Measures) -> bool:
    """A hidden panel a reader opens: an accordion's answer, a tab's content; not a menu, not a modal.

    It is one when it says so (``role="tabpanel"``: a tab's content, the ``yarn`` beside the
    ``npm`` of an install command), when a control names it or the one element it wraps
    (``aria-controls``), when a sibling alike (same tag, same first class) is shown and says
    something else (the tab that is open, the slide on screen), or when it is a block that follows
    a question ("What is an online certificate?", the FAQ's answer under it; a hidden ``time`` after
    a question is the date a script reads, no answer). A panel of links is a menu
    (``MENU_LINK_SHARE``); one named a modal or an overlay waits to interrupt the reader, not to be
    read; both go with what is hidden.
    """
    if not measures.chars.get(element, 0) or measures.link_density(element) > MENU_LINK_SHARE:
        return False
    if class_words(element) & OVERLAYS:
        return False
    if (element.get("role") or "").strip().lower() == "tabpanel":
        return True
    if element.get("id") in panels.controlled or (len(element) == 1 and element[0].get("id") in panels.controlled):
        return True
    parent = measures.parent.get(element)
    if parent is None:
        return False
    previous, shown = panels.siblings(parent, measures)
    kind = record_kind(element)
    if kind is not None and shown.get(kind, set()) - {paragraph_text(element)}:
        return True
    before = previous.get(element)
    return (
        element.tag in BLOCKS and before is not None and not is_hidden(before) and paragraph_text(before).endswith("?")
    )


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
        while node is not None and node.tag not in SECTIONING and not is_main(node):
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


KEPT_WHATEVER_THE_NAME = frozenset({"body", "article", "main", "table", "tbody", "tr", "td", "th", "a", "code", "pre"})


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
    return not words & ELSEWHERE or bool(words & MAYBE) or holds(element, TITLES)


PROSE_HELD = 0.75
