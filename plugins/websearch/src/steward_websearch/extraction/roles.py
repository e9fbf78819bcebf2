"""What a page says an element is by its name: the words of its ``class`` and ``id``, its ``role``,
whether it hides itself. Names are read as words, not substrings, and machine-made names say nothing."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from urllib.parse import urlsplit
from xml.etree.ElementTree import Element

from steward_websearch.extraction.vocabulary import HEADINGS

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
NOTICES = frozenset("consent cookie cookies copyright dsgvo gdpr".split())
"""Boilerplate words that name the cookie prompt or the copyright notice: never content, however
much of the page its settings and vendor lists hold, or however short the page under the notice
(a reference's page for one constant says less than its licence)."""
TALK = frozenset("comment comments disqus".split())
"""Boilerplate words that name readers' replies: beside an article's own prose, never the article."""
LAYOUT = frozenset("header masthead banner popup menu".split())
"""Boilerplate words that name a place in the layout, not a kind of text: prose there is kept."""
SIGNATURES = frozenset({"code", "signature", "sig", "declaration"})
"""Words that name a heading for the code it holds: rustdoc's ``code-header``, the heading of each
function and ``impl``. Beside such a word, ``header`` says what the heading is, not where it sits."""
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


def class_words(element: Element) -> frozenset[str]:
    """The words of an element's class and id, where they name its role.

    An id that spells the element's own heading is the heading's anchor, the subject of the
    section and not its role: Sphinx and most documentation generators give the section on
    ``prefetch_related()`` the id ``s-prefetch-related``, which is no related-links rail. A heading
    so anchored is a section's title whatever its class says: Docusaurus styles every one
    ``anchorTargetStickyNavbar_Vzrq`` (room for the sticky navbar above it), which is no navbar.
    """
    classes, identifier = element.get("class"), element.get("id")
    if not classes and not identifier:
        return NO_WORDS
    words = _label_words(f"{classes or ''} {identifier or ''}")
    if identifier and words & ROLE_WORDS and _anchors_its_heading(element, identifier):
        return _label_words(classes) if classes and element.tag not in HEADINGS else NO_WORDS
    return words


def _anchors_its_heading(element: Element, identifier: str) -> bool:
    """Whether ``identifier`` spells the heading that opens ``element`` (one of its first blocks),
    and that heading names a subject: one that opens with a role word ("Related products",
    "Comments") names the role, unless the section shows code (``_shows_code``: a framework's
    guide to its "Cookies", a language's "Comments", the "Cookies" functions of an API reference:
    no site's furniture shows a code block or declares a function)."""
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
    if not named or not named <= _label_words(title) or first is None:
        return False
    return first[0].lower() not in ROLE_WORDS or _shows_code(element)


def _shows_code(element: Element) -> bool:
    """Whether ``element`` holds a code block or declares code: a ``pre``, or a block named for
    the signature it holds (``SIGNATURES``: Sphinx's ``sig`` over each function it documents)."""
    return any(node.tag == "pre" or _label_words(node.get("class") or "") & SIGNATURES for node in element.iter())


HEADING_PLACES = 3


NO_WORDS: frozenset[str] = frozenset()


@functools.lru_cache(maxsize=4096)
def _label_words(label: str) -> frozenset[str]:
    """The words of a class and id, without the ones a machine made.

    Page builders and CSS modules name blocks with hashes and UUIDs (``elementor-element-a0ad13a``,
    ``sc-14uj3bo-2``); read as words, they spell ``ad`` and ``nav`` at random. A UUID says
    nothing, and a name whose letters and digits alternate says nothing after its first letters
    (``ad300x250`` is an ``ad``, ``a0ad13a`` is not). The signature of a type or a member
    (``CODE_ENTITIES``: javadoc's ``type-signature`` and ``member-signature``, pdoc's ``signature
    pdoc-code``) is its declaration, not the lines a forum adds under a member's posts. Beside the
    classes WordPress gives a post (``hentry``, ``type-post``), ``category-…`` and ``tag-…`` name
    the post's subjects: a post filed under "social media", or tagged "cookie recipes", is no
    ``social`` bar and no ``cookie`` prompt.
    """
    if _WORDPRESS_POST.search(label):
        label = _WORDPRESS_TERMS.sub(" ", label)
    words = set()
    for name in _NAME.findall(_UUID.sub(" ", label)):
        made = _MADE.search(name)
        words.update(word.lower() for word in _WORD.findall(name[: made.start() + 1] if made else name))
    for word in list(words):
        words.update(_COMPOUND.findall(word))
    if "signature" in words and not words.isdisjoint(CODE_ENTITIES):
        words.remove("signature")
    return frozenset(words)


_WORDPRESS_POST = re.compile(r"(?<![\w-])(?:hentry|type-[\w-]+)(?![\w-])")
_WORDPRESS_TERMS = re.compile(r"(?<![\w-])(?:category|tag)-[\w-]+")


CODE_ENTITIES = frozenset(
    """class code constructor enum field function interface keyword member method module package parameter
    property symbol type variable""".split()
)


_COMPOUND = re.compile(
    r"^(?:footer|menu|related)(?=.)|(?<=.)(?:footer|metadata)$"
    r"|^nav(?=(?:bar|box|group|header|holder|item|link|list|menu|panel|tab|wrap|wrapper)s?$)"
)
"""Role words run into others: ``brdfooter``, ``footerlinks``, ``menuwrap``, ``relatedposts``
(WordPress's Jetpack), ``postmetadata`` (its classic themes), ``navheader`` (DocBook's Prev / Up /
Home / Next table). Not ``menu`` at the end, where it is as often something else (``contextmenu``
marks a CMS's body paragraphs); ``nav`` only before a word for a piece of navigation, not before
whatever follows it (``navy``, ``navigator``)."""


def declares(attributes: dict[str, str]) -> bool:
    """Whether an element with these attributes is named for the declaration it sets out
    (``DECLARING``): Sphinx's ``dt.sig`` over each function it documents, spelt in spans of
    highlighter's tokens (``span.n > span.pre``) as code is, though in no ``code``."""
    classes = attributes.get("class")
    if not classes or ("sig" not in classes and "declaration" not in classes):
        return False
    return not _label_words(classes).isdisjoint(DECLARING)


DECLARING = SIGNATURES - {"code", "signature"}
"""The words naming a block for the code it declares, and nothing else: ``code`` names examples
and toolbars as often, and ``signature`` a forum's lines under a member's posts, told from a
declaration by the parts named for code it holds (``holds_code_parts``), which stay elements to be
read."""


def names_a_line(classes: str | None) -> bool:
    """Whether one of ``classes`` names a line of code: ``line``, ``code-line``,
    ``gatsby-highlight-code-line``, a CSS module's ``codeLine_lJS_``; not ``line-numbers``,
    ``line-through`` or ``inline``, where the word says something else."""
    return bool(classes) and "ine" in classes and any(_A_LINE.search(name) for name in classes.split())


_A_LINE = re.compile(r"(?:^|[-_])[Ll]ine$|[a-z]Line(?:_|$)")


def holds_code_parts(block: Element) -> bool:
    """Whether ``block`` holds parts named for what they are in code (``DECLARATION_PARTS``):
    ``signature`` is a forum's word for the lines under a member's posts, and a reference's for a
    declaration, TypeDoc's ``tsd-signature`` around its ``tsd-signature-type``. Code alone says
    nothing: a plugin author's forum signature shows an ``inline-code`` command."""
    return any(class_words(node) & DECLARATION_PARTS for node in block.iter() if node is not block)


DECLARATION_PARTS = CODE_ENTITIES - {"code"}


def is_callout(element: Element) -> bool:
    """Whether ``element`` is a documentation page's callout, named for the kind of remark it is
    (``CALLOUTS``) or given the ``note`` role: Starlight sets its tips and cautions in ``aside``,
    which is otherwise the page's furniture."""
    return element.get("role") == "note" or not class_words(element).isdisjoint(CALLOUTS)


CALLOUTS = frozenset("admonition callout caution danger hint important note tip".split())
"""Words for a remark set apart from the text. Not ``warning``: forums warn that JavaScript is off
in an ``aside.blockMessage--warning``."""


def is_furniture(element: Element) -> bool:
    """Navigation, banners, dialogs and the like, by the role the page gives them; skip links and
    language switchers."""
    tag = element.tag
    if tag == "a":
        return _is_skip_link(element)
    if tag == "ul" or tag == "ol":
        return _switches_language(element)
    return (element.get("role") or "").lower() in HIDDEN_ROLES


SKIP_LINK = re.compile(
    r"\s*(?:(?:skip|jump|back|go) to|(?:zurück|springe?) (?:zu[mr]?|nach)|nach oben|retour (?:à|au|en)|aller (?:à|au)"
    r"|haut de (?:la )?page|volver (?:a|al|arriba)|ir (?:a|al)|torna (?:a|al|su)|vai (?:a|al)|voltar (?:a|ao|para)"
    r"|ir para|terug naar|naar boven|ga naar|powrót do|przejdź do|do góry)\b",
    re.IGNORECASE,
)
"""How a link to a place on the page starts ("Skip to content", "Zurück zum Inhaltsverzeichnis",
"Haut de page", "Volver arriba"), in English, German, French, Spanish, Italian, Portuguese, Dutch
and Polish."""


def _is_skip_link(anchor: Element) -> bool:
    """ "Skip to content", "Back to top": a link to a place on the same page, for moving around it."""
    return (anchor.get("href") or "").startswith("#") and bool(SKIP_LINK.match("".join(anchor.itertext())))


def _switches_language(listing: Element) -> bool:
    """A list of links to the page in other languages: its links (``SWITCHER_SHARE`` of them)
    say the language they lead to (``hreflang``, or ``lang`` on a name written in that language:
    "Deutsch", "日本語"), ``LANGUAGES`` or more between them. Wikipedia's "51 languages", a
    documentation site's switcher; links that all say one language are no switcher."""
    links = list(listing.iter("a"))
    if len(links) < LANGUAGES:
        return False
    languages = [link.get("hreflang") or link.get("lang") for link in links]
    named = [language.lower() for language in languages if language]
    return len(named) >= SWITCHER_SHARE * len(links) and len(set(named)) >= LANGUAGES


LANGUAGES = 3
SWITCHER_SHARE = 0.8


def is_hidden(element: Element) -> bool:
    """Hidden from the reader: ``hidden``, ``popover``, ``display: none``, ``visibility: hidden``,
    a class that only hides; and a ``figure`` hidden from assistive technology (``aria-hidden``),
    a drawing made of markup (a payment form drawn to show the product) that says nothing aloud.
    ``aria-hidden`` elsewhere is not enough: shops put it on slides and on the copy a screen reader
    hears another way, and the reader's eyes see them."""
    if element.tag == "figure" and (element.get("aria-hidden") or "").strip().lower() == "true":
        return True
    return hides(element.get)


def hides(attribute: Callable[[str], str | None]) -> bool:
    """Whether the attributes ``attribute`` reads (an element's ``get``, or its attributes' before
    there is an element) hide it: ``hidden``, ``popover``, ``display: none``, ``visibility: hidden``,
    a class that only hides."""
    if attribute("hidden") is not None or attribute("popover") is not None:
        return True
    if _hidden_by_class(attribute("class")):
        return True
    style = (attribute("style") or "").replace(" ", "").lower()
    return "display:none" in style or "visibility:hidden" in style


HIDING = frozenset({"hide", "hidden", "is-hidden", "d-none"})


def _hidden_by_class(classes: str | None) -> bool:
    names = (classes or "").split()
    return bool(HIDING.intersection(names)) and not any(":" in name for name in names)


def class_weight(element: Element, negative: frozenset[str] = NEGATIVE) -> int:
    words = class_words(element)
    return (25 if words & POSITIVE else 0) - (25 if words & negative else 0)


ICONS = frozenset({"avatar", "emoji", "smilie", "smiley", "icon", "reaction"})
"""Names of pictures that stand beside text rather than make a gallery: a poster's avatar, an
emoji, a reaction."""
PORTRAITS = ICONS | {"author", "byline", "logo"}
"""Names of pictures (or of the blocks around them) that stand beside a title: no caption follows."""


def is_icon(image: Element) -> bool:
    """A picture that marks text rather than shows something: named an icon, an avatar, an emoji
    (``ICONS``), or drawn as SVG (a toggle's arrow, a check mark, a logo; photographs are not SVG)."""
    return bool(class_words(image) & ICONS) or _drawn_as_svg(image.get("src") or "")


def _drawn_as_svg(source: str) -> bool:
    """Whether a picture's address names an SVG file. An address no browser can load
    (``http://[cdn/a.png``, a bracketed host that is no IP address) shows nothing, SVG or not."""
    try:
        return urlsplit(source).path.lower().endswith(".svg")
    except ValueError:
        return False
