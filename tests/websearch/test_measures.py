"""``tree.Measures`` kept up to date as the tree is cut: ``recount`` gives the counts a new
``Measures`` would, and the cleaning passes sharing one leave it as they found it, true."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from steward_websearch.extraction import boilerplate, cleaning, document, parse
from steward_websearch.extraction.tree import Measures, drop_where, paragraph_text, remove_each, text_start

CORPORA = Path(__file__).parent / "data" / "extraction"


def counts(measures: Measures, root) -> list[tuple[int, int, int]]:
    return [(measures.chars[e], measures.link_chars[e], measures.prose_chars[e]) for e in root.iter()]


def tree():
    return parse.parse_html(
        "<body><div id='a'>lead <p>One <a href='/x'>link</a> and words enough.</p> tail text"
        "<div id='b'><p>Inside <b>bold</b></p><span>gone</span> after gone</div></div>"
        "<p><a href='/y'>all a link</a></p><ul><li>first</li><li>second</li></ul></body>"
    ).find("body")


def test_recount_after_remove_each_is_a_new_measure():
    body = tree()
    measures = Measures(body)
    doomed = [body.find(".//span"), body.find("ul")[0], body.find("p")]
    measures.recount(remove_each(doomed, measures))
    assert counts(measures, body) == counts(Measures(body), body)
    whole = tree()
    assert measures.chars[body] < Measures(whole).chars[whole]


def test_recount_after_drop_where_is_a_new_measure_and_drop_where_says_what_went():
    body = tree()
    measures = Measures(body)
    removed = drop_where(body, lambda element, tag: tag in ("a", "b"))
    assert sorted(element.tag for element in removed) == ["a", "a", "b"]
    measures.recount(removed)
    assert counts(measures, body) == counts(Measures(body), body)
    assert measures.link_chars[body] == 0


def test_what_the_tree_said_is_read_once_and_only_ever_says_more_than_the_tree_now_does():
    body = tree()
    measures = Measures(body)
    said = measures.said()
    assert said == "".join(body.itertext()).lower()
    assert "all a link" in said
    measures.recount(drop_where(body, lambda child, tag: tag == "span"))
    assert "gone after" not in "".join(body.itertext()).lower()
    assert measures.said() is said, "read once, for every pass that asks"


def first_child(html: str):
    return parse.parse_html(f"<body>{html}</body>").find("body")[0]


@pytest.mark.parametrize(
    ("leaf", "nested"),
    [
        ("<p>  Read\n   more  </p>", "<p>  Read <b>\n   more</b>  </p>"),
        ("<p>" + "word " * 50 + "</p>", "<p>" + "word " * 25 + "<i>" + "word " * 25 + "</i></p>"),
    ],
)
def test_the_start_of_a_block_is_the_start_of_its_text_a_leaf_or_not(leaf, nested):
    for html in (leaf, nested):
        element = first_child(html)
        for chars in (1, 4, 10, 41, 300):
            assert text_start(element, chars) == paragraph_text(element)[:chars]


def test_a_text_node_is_read_at_most_eight_times_as_long_as_asked_a_leaf_or_not():
    leaf, nested = (
        first_child("<p>" + " " * 500 + "late words</p>"),
        first_child("<p><b></b>" + " " * 500 + "late words</p>"),
    )
    assert text_start(leaf, 10) == text_start(nested, 10) == ""
    assert text_start(leaf, 300) == text_start(nested, 300) == "late words"


@pytest.mark.parametrize("corpus", ["scrapinghub", "wcxb-dev"])
def test_the_passes_sharing_one_measure_keep_it_true_on_the_corpora(corpus, monkeypatch):
    """After ``clean`` and after each pass, the shared measure counts what a new one would,
    element by element."""
    folder = CORPORA / corpus
    truth = json.loads((folder / "ground-truth.json").read_text())
    checked: list[str] = []
    handed_on: list[str] = []

    def tidy(content, *, article, measures=None):
        if measures is not None:
            assert counts(measures, content) == counts(Measures(content), content), "clean"
            handed_on.append(content.tag)
        measures = measures or Measures(content)
        for cleaning_pass in cleaning.PASSES:
            cleaning_pass(content, article=article, measures=measures)
            assert counts(measures, content) == counts(Measures(content), content), cleaning_pass.__name__
        checked.append(content.tag)

    monkeypatch.setattr(document.cleaning, "tidy", tidy)
    for key in sorted(truth):
        body = gzip.decompress((folder / "html" / f"{key}.html.gz").read_bytes())
        document.extract(body, url=truth[key]["url"], content_type="text/html")
    assert len(checked) >= len(truth)
    assert len(handed_on) >= len(truth) / 2, "most pages' content is chosen and cleaned, its measures handed on"


@pytest.mark.parametrize("corpus", ["scrapinghub", "wcxb-dev"])
def test_the_measure_boilerplate_hands_on_is_true(corpus):
    folder = CORPORA / corpus
    truth = json.loads((folder / "ground-truth.json").read_text())
    for key in sorted(truth):
        source = document.decode(gzip.decompress((folder / "html" / f"{key}.html.gz").read_bytes()), None, html=True)
        body = parse.parse_html(source).find("body")
        measures = boilerplate.remove_boilerplate(body, article=key.endswith("1"))
        assert counts(measures, body) == counts(Measures(body), body), key
