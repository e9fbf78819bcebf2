"""Furniture passes: credits, disclosures, controls, permalinks, line numbers and placeholders that
no reader came for (menus and tables of contents: ``contents``)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from xml.etree.ElementTree import Element

from steward_websearch.extraction.roles import class_words
from steward_websearch.extraction.tree import (
    Measures,
    ancestors,
    drop_where,
    holds,
    outside_code,
    paragraph_text,
    remove_each,
    text_start,
)
from steward_websearch.extraction.vocabulary import BLOCKS, CODE, HEADINGS, INLINE, LISTS


def drop_credits(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop picture credits set as lines of the text: "Photo: AP", "Titelbild: …", "Crédits photos : …".

    Captions go with the furniture; a credit the editor typed as a line of the story ("Bild via
    Instagram", "Credit: Getty") says who took a picture, not what the story says. One is a short
    block (at most ``CREDIT_CHARS``) that opens with such a label and a colon, a ``©`` or "by".
    A source ("Quelle:", "Source:") is the text's citation and stays.
    """
    _drop_short_blocks(
        content, measures, tags=CREDIT_TAGS, chars=CREDIT_CHARS, anywhere=CREDIT_ANYWHERE, says=CREDIT.match
    )


CREDIT_LABEL = (
    r"(?:photo(?:graph)?s?|pictures?|images?|foto(?:s|grafie)?|bild(?:er)?|titelbild|beitragsbild|bildquelle"
    r"|crédits? photos?|photo credits?|credits?)(?:\s*(?:by|via|von|de)\b|\s*[:©])"
)
CREDIT = re.compile(r"\W*" + CREDIT_LABEL, re.IGNORECASE)
CREDIT_ANYWHERE = re.compile(CREDIT_LABEL)
"""Whether a lower-cased text holds a credit anywhere: read without ``IGNORECASE``, which keeps
``re`` from skipping ahead to the letters a label can start with (7 times as fast on whole pages)."""
CREDIT_CHARS = 100
CREDIT_TAGS = frozenset({"p", "div", "span", "small", "em", "figcaption"})


