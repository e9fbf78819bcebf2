"""A thread's posts, read for what their posters wrote: quotes of earlier posts, the posters'
statistics and, where each post sets its body apart, everything around that body go.

A forum thread, a Q&A page, a comment section is a list of records alike (``blocks.record_kind``),
one per post. Around what the poster wrote, the forum says who wrote it (a name linking to a
profile), when, the post's number, buttons to like or reply, and facts about the poster: the date
they joined, their message count, their country ("Joined Apr 12, 2008 · Messages 7,909 · England").
A reply also often quotes the post it answers, word for word, and the reader then meets the same
paragraphs twice or more. WCXB's annotated forum pages leave all of these out: a thread is read as
what its posters wrote, post after post.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice
from xml.etree.ElementTree import Element

from steward_websearch.extraction.blocks import MEMBER_PROFILE, RECORDS, Kind, is_dated, record_kind
from steward_websearch.extraction.cleaning.block import LIST_ITEM, siblings_alike
from steward_websearch.extraction.roles import class_words
from steward_websearch.extraction.tree import Measures, ancestors, paragraph_text, remove_each
from steward_websearch.extraction.vocabulary import INLINE

POSTERS = frozenset({"user", "author", "poster", "member", "profile", "userinfo", "postprofile"})
"""Names of the blocks that say who posted."""

STATISTICS_CHARS = 300
"""A poster's statistics say this much at most: a few fields ("Joined: Apr 12, 2008")."""

SENTENCE = re.compile(r"\w{2,}[.!?](?:\s|$)")
"""A written sentence's end: what a post says, however short ("Thanks, that did it."); fields say none."""

QUOTED_SHARE = 0.6
"""A quote this much of whose runs of words an earlier post said is a copy of that post."""

BODY_SHARE = 0.8
"""A kind of block found once in every post that holds this much of the posts' text is their body:
what the posters wrote. Name, date, number and buttons around it say the rest, a few words a post."""

RUN = 4
"""Words in a run: a quote is compared with earlier posts four words at a time, as the corpora score."""


