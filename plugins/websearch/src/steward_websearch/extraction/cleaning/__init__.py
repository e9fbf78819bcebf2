"""Cleaning the chosen content: one look inside the block that holds it, then a list of passes.

:func:`clean` runs once, when a block was chosen as the main content, and judges that block's
parts by what they say about themselves (:mod:`.block`). Then every pass of :data:`PASSES` runs,
in order, on whatever will be rendered: each is a function that drops one kind of thing no
reader came for, says in its docstring what and why, and has its own tests
(``tests/websearch/test_cleaning_passes.py``). Every pass takes the content and whether the page
declares itself an article, so the list stays one shape; most passes do not need the latter.
"""

from __future__ import annotations

from collections.abc import Callable
from xml.etree.ElementTree import Element

from steward_websearch.extraction.cleaning.block import clean
from steward_websearch.extraction.cleaning.contents import drop_menus, drop_tables_of_contents
from steward_websearch.extraction.cleaning.copies import drop_before_title, drop_closing_labels, drop_second_copies
from steward_websearch.extraction.cleaning.furniture import (
    drop_bylines,
    drop_contents_labels,
    drop_controls,
    drop_credits,
    drop_disclosures,
    drop_line_numbers,
    drop_permalinks,
    drop_placeholders,
    drop_reading_times,
    drop_source_links,
    drop_update_notes,
)
from steward_websearch.extraction.cleaning.rails import drop_repeated_labels, drop_teasers
from steward_websearch.extraction.cleaning.threads import drop_posts_furniture
from steward_websearch.extraction.tree import Measures

Pass = Callable[..., None]
"""``(content, *, article, measures=None) -> None``: drops what it finds, in place, and leaves
``measures`` (when given: the content's, up to date) up to date for the next pass, which saves
each pass measuring the content anew."""

PASSES: tuple[Pass, ...] = (
    drop_posts_furniture,
    drop_menus,
    drop_tables_of_contents,
    drop_controls,
    drop_permalinks,
    drop_source_links,
    drop_line_numbers,
    drop_placeholders,
    drop_credits,
    drop_bylines,
    drop_disclosures,
    drop_reading_times,
    drop_contents_labels,
    drop_teasers,
    drop_repeated_labels,
    drop_update_notes,
    drop_second_copies,
    drop_before_title,
    drop_closing_labels,
)
"""The passes in the order they run; every ``make bench`` figure was measured with this order."""


def tidy(content: Element, *, article: bool, measures: Measures | None = None) -> None:
    """Run every pass of :data:`PASSES` on ``content``, in order; ``measures`` are the content's
    as it stands, when the caller has them (``clean`` hands them on)."""
    measures = measures or Measures(content)
    for cleaning_pass in PASSES:
        cleaning_pass(content, article=article, measures=measures)


__all__ = ["PASSES", "clean", "tidy"]