def drop_bylines(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop a byline typed as a line of the text: "Written by Cassidy Horton", "Reviewed by: Brian
    Stormont, CFP®", "Medically reviewed by …", "Geschrieben von …", "Écrit par …".

    Templates set who wrote, edited or checked a post above or below it, as they set its date,
    and name the block ``byline`` only sometimes (``clean`` drops those by name). One is a short
    block (at most ``BYLINE_CHARS``) that says nothing else (``BYLINE``); "Published by" stays,
    a game's or a book's publisher in a shop's list, and so does a sentence ("Written by a nurse
    for nurses, this guide …" goes on past the name).
    """
    _drop_short_blocks(
        content, measures, tags=BYLINE_TAGS, chars=BYLINE_CHARS, anywhere=BYLINE_ANYWHERE, says=BYLINE.fullmatch
    )


BYLINE_LABEL = (
    r"(?:written|reviewed|edited|fact[- ]?checked|medically reviewed|expert reviewed|words|reported)\s+by"
    r"|(?:geschrieben|verfasst) von|(?:écrit|rédigé) par|(?:escrito|redactado) por|scritto da"
)
BYLINE_NAME = r"(?-i:(?![a-z]))(?:[^.,!?\n]|(?<=\b[A-Z])\.){1,40}?(?:,\s*(?:[A-Z][\w.®]{0,11}|\d{4}\b[^.!?\n]{0,20}))*"
"""A name: not opening in lower case ("edited by our experts to help…" is a sentence going on),
with its initials' full stops, and credentials (", MD", ", CFP®") or a year after commas."""
BYLINE = re.compile(
    rf"\W*(?:{BYLINE_LABEL})(?:\s*:)?(?:\s+{BYLINE_NAME})?(?:\s+(?:on|am|le|el|il)\s+[^!?\n]{{1,30}})?\W*",
    re.IGNORECASE,
)
"""Who wrote, edited or checked the text, and nothing more than a name and a date, in English,
German, French, Spanish and Italian."""
BYLINE_LABELS = (
    *(f"{verb} by" for verb in ("written", "reviewed", "edited", "checked", "words", "reported")),
    *("geschrieben von", "verfasst von", "écrit par", "rédigé par", "escrito por", "redactado por", "scritto da"),
)
BYLINE_ANYWHERE = re.compile("|".join(f" {label.split()[-1]}(?<={label})" for label in BYLINE_LABELS))
"""Whether a lower-cased text holds a byline's label anywhere: found at each " by", " von", …
and read backwards from there, which is 25 times as fast as trying every label at every
character; " by" alone is in most pages."""
BYLINE_CHARS = 100
BYLINE_TAGS = frozenset({"p", "div", "span", "small", "em", "li", "strong", "address"})


def drop_reading_times(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop a post's reading time: "5 min read", "Reading Time: 11 minutes", "Lesezeit: 3 Min.".

    Blogs and their listings set it beside the date, as they set the date: an estimate of how long
    the page takes, not anything it says. One is a short block (at most ``READING_TIME_CHARS``)
    that says nothing else (``READING_TIME``); "It takes 5 minutes to read the meter" is a sentence.
    """
    _drop_short_blocks(
        content,
        measures,
        tags=READING_TIME_TAGS,
        chars=READING_TIME_CHARS,
        anywhere=READ_ANYWHERE,
        says=READING_TIME.fullmatch,
    )


READING_TIME = re.compile(
    r"\W*(?:(?:estimated )?reading time\W*(?:\d+\s*(?:min(?:ute)?s?\.?|m)|less than a minute)"
    r"|\d+(?:\s*-\s*\d+)?\s*(?:min(?:ute)?s?\.?|m) (?:read(?:ing)?(?: time)?|to read)"
    r"|lesezeit\W*(?:ca\.\s*)?\d+\s*min(?:uten?|\.)?|\d+\s*min(?:uten?|\.)? lesezeit"
    r"|temps de lecture\W*\d+\s*min(?:utes?|\.)?|\d+\s*min(?:utes?|\.)? de lecture"
    r"|tiempo de lectura\W*\d+\s*min(?:utos?|\.)?|\d+\s*min(?:utos?|\.)? de lectura"
    r"|tempo di lettura\W*\d+\s*min(?:uti|\.)?|\d+\s*min(?:uti|\.)? di lettura"
    r"|leestijd\W*\d+\s*min(?:uten|\.)?|\d+\s*min(?:uten|\.)? leestijd"
    r"|czas czytania\W*\d+\s*min(?:ut|\.)?|\d+\s*min(?:ut|\.)? czytania)\W*",
    re.IGNORECASE,
)
"""A reading time and nothing else, in English, German, French, Spanish, Italian, Dutch and Polish."""
READ_ANYWHERE = re.compile("read|lesezeit|lecture|lectura|lettura|leestijd|czytania")
READING_TIME_CHARS = 40
READING_TIME_TAGS = frozenset({"p", "div", "span", "small", "em", "li", "time"})


def drop_update_notes(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop a note of when the page was last changed: "Last updated: April 21, 2025", "This post was
    last updated July 2021.", "Zuletzt aktualisiert am 3. März 2025", "Dernière mise à jour : mai 2024".

    It says when, not what: the page's history, as its date and its reading time are. One is a
    short block (at most ``UPDATE_NOTE_CHARS``) that says so and when (``UPDATE_NOTE``, ``WHEN``)
    and nothing else. A bare "Updated March 2, 2026" stays: it is as often each entry's field in a
    list (a repository's, a card's), or a story's dateline beside "Published", as a note. So does a
    post's "Last edited by Trilby (2024-08-04)": who changed a reply, and when, is the thread's
    record, kept or not as its posts' other fields are.
    """
    _drop_short_blocks(
        content,
        measures,
        tags=UPDATE_NOTE_TAGS,
        chars=UPDATE_NOTE_CHARS,
        anywhere=UPDATE_ANYWHERE,
        says=lambda text: UPDATE_NOTE.fullmatch(text) and WHEN.search(text),
    )


UPDATE_NOTE = re.compile(
    r"\W*(?:(?:this )?(?:page|post|article|entry) (?:was )?)?last (?:updated|modified|changed|reviewed)\b.*"
    r"|\W*(?:zuletzt (?:aktualisiert|geändert)|letzte (?:aktualisierung|änderung))\b.*"
    r"|\W*dernière mise à jour\b.*|\W*última (?:actualización|modificación)\b.*",
    re.IGNORECASE,
)
"""A note of the page's last change, in English, German, French and Spanish."""
WHEN = re.compile(r"\b(?:1[89]|20)\d{2}\b|\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b")
"""A year or a date in figures: what makes "Last updated …" a note ("Last updated: April 21, 2025"),
not a sentence ("Last updated models may boil faster")."""
UPDATE_ANYWHERE = re.compile("last (?:updated|modified|changed|reviewed)|zuletzt|letzte|dernière mise|última")
UPDATE_NOTE_CHARS = 80
UPDATE_NOTE_TAGS = frozenset({"p", "div", "span", "small", "em", "i", "time", "li", "dd"})


def drop_contents_labels(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop the label of a table of contents that went: "Table of Contents", "On this page",
    "Inhaltsverzeichnis" over the story's first paragraph.

    A table of contents is links to the page's own sections, and goes as a list of links; its
    label is a short block of its own, and stays behind unless this pass takes it. A label still
    followed by a list heads that list, and stays with it.
    """
    if not CONTENTS_ANYWHERE.search(_said(content, measures)):
        return
    measures = measures or Measures(content)
    labels = [
        element
        for element in outside_code(content)
        if element.tag in CONTENTS_TAGS
        and says_only(element, CONTENTS_LABEL, CONTENTS_CHARS, measured=measures.chars.get(element, 0))
        and not _followed_by_a_list(element, measures, content)
    ]
    measures.recount(remove_each(labels, measures))


def _followed_by_a_list(element: Element, measures: Measures, content: Element) -> bool:
    """Whether the next block that says something after ``element`` (its parent's, if it is the
    last one that does) is a list, or opens with one."""
    node: Element | None = element
    while node is not None and node is not content:
        following = measures.following(node)
        while following is not None and not measures.chars.get(following, 0):
            following = measures.following(following)
        if following is not None:
            while following.tag not in LISTS and len(following) and not (following.text or "").strip():
                following = following[0]
            return following.tag in LISTS or following.tag == "nav"
        node = measures.parent.get(node)
    return False


CONTENTS_LABEL = re.compile(
    r"\W*(?:table of contents|contents|on this page|jump to(?: section)?"
    r"|inhaltsverzeichnis|inhalt|auf dieser seite|sommaire|table des matières|sur cette page|índice|contenido"
    r"|en esta página|indice|sommario|in questa pagina|inhoudsopgave|inhoud|op deze pagina|spis treści"
    r"|na tej stronie)\W*",
    re.IGNORECASE,
)
"""What labels a table of contents, in English, German, French, Spanish, Italian, Dutch and Polish."""
CONTENTS_ANYWHERE = re.compile(
    "contents|on this page|jump to|inhalt|auf dieser|sommaire|table des|sur cette|índice|contenido"
    "|en esta|indice|sommario|in questa|inhoud|op deze|spis treści|na tej"
)
CONTENTS_CHARS = 40
CONTENTS_TAGS = frozenset({"p", "div", "span", "strong", "h2", "h3", "h4", "h5", "h6", "summary", "button"})


def drop_disclosures(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop the disclosures a commercial page sets in its text: "This post contains affiliate links.",
    "When you buy through links on our site, we may earn a commission.", "As an Amazon Associate I
    earn from qualifying purchases."

    Advertising rules ask a site paid for its links to say so, and sites say it in the same words over
    every story; it tells a reader how the site is paid, not what the page says. One is a block of
    at most ``DISCLOSURE_CHARS`` that says so (``DISCLOSURE``) in the site's own voice (we, I, this
    post): an article about affiliate marketing ("Streamers earn a commission when viewers buy")
    speaks of others, and stays.
    """
    _drop_short_blocks(
        content, measures, tags=DISCLOSURE_TAGS, chars=DISCLOSURE_CHARS, anywhere=DISCLOSED, says=DISCLOSURE.search
    )


DISCLOSURE = re.compile(
    r"\b(?:we|i|us|our|my)\b[^.!?]{0,60}?\b(?:earn|receive|get|make)s?\b[^.!?]{0,40}?\b(?:a )?(?:small )?"
    r"(?:commissions?|compensation|kickback|percentage|share of (?:sales|the sale))\b"
    r"|\b(?:this|our|the|my) (?:post|article|page|site|website|blog|review|guide|content)s? (?:may )?"
    r"(?:contains?|includes?|uses?) (?:some )?affiliate links?"
    r"|\baffiliate (?:disclosure|disclaimer)\b|\bas an amazon associate\b|\bearn from qualifying purchases\b"
    r"|\b(?:is|are) (?:a )?reader[- ]supported\b|\bbuying through (?:our )?links on our site\b",
    re.IGNORECASE,
)
DISCLOSED = re.compile("affiliat|commission|compensation|kickback|percentage|qualifying purchases|reader.supported")
"""Words one of the ``DISCLOSURE`` holds, looked for in the lower-cased content before any block is read."""
DISCLOSURE_CHARS = 400
DISCLOSURE_TAGS = frozenset({"p", "div", "span", "small", "em", "i", "strong", "aside", "li"})


def _drop_short_blocks(
    content: Element,
    measures: Measures | None,
    *,
    tags: frozenset[str],
    chars: int,
    anywhere: re.Pattern[str],
    says: Callable[[str], object],
) -> None:
    """Drop the blocks (``tags``) of at most ``chars`` characters whose text ``says`` what a pass
    looks for; no block is read unless the lower-cased content holds ``anywhere``."""
    if not anywhere.search(_said(content, measures)):
        return
    measures = measures or Measures(content)
    removed = drop_where(
        content,
        lambda child, tag: (
            tag in tags and 0 < measures.chars.get(child, 0) <= chars and bool(says(paragraph_text(child)))
        ),
    )
    measures.recount(removed)


def _said(content: Element, measures: Measures | None) -> str:
    """The content's lower-cased text, for a pass to look for a word before reading any block: read
    once for all the passes that share ``measures`` (``Measures.said``)."""
    return measures.said() if measures is not None else "".join(content.itertext()).lower()


def drop_controls(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop links and spans drawn as buttons (``btn``, ``button``): controls, as ``button`` elements
    are; and what asks the reader to act rather than says anything (``ASKS``), a block of one such
    sentence: a prompt to sign in before acting ("You must log in to answer this question.",
    "Create an account or sign in to comment", "Sie müssen sich einloggen, um …"), a thread's
    notice that a guest cannot ("Not open for further replies."), a request to rate the page
    ("Was this article helpful?", "War der Artikel nützlich?"); and a link that only leads to the
    rest of a teaser (``MORE``: "Read more", "Continue reading", "Weiterlesen"), the teaser's
    title having said where; and the labels of a shop's controls over its grid and cards
    (``SHOP_CONTROLS``: "Filters", "Sort by:", "Compare", "+ Wishlist"), their inputs gone. What
    a guest sees in place of the form, and the form's question, are not what the page says; "Log
    in to your console and click Create" is an instruction, and stays.

    Done last, on the content already chosen: taken out earlier, the links they are would no
    longer count in the link density that tells a rail of other stories from the story.
    """
    chars = (measures or Measures(content)).chars

    def control(child: Element, tag: str) -> bool:
        if tag in ("a", "span") and class_words(child) & CONTROLS:
            return True
        measured = chars.get(child, 0)
        if not 0 < measured <= CONTROL_CHARS or tag not in CONTROL_TAGS:
            return False
        text = text_start(child, CONTROL_CHARS + 1)
        return (
            (tag in ASKING_TAGS and _asks(text))
            or (tag == "a" and _reads(text, MORE, MORE_CHARS))
            or (tag in SHOP_CONTROL_TAGS and _reads(text, SHOP_CONTROLS, SHOP_CONTROL_CHARS) and not holds(child, CODE))
            or (tag in ACCOUNT_TAGS and _reads(text, ACCOUNT, ACCOUNT_CHARS) and not holds(child, CODE))
        )

    removed = drop_where(content, control)
    if measures is not None:
        measures.recount(removed)


def says_only(element: Element, said: re.Pattern[str], chars: int, *, measured: int | None = None) -> bool:
    """Whether all ``element`` says, at most ``chars`` characters of it, is what ``said`` reads;
    no more of a longer block is read, and none is read whose ``measured`` length (``Measures.chars``,
    when the caller has it) is nothing or more than ``chars``: most blocks of a page are."""
    if measured is not None and not 0 < measured <= chars:
        return False
    return _reads(text_start(element, chars + 1), said, chars)


def _reads(text: str, said: re.Pattern[str], chars: int) -> bool:
    """Whether ``text`` (a block's start, read past ``chars``) is all of it, and what ``said`` reads."""
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
    r"|(?:you are not logged in|(?:status\W*)?not open for further replies)\.?"
    r"|(?:click|tap) (?:here )?to (?:expand|enlarge|show more)\W*|(?:show|view) (?:more|less)\W*"
    r"|(?:expand|collapse)(?: all| description| details)?\W*|(?:show|hide) all\W*"
    r"|this (?:topic|thread) (?:was|has been|is) (?:automatically )?(?:closed|locked|archived)\b[^.!?]*[.!?]?"
    r"(?: new replies are no longer allowed\.?)?"
    r"|(?:was|is|did you find) this (?:article |page |post |answer |information |guide )?(?:helpful|useful)\W*"
    r"|how (?:useful|helpful) was this (?:post|article|page)\W*|rate this (?:article|post|page|recipe)\W*"
    r"|(?:war|ist) (?:der|dieser) (?:artikel|beitrag|inhalt) (?:hilfreich|nützlich)\W*"
    r"|wie (?:bewerten sie|hilfreich (?:war|ist)|gefällt ihnen) (?:diesen|dieser|der) (?:artikel|beitrag)\W*"
    r"|cet article (?:vous a-t-il été|était-il) utile\W*|¿?(?:te|le) (?:ha )?(?:resultado|resultó) útil\W*"
    r"|hier können sie (?:den|diesen) (?:artikel|beitrag) bewerten\W*"
    r"|share this (?:article|post|story|page)\W*|(?:möchten sie|willst du) (?:den|diesen) (?:artikel|beitrag) teilen\W*"
    r"|(?:diesen )?(?:artikel|beitrag) teilen\W*|partager (?:cet|l')article\W*|compart(?:e|ir) (?:este|el) artículo\W*",
    re.IGNORECASE,
)
"""What asks the reader to act: a prompt to sign in before acting, a thread's notice that a guest
cannot ("Status: Not open for further replies.", a term and its definition in XenForo), a request
to rate or share the page, to click a control that unfolds what is there already ("Click to
expand...", "Show more", rustdoc's "Expand description", "Collapse all"), or to turn JavaScript
on (``ASKS_FOR_JAVASCRIPT``: "This slideshow requires JavaScript.", what WordPress's slideshows
say outside any ``noscript``); in English, German, French, Spanish and Italian."""


ASKS_FOR_JAVASCRIPT = re.compile(
    r"(?:[^.!?]*\b(?:requires? javascript|(?:please )?enable javascript|javascript (?:is|must be) (?:required|enabled)"
    r"|javascript aktivier(?:en|t)|aktivieren sie javascript|activ(?:er|ez) (?:le )?javascript"
    r"|habilit(?:ar|e) (?:el )?javascript|attiva(?:re)? javascript)\b[^.!?]*[.!?]?\s*){1,2}",
    re.IGNORECASE,
)
"""A request to turn JavaScript on, one or two sentences that may say more around it; a pattern of
its own, read only in a block that names JavaScript (``_asks``): it looks for the request from
every word of the block, which cost as much as all of ``ASKS`` on every short block of a page."""


def _asks(text: str) -> bool:
    """Whether ``text`` (a block's start, ``_reads``) only asks the reader to act."""
    return _reads(text, ASKS, ASKING_CHARS) or (
        "javascript" in text.lower() and _reads(text, ASKS_FOR_JAVASCRIPT, ASKING_CHARS)
    )


MORE = re.compile(
    r"\W*(?:(?:read|see|view) (?:more|the (?:full|whole|entire|rest of the) (?:story|article|post|review)"
    r"|(?:full|whole|entire) (?:story|article|post|review))|continue reading|keep reading"
    r"|(?:weiter|mehr) ?lesen|lire la suite|lire plus|leer más|seguir leyendo|leggi (?:di più|tutto)"
    r"|continua a leggere|lees meer|verder lezen|leia mais|ler mais|continuar lendo)\W*",
    re.IGNORECASE,
)
"""What a link to the rest of a teaser says, all it says, in English, German, French, Spanish,
Italian, Dutch and Portuguese. Not "View all" or "See all": a shop's category leads with them."""
MORE_CHARS = 40


SHOP_CONTROLS = re.compile(
    r"\W*(?:(?:sort|filter)(?: by| results)?|filters|(?:sort|filter) (?:and|&) (?:sort|filter)|refine(?: by| results)?"
    r"|(?:show|hide|clear)(?: all)? filters|clear all|results list|sortieren(?: nach)?|filtern|trier par|filtrer"
    r"|ordenar(?: por)?|filtrar|ordina per|filtra"
    r"|(?:add to )?(?:compare|wish ?list)(?: products)?|add to (?:cart|bag|basket)|quick (?:view|shop|add)"
    r"|your (?:cart|bag|basket)(?: is empty)?|new|(?:on )?sale|sold out|best ?seller)\W*",
    re.IGNORECASE,
)
"""What a shop's controls over its grid and cards say, and nothing else: "Filters", "Sort and
Filter", "Sort by:", "Refine by", "Clear all filters" (in English, German, French, Spanish and
Italian), "Compare", "+ Wishlist", "Add to cart", "Quick view", "Your cart is empty", and the badge
on a card: "New", "Sale", "Sold out", "Best seller" (not "Best sellers", a shop's section)."""
SHOP_CONTROL_CHARS = 30
ACCOUNT = re.compile(
    r"\W*(?:(?:sign|log) ?(?:in|on|up)(?: or (?:sign|log) ?(?:in|up)| or register| with \w+)?|register(?: now)?"
    r"|create (?:an |your |a free )?account|my account)\W*",
    re.IGNORECASE,
)
"""What the controls of a visitor's account say, and nothing else: "Sign in", "Log in or sign up",
"Register", "Create an account", "Sign in with Google", "My account". Blocks only (``ACCOUNT_TAGS``):
not a heading (an authentication guide's section "Sign in"), nor a link in a sentence ("see the
login article")."""
ACCOUNT_TAGS = frozenset({"p", "div", "li", "label"})
ACCOUNT_CHARS = 40
SHOP_CONTROL_TAGS = frozenset({"p", "div", "label", "li", "summary"})
"""Blocks only: not headings (a template language's reference has a section called "Filters"),
nor what runs in a line (a sentence's **filter**, Python's ``list.sort``, rustdoc's ``fn sort``),
nor a block holding code (``filter()`` in a list of functions)."""


ASKING_TAGS = frozenset({"p", "div", "span", "h2", "h3", "h4", "h5", "h6", "li", "strong", "em", "a", "dl"})


ASKING_CHARS = 160


CONTROL_TAGS = ASKING_TAGS | SHOP_CONTROL_TAGS | ACCOUNT_TAGS
CONTROL_CHARS = max(ASKING_CHARS, MORE_CHARS, SHOP_CONTROL_CHARS, ACCOUNT_CHARS)
"""What ``drop_controls`` reads of a block, once, for all it looks for: no more is said by any."""


def drop_permalinks(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop permalinks: the ``¶``, ``§`` or ``#`` a documentation generator sets beside each heading
    (Sphinx's and MkDocs' ``headerlink``, rustdoc's ``anchor``, GitHub's octicon), a link to the
    very heading, definition or section it sits in.

    A reader copies the address from it; in Markdown it is a stray ``[¶](#id)`` on every heading,
    and a page decoded wrongly upstream turns the symbol into a word (``Â¶``). One is an ``a``
    whose ``href`` is ``#`` and the ``id`` of an element around it, and whose text has no letter or
    digit, or a few characters and a class that names it (``PERMALINK_NAMES``). A footnote
    marker (``<a href="#note-1">*</a>``) points elsewhere, and stays.
    """
    candidates = [link for link in content.iter("a") if (link.get("href") or "").startswith("#")]
    if not candidates:
        return
    measures = measures or Measures(content)
    permalinks = [link for link in candidates if is_permalink(link, measures)]
    if permalinks:
        measures.recount(remove_each(permalinks, measures))


def is_permalink(link: Element, measures: Measures) -> bool:
    """Whether ``link`` is a permalink (``drop_permalinks``): it points to ``#`` the ``id`` of an
    element around it and says nothing; or it has a class that names it and says nothing, wherever
    it points (Sphinx's ``headerlink`` to the empty ``span`` a label sets before the heading, as
    Django's documentation has it), or points to the heading it sits beside and says no more than
    that heading's name (Starlight's ``sl-anchor-link``, whose text for screen readers is "Section
    titled “Steps”")."""
    target = _fragment(link)
    if not target:
        return False
    text = "".join(link.itertext()).strip()
    if _says_nothing(link, text) and _named_around(link, target, PERMALINK_LEVELS, measures):
        return True
    if class_words(link).isdisjoint(PERMALINK_NAMES):
        return False
    if not _WORD.search(text):
        return True
    heading = next(
        (
            node
            for node in (measures.previous(link), measures.following(link))
            if node is not None and node.tag in HEADINGS
        ),
        None,
    )
    return (
        heading is not None
        and heading.get("id") == target
        and (_says_nothing(link, text) or " ".join(heading.itertext()).strip() in text)
    )


def links_its_heading(link: Element, measures: Measures) -> bool:
    """Whether ``link``, in a heading, points to that heading: its ``id``, or that of the block it
    opens (a section, a wrapper), ``#`` and the name. MDN sets each heading's text so; unlike a
    permalink, it says the heading's words, and stays with them."""
    target = _fragment(link)
    if not target:
        return False
    heading = next((node for node in itertools.islice(ancestors(link, measures), 2) if node.tag in HEADINGS), None)
    return heading is not None and _named_around(heading, target, HEADING_ANCHOR_LEVELS, measures)


HEADING_ANCHOR_LEVELS = 3
"""Where a heading's own anchor is looked for: the heading, the block it opens, that block's wrapper."""


def _fragment(link: Element) -> str:
    """The ``id`` a same-page link (``#name``) points to, or ``""`` for a link to anywhere else."""
    href = link.get("href") or ""
    return href[1:] if href[:1] == "#" else ""


def _named_around(element: Element, target: str, levels: int, measures: Measures) -> bool:
    """Whether ``element`` or one of the elements around it, ``levels`` in all, has the ``id`` ``target``."""
    holders = itertools.islice(itertools.chain((element,), ancestors(element, measures)), levels)
    return any(holder.get("id") == target for holder in holders)


def _says_nothing(link: Element, text: str) -> bool:
    return not _WORD.search(text) or (len(text) <= PERMALINK_CHARS and bool(class_words(link) & PERMALINK_NAMES))


PERMALINK_NAMES = frozenset({"headerlink", "permalink", "anchor", "anchorjs"})
PERMALINK_CHARS = 3
"""A link its class names a permalink may say a little: a symbol the page's own decoding turned
into letters (``Â¶``)."""
PERMALINK_LEVELS = 4
"""How far up a permalink's target is looked for: the link, its heading or term, the section."""
_WORD = re.compile(r"\w")


def drop_source_links(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop the marks a reference sets beside each item it documents: the link to the item's code
    (rustdoc's "Source", Sphinx viewcode's "[source]", pkgsite's "View Source") and the release it
    came in (rustdoc's ``since``: "1.0.0 (const: 1.48.0)"), with the block that holds them when it
    then says nothing (rustdoc's ``rightside``, left its " · ").

    A reader reads the item, not where its code is kept; in Markdown they are a line of their own
    over every function. A source link says only that (``SOURCE_LABEL``) and leads to a file of
    code (``SOURCE_FILE``); "Source" citing a study links to the study, and stays.
    """
    measures = measures or Measures(content)
    chars = measures.chars
    marks = [
        element
        for element in outside_code(content)
        if (element.tag == "a" and 0 < chars.get(element, 0) <= SOURCE_LABEL_CHARS and _links_the_code(element))
        or (element.tag == "span" and "since" in (element.get("class") or "") and _a_version_mark(element))
    ]
    if not marks:
        return
    marked = set(marks)
    holders = {holder for mark in marks if (holder := measures.parent.get(mark)) is not None and holder.tag in INLINE}
    marks += [holder for holder in holders if not _WORD.search(_text_besides(holder, marked))]
    measures.recount(remove_each(marks, measures))


def _links_the_code(link: Element) -> bool:
    return bool(SOURCE_LABEL.match("".join(link.itertext()).strip())) and bool(
        SOURCE_FILE.search(link.get("href") or "")
    )


def _a_version_mark(span: Element) -> bool:
    return "since" in class_words(span) and bool(VERSION.match(text_start(span, 20)))


def _text_besides(holder: Element, marks: set[Element]) -> str:
    """What ``holder`` says outside ``marks``: its own text, its other children's and the tails."""
    parts = [holder.text or ""]
    for child in holder:
        if child not in marks:
            parts.append("".join(child.itertext()))
        parts.append(child.tail or "")
    return "".join(parts)


SOURCE_LABEL = re.compile(r"\[?(?:view )?(?:source|src)(?: code)?\]?$", re.IGNORECASE)
SOURCE_LABEL_CHARS = 20
SOURCE_FILE = re.compile(
    r"(?:^|/)(?:src|_modules|source|blob)/|\.(?:rs|py|go|ts|js|java|kt|swift|rb|c|h|cc|cpp|cs)(?:\.html)?(?:[#?;]|$)"
)
"""A path into a repository's code (``src/``, Sphinx's ``_modules/``, a forge's ``blob/``) or to a
file of code, rendered (rustdoc's ``result.rs.html#557``) or not."""
VERSION = re.compile(r"\s*\d+(?:\.\d+)+")


def drop_line_numbers(content: Element, *, article: bool, measures: Measures | None = None) -> None:
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
        removed = drop_where(content, lambda child, tag: child in gutters)
        if measures is not None:
            measures.recount(removed)


def _numbers(words: list[str]) -> bool:
    """Whether ``words`` could be a gutter's line numbers: decimals, none longer than
    ``LINE_NUMBER_DIGITS`` (past Python's 4,300, ``int`` refuses to read a number at all)."""
    return bool(words) and all(word.isdecimal() and len(word) <= LINE_NUMBER_DIGITS for word in words)


LINE_NUMBER_DIGITS = 7
"""The digits of a line number: a file of a million lines has seven."""


def drop_placeholders(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop placeholders: "Loading…", and the template's filler text ("Lorem ipsum dolor sit amet…").

    "Loading…" is what a page shows until its script puts the real thing there: a reader who waits
    never sees it, and an extractor that does not run the script has nothing to put in its place.
    Only an element that says nothing else is one (``PLACEHOLDER``); a sentence that mentions
    loading is text. Filler is the Latin a designer sets where copy will go, left in a template's
    unused slides and cards: a block of running text (no block inside it) that opens with it
    (``FILLER``) goes, unless the filler is ``FILLER_SHARE`` or more of the content: a template
    never filled in is all the page there is.
    """
    said = _said(content, measures)
    if PLACEHOLDER_ANYWHERE.search(said):
        removed = drop_where(
            content,
            lambda child, tag: (
                tag in PLACEHOLDER_TAGS and not len(child) and bool(PLACEHOLDER.fullmatch((child.text or "").strip()))
            ),
        )
        if measures is not None:
            measures.recount(removed)
    if "lorem ipsum" in said:
        measures = measures or Measures(content)
        filler = [element for element in content.iter() if _is_filler(element)]
        if sum(measures.chars.get(element, 0) for element in filler) < FILLER_SHARE * measures.chars.get(content, 0):
            measures.recount(remove_each(filler, measures))


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
PLACEHOLDER_ANYWHERE = re.compile(PLACEHOLDER.pattern)
"""The same, searched for in lower-cased text (as ``CREDIT_ANYWHERE``)."""
FILLER = re.compile(r"lorem ipsum(?: dolor\b|$)", re.IGNORECASE)
"""Filler opens with "Lorem ipsum dolor", or is a heading saying "Lorem Ipsum"; a sentence about it
("Lorem Ipsum is simply dummy text…") is text."""
FILLER_SHARE = 0.9


PLACEHOLDER_TAGS = BLOCKS | INLINE
