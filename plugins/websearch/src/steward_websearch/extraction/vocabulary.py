"""The HTML tag vocabulary extraction works with, in one place: what is a block, what is inline,
what never renders text, what is page furniture."""

from __future__ import annotations

HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
SECTION_HEADINGS = HEADINGS - {"h1"}
"""The headings of a page's sections: ``h1`` is the page's title."""

BLOCKS = HEADINGS | frozenset(
    """address article aside blockquote body center dd details dialog div dl dt fieldset figcaption figure
    footer form header hgroup hr html li main nav noscript ol p pre section summary table tbody td tfoot th
    thead tr ul""".split()
)
"""Elements that start a new block of text when rendered.

``noscript`` is among them: a page fetched without JavaScript is read as a browser without it shows
it, and forums (Discourse) put the whole thread there for such readers.
"""

INLINE = frozenset("a b strong em i span font small big u sub sup abbr cite q mark time code br".split())
"""Elements that run on within a line of text."""

NEVER_TEXT = frozenset(
    """script style template svg math iframe object embed canvas head title link meta img picture video
    audio source track map area input button select textarea option rp rt""".split()
)
"""Elements whose content a reader never sees as text; and ruby's readings (``rt``, with the ``rp``
parentheses a browser without ruby shows), set small above the text they annotate, not in it."""

MEDIA = frozenset("img picture video audio source track map area".split())

UNSEEN = NEVER_TEXT - MEDIA - {"head", "title"}
"""Removed from every rendering: what never renders text, and form controls."""

FURNITURE = frozenset("nav aside footer dialog menu figcaption".split())
"""Page furniture: navigation, asides, footers, dialogs; and figure captions, a picture's credit
and description rather than the text's. Removed before the main content is looked for, kept in
the whole page."""

CODE = frozenset({"pre", "code"})
"""Elements whose text is verbatim: every character and line break of it is kept as it is."""

LISTS = frozenset({"ul", "ol"})
TABLE_CELLS = frozenset({"td", "th"})
PICTURES = frozenset({"img", "picture", "video"})
