"""Extraction's budget: a page nested too deep or with too many elements is refused, clearly, before
the work it would cost; everything inside the budget is read."""

import pytest
from click.testing import CliRunner
from steward_websearch.cli import extract_command
from steward_websearch.extraction import PageTooComplex, extract, parse

PARSERS = ["lexbor", "html5lib"]


def html(body: str) -> bytes:
    return f"<html><body>{body}</body></html>".encode()


def test_nesting_past_the_cap_is_refused_before_any_parser_runs(monkeypatch):
    def no_parse(source):
        raise AssertionError("the page was parsed")

    monkeypatch.setattr(parse, "LexborHTMLParser", no_parse)
    monkeypatch.setattr(parse.html5lib, "parse", no_parse)
    with pytest.raises(PageTooComplex, match=r"nests elements about 100,00\d deep; extraction reads at most 8,192"):
        extract(html("<div>" * 100_000 + "deep" + "</div>" * 100_000), url="http://x/", content_type="text/html")


@pytest.mark.parametrize(
    ("source", "depth"),
    [
        ("<div>" * 9_000, 9_000),
        ("<div/>" * 9_000, 9_000),  # in HTML a self-closing div still opens a div
        ("<div></div>" * 9_000, 1),
        ("<p>one" * 9_000, 0),  # each p closes the one before
        ("<li>item" * 9_000, 0),
        ("<br><img src=x><hr>" * 3_000, 0),
        ("<svg>" + '<path d="M0" />' * 9_000 + "</svg>", 1),  # foreign elements do close themselves
        ("</div>" * 9_000 + "<div>" * 9_000, 9_000),  # stray end tags do not hide what follows
        ("<div>" * 9_000 + "<b x" * 9_000, 9_000),  # a tag never closed by a ">" is no tag
    ],
)
def test_the_nesting_estimate_reads_tags_as_the_parser_would(source, depth):
    assert parse.nesting_depth(source) == depth


def test_a_page_with_fewer_tags_than_the_cap_is_not_scanned():
    assert parse.nesting_depth("<div>" * parse.MAX_NESTING) == 0


def test_a_page_of_more_tags_than_the_cap_few_of_which_could_deepen_it_is_not_scanned(monkeypatch):
    """A long reference: thousands of ``dt``, ``dd``, ``p`` and ``li``, each closing the one before."""
    reference = "<dl>" + "<dt>name<dd><p>what it does<ul><li>one<li>two</ul>" * 3_000 + "</dl>"

    class Unread:
        def findall(self, *args):
            raise AssertionError("the page was scanned tag by tag")

    monkeypatch.setattr(parse, "_TAG", Unread())
    assert parse.nesting_depth(reference) == 0


@pytest.mark.parametrize(
    "source",
    [
        "<div>" * 9_000 + "<p>x" * 9_000,
        "<P>x" * 9_000 + "<div>" * 9_000,
        "<div>" * 9_000 + "<script>" + "'<li>'" * 9_000 + "</script>",
    ],
)
def test_what_could_deepen_the_page_is_never_counted_short(source):
    """Tags that cannot deepen the page, in any case and anywhere, never hide nesting that does."""
    assert parse.nesting_depth(source) > parse.MAX_NESTING


@pytest.mark.parametrize("parser", PARSERS)
def test_too_many_elements_are_refused_with_both_parsers(parser, monkeypatch):
    monkeypatch.setattr(parse, "MAX_ELEMENTS", 1_000)
    with pytest.raises(PageTooComplex, match="more than 1,000 elements"):
        parse.parse_html("<p><span>a</span></p>" * 600, parser)
    root = parse.parse_html("<p><span>a</span></p>" * 400, parser)
    assert len(root.findall(".//span")) == 400


def test_the_real_element_cap_holds_on_a_real_page():
    with pytest.raises(PageTooComplex, match="more than 250,000 elements"):
        extract(html("<p>" + "<span>a</span>" * 260_000 + "</p>"), url="http://x/", content_type="text/html")


def test_five_megabytes_of_text_inside_the_budget_are_read_whole():
    document = extract(html("<p>" + "word " * 1_000_000 + "</p>"), url="http://x/", content_type="text/html")
    assert document.text.count("word") == 1_000_000


def test_steward_extract_says_why_it_refused(tmp_path):
    page = tmp_path / "nested.html"
    page.write_bytes(html("<div>" * 20_000 + "</div>" * 20_000))
    result = CliRunner().invoke(extract_command, [str(page)])
    assert result.exit_code == 1
    assert "nests elements about 20,002 deep" in result.output


def test_an_attribute_bomb_is_refused_before_any_parser_runs(monkeypatch):
    def must_not_parse(*args, **kwargs):
        raise AssertionError("the parser ran")

    monkeypatch.setattr(parse, "LexborHTMLParser", must_not_parse)
    monkeypatch.setattr(parse.html5lib, "parse", must_not_parse)
    bomb = "<html><body><p " + " ".join(f"a{i}" for i in range(300_000)) + ">x</p></body></html>"
    with pytest.raises(PageTooComplex, match="300,000 attributes"):
        parse.parse_html(bomb)


def test_long_quoted_values_and_many_ordinary_attributes_are_not_a_bomb():
    path = " ".join("L 1 2" for _ in range(20_000))
    many = " ".join(f'data-{i}="a b c"' for i in range(parse.MAX_ATTRIBUTES - 10))
    page = f'<html><body><svg><path d="{path}"/></svg><p {many}>kept</p></body></html>'
    assert "kept" in "".join(parse.parse_html(page).itertext())


def test_many_elements_each_just_under_the_attribute_cap_are_refused_together():
    element = "<p " + " ".join(f"a{i}" for i in range(parse.MAX_ATTRIBUTES - 1)) + ">x</p>"
    with pytest.raises(PageTooComplex, match="more attributes than extraction reads"):
        parse.parse_html("<html><body>" + element * 4 + "</body></html>")


def test_a_script_comparing_lengths_is_not_an_element():
    script = "<script>for (i = 0; i<items.length; i++) {" + " x = x + i;" * 20_000 + "}</script>"
    assert "kept" in "".join(parse.parse_html(f"<html><body>{script}<p>kept</p></body></html>").itertext())


def test_attributes_after_long_runs_of_spaces_are_each_counted_once(monkeypatch):
    monkeypatch.setattr(parse, "MAX_ATTRIBUTES", 3)
    spaces = " \n" * 3_000
    tag = f"<p{spaces}a{spaces}b='1'{spaces}c = \"2 3\"{spaces}d/>"
    with pytest.raises(PageTooComplex, match="about 4 attributes"):
        parse.parse_html(f"<html><body>{tag}x</p></body></html>")