def drop_posts_furniture(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Drop, from the posts of a thread in ``content``, the quotes of earlier posts, the posters'
    statistics and what each post says around its body.

    A thread is a list of siblings alike (``siblings_alike``; not paragraphs, nor a plain list's
    items) of which ``RECORDS`` or more, and more than half, link to their poster's profile
    (``MEMBER_PROFILE``); every one of them is a post, a guest's too, whose name links nowhere. A
    listing's entries, a blog's index of stories with their authors (``/authors/ada``), link to no
    member's profile and are left alone. Each thread is read on its own: the similar threads listed
    under a thread link to their starters' profiles too, and are no posts of it. A quote of an
    earlier post is a ``blockquote`` ``QUOTED_SHARE`` of whose runs of words an earlier post says
    (a quote of a source the thread has not seen stays). The poster's statistics are a block named
    for the poster (``POSTERS``: XenForo's ``message-userExtras``) that does not hold the link to
    the poster's profile, writes no sentence, says at most ``STATISTICS_CHARS`` and is not the
    post's date line ("Posted Jan 5, 2024" under a block named ``author``; the date they joined
    comes among fields, in a ``dl``). A post's body is found by ``_bodies``; where a thread has
    none (posts written straight into their records), the post's name and date stay.

    Content with fewer than ``RECORDS`` links to profiles holds no thread, and its blocks are not
    grouped at all: most pages are no thread.
    """
    profiles = (anchor for anchor in content.iter("a") if _links_to_a_profile(anchor))
    if len(list(islice(profiles, RECORDS))) < RECORDS:
        return
    measures = measures or Measures(content)
    dropped: list[Element] = []
    for _, kind, members in siblings_alike(content, measures):
        if kind == LIST_ITEM or kind[0] == "p":
            continue
        posters = sum(1 for post in members if any(_links_to_a_profile(anchor) for anchor in post.iter("a")))
        if posters >= RECORDS and posters * 2 > len(members):
            dropped.extend(_furniture(members, measures))
    measures.recount(remove_each(dropped, measures))


def _furniture(posts: list[Element], measures: Measures) -> Iterator[Element]:
    """What one thread's posts hold besides what their posters wrote."""
    said: set[tuple[str, ...]] = set()
    for post in posts:
        yield from (quote for quote in post.iter("blockquote") if _repeats(quote, said))
        yield from _statistics(post, measures)
        said.update(_runs(" ".join(_own_text(post))))
    bodies = _bodies(posts, measures)
    if bodies:
        for post, body in zip(posts, bodies, strict=True):
            yield from _around_body(post, body, measures)


def _bodies(posts: list[Element], measures: Measures) -> list[Element]:
    """Each post's body, in the order of ``posts``; none when the posts set no body apart.

    The bodies are of one kind (``record_kind``), found exactly once inside every post, and hold
    ``BODY_SHARE`` of the posts' text. Of two such kinds one holds the other (each holds most of
    the text); the inner one, holding less, is the body, the outer a wrapper."""
    singles: list[dict[Kind, Element]] = []
    for post in posts:
        found: dict[Kind, Element] = {}
        repeated: set[Kind] = set()
        for node in post.iter():
            if node is not post and (kind := record_kind(node)):
                if kind in found:
                    repeated.add(kind)
                found[kind] = node
        singles.append({kind: node for kind, node in found.items() if kind not in repeated})
    held = {  # in the first post's order: of two kinds that hold as much, the outer one is found first
        kind: sum(measures.chars.get(found[kind], 0) for found in singles)
        for kind in singles[0]
        if all(kind in found for found in singles)
    }
    total = sum(measures.chars.get(post, 0) for post in posts)
    kinds = [kind for kind, chars in held.items() if chars >= BODY_SHARE * total]
    body = min(kinds, key=held.__getitem__, default=None)
    return [] if body is None else [found[body] for found in singles]


def _around_body(post: Element, body: Element, measures: Measures) -> Iterator[Element]:
    """What ``post`` holds beside its ``body`` and beside each block wrapping the body."""
    inner = body
    for wrapper in ancestors(body, measures):
        yield from (child for child in wrapper if child is not inner)
        if wrapper is post:
            return
        inner = wrapper


def _statistics(post: Element, measures: Measures) -> Iterator[Element]:
    stack = list(post)
    while stack:
        element = stack.pop()
        if not isinstance(element.tag, str) or element.tag in ("pre", "code", "blockquote"):
            continue
        if _is_statistics(element, measures):
            yield element
        else:
            stack.extend(element)


def _is_statistics(element: Element, measures: Measures) -> bool:
    if element.tag in INLINE or not class_words(element) & POSTERS:
        return False
    if not 0 < measures.chars.get(element, 0) <= STATISTICS_CHARS:
        return False
    if any(_links_to_a_profile(anchor) for anchor in element.iter("a")):
        return False
    if is_dated(element) and next(element.iter("dl"), None) is None:
        return False
    return not SENTENCE.search(paragraph_text(element))


def _links_to_a_profile(anchor: Element) -> bool:
    return bool(MEMBER_PROFILE.search(anchor.get("href") or ""))


def _repeats(quote: Element, said: set[tuple[str, ...]]) -> bool:
    runs = _runs(paragraph_text(quote))
    return bool(runs) and len(runs & said) >= QUOTED_SHARE * len(runs)


def _own_text(post: Element) -> Iterator[str]:
    """The text of ``post`` outside its quotes (a quote's tail is the post's again)."""
    quotes = list(post.iter("blockquote"))
    quoted = {id(node) for quote in quotes for node in quote.iter()}
    inside = {id(node) for quote in quotes for node in quote.iter() if node is not quote}
    for node in post.iter():
        if node.text and id(node) not in quoted:
            yield node.text
        if node.tail and node is not post and id(node) not in inside:
            yield node.tail


def _runs(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", text.lower())
    return {tuple(words[i : i + RUN]) for i in range(len(words) - RUN + 1)}
