"""The fast parser (lexbor) and the reference one (html5lib) implement the same WHATWG algorithm:
on a sample of both corpora (kept in the repository, ``data/extraction/README.md``) they must give
the same Documents, or the same score within 0.002."""

import gzip
import json
from pathlib import Path

import pytest
from script_modules import load_script
from steward_websearch.extraction import document, parse
from steward_websearch.extraction.tree import MAX_DEPTH

CORPORA = Path(__file__).parent / "data" / "extraction"
SVG = "{http://www.w3.org/2000/svg}"
MATHML = "{http://www.w3.org/1998/Math/MathML}"


def test_the_fast_parser_is_the_default_when_installed():
    assert parse.LexborHTMLParser is not None, "make install installs selectolax (lexbor)"
    assert parse.DEFAULT_PARSER == "lexbor"


def test_trees_have_the_same_shape():
    html = (
        '<!doctype html><html lang="en"><body><p hidden>One<!-- c -->two<b>three</b>four'
        '<svg viewBox="0 0 1 1"><path d="M0"/></svg><table><td>cell</table>'
    )
    fast, reference = parse.parse_html(html, "lexbor"), parse.parse_html(html, "html5lib")
    assert shape(fast) == shape(reference)
    assert fast.find("body/p").get("hidden") == ""


def shape(root):
    return [(e.tag, dict(e.attrib), e.text, e.tail) for e in root.iter()]


@pytest.mark.parametrize("parser", ["lexbor", "html5lib"])
def test_a_drawing_or_a_formula_comes_back_empty_and_the_text_around_it_stays(parser):
    """What ``svg`` and ``math`` hold is never read as text; copying an icon set's paths only costs."""
    html = (
        "<p>Before<svg viewBox='0 0 1 1'><title>icon</title><g><path d='M0'/><path d='M1'/></g></svg>after"
        "<math><mi>x</mi><mo>=</mo><mn>2</mn></math>end</p>"
    )
    paragraph = parse.parse_html(html, parser).find("body/p")
    drawing, formula = list(paragraph)
    assert (drawing.tag, drawing.get("viewBox"), len(drawing), drawing.text) == (f"{SVG}svg", "0 0 1 1", 0, None)
    assert (formula.tag, len(formula)) == (f"{MATHML}math", 0)
    assert (paragraph.text, drawing.tail, formula.tail) == ("Before", "after", "end")


def test_server_code_left_in_a_page_is_a_comment_to_both():
    """``<?php … ?>`` that a template never ran is a bogus comment in HTML, not an element."""
    html = "<?xml version='1.0'?><body><div><?php if (x) { ?><p>kept</p><?php } ?>tail</div>"
    fast, reference = parse.parse_html(html, "lexbor"), parse.parse_html(html, "html5lib")
    assert [(e.tag, e.text, e.tail) for e in fast.iter()] == [(e.tag, e.text, e.tail) for e in reference.iter()]
    assert "".join(fast.find("body").itertext()) == "kepttail"


def test_deep_nesting_is_no_recursion_problem():
    depth = parse.MAX_NESTING - 10
    root = parse.parse_html("<div>" * depth + "deep" + "</div>" * depth, "lexbor")
    assert "".join(root.itertext()).strip() == "deep"


@pytest.mark.parametrize("parser", ["lexbor", "html5lib"])
def test_an_element_max_depth_deep_comes_back_as_its_text(parser):
    """Both parsers cap the tree at ``tree.MAX_DEPTH``: deeper markup is read as its text, the same."""
    opened = "<section><div>" * 100
    root = parse.parse_html(
        f"<body>{opened}deep <b>and  <i>bold</i></b> text{'</div></section>' * 100}<p>after", parser
    )
    path = [root.find("body")]
    while len(path[-1]):
        path.append(path[-1][0])
    assert len(path) == MAX_DEPTH
    assert path[-1].text == "deep and bold text"
    assert root.find("body/p").text == "after"


@pytest.mark.parametrize("parser", ["lexbor", "html5lib"])
def test_a_highlighters_tokens_come_back_as_the_text_of_the_code(parser):
    """Pygments, Prism and Shiki set every word of code in a ``span`` of its own, a quarter of a
    documentation page's elements; the code is their text, whitespace and lines as they were."""
    html = (
        '<pre class="highlight"><span></span><span class="kn">import</span> <span class="nn">os</span>\n'
        '<span class="line"><span style="color:#D73A49">def</span> <span class="nf">f</span>():</span></pre>'
        '<p>Call <code class="docutils literal"><span class="pre">os.getcwd()</span></code> first.</p>'
    )
    body = parse.parse_html(html, parser).find("body")
    pre, paragraph = list(body)
    assert (pre.text, [line.tag for line in pre], pre[0].text, pre[0].tail) == (
        "import os\n",
        ["span"],
        "def f():",
        None,
    ), "the line wraps its tokens: a span of more than text stays, its tokens are its text"
    assert (paragraph[0].text, len(paragraph[0])) == ("os.getcwd()", 0)


def test_both_parsers_read_a_highlighted_block_to_the_same_tree():
    lines = "".join(
        f'<span class="line" id="L{n}"><span class="k">let</span> <span class="n">x{n}</span>'
        f'<span class="hl"><span class="o">=</span></span> <span class="m"><span class="mi">{n}</span> </span>'
        f'<span class="p"><span class="o"><span class="p">;</span></span></span></span>\n'
        for n in range(40)
    )
    end = '<span class="line"><span class="c">// end</span></span><span class="code-line">}</span>'
    html = f'<body><div class="highlight"><pre><code class="language-rust">{lines}{end}</code></pre></div>'
    fast, reference = parse.parse_html(html, "lexbor"), parse.parse_html(html, "html5lib")
    assert shape(fast) == shape(reference)
    assert [span.get("class") for span in fast.findall(".//span")[:3]] == ["line", "m", "p"], (
        "each line stays, and so does a span of a token and a space, and one of a token of a token;"
        " a span of one token is its text"
    )
    assert [(span.get("class"), span.text) for span in fast.findall(".//span")[120:]] == [
        ("line", "// end"),
        ("code-line", "}"),
    ], "a line stays a line, however little it holds"
    assert "".join(fast.find(".//code").itertext()).splitlines()[7] == "let x7= 7 ;"


@pytest.mark.parametrize("parser", ["lexbor", "html5lib"])
def test_a_declarations_tokens_are_its_text_though_it_is_in_no_code(parser):
    """Sphinx sets each documented function's signature as code, in spans of tokens, but in a ``dt.sig``."""
    html = (
        '<dl class="py function"><dt class="sig sig-object py" id="requests.get">'
        '<span class="sig-prename descclassname"><span class="pre">requests.</span></span>'
        '<span class="sig-name descname"><span class="pre">get</span></span><span class="sig-paren">(</span>'
        '<em class="sig-param"><span class="n"><span class="pre">url</span></span></em>'
        '<span class="sig-paren">)</span></dt><dd><p><span class="n">Sends</span> a GET request.</p></dd></dl>'
    )
    body = parse.parse_html(html, parser).find("body")
    signature = body.find("dl/dt")
    assert (signature.text, [child.tag for child in signature], signature[0].text) == ("requests.get(", ["em"], "url")
    assert "".join(signature.itertext()) == "requests.get(url)"
    assert body.find("dl/dd/p/span").text == "Sends", "outside a declaration a span stays an element"


@pytest.mark.parametrize("parser", ["lexbor", "html5lib"])
def test_a_span_in_code_that_hides_or_says_more_than_its_class_stays_an_element(parser):
    html = (
        '<pre>visible<span class="hidden">secret</span><span style="display: none">more</span>'
        '<span id="line-3" class="k">x</span><span class="k" data-line="4">y</span><b class="k">z</b></pre>'
        '<p><span class="k">outside code</span></p>'
    )
    body = parse.parse_html(html, parser).find("body")
    assert [(span.tag, span.text) for span in body.find("pre")] == [
        ("span", "secret"),
        ("span", "more"),
        ("span", "x"),
        ("span", "y"),
        ("b", "z"),
    ]
    assert body.find("p/span").text == "outside code"
    markdown = document.extract(html.encode(), url="https://example.org/", content_type="text/html").markdown
    assert "secret" not in markdown
    assert "more" not in markdown
    assert "visiblexyz" in markdown


@pytest.mark.parametrize("parser", ["lexbor", "html5lib"])
def test_a_highlighters_tokens_count_toward_the_element_budget(parser, monkeypatch):
    monkeypatch.setattr(parse, "MAX_ELEMENTS", 1_000)
    with pytest.raises(parse.PageTooComplex, match="more than 1,000 elements"):
        parse.parse_html("<pre>" + '<span class="k">a</span>' * 1_200 + "</pre>", parser)


@pytest.mark.parametrize("corpus", ["scrapinghub", "wcxb-dev"])
def test_both_parsers_give_the_same_documents_on_the_corpora(corpus, monkeypatch):
    folder = CORPORA / corpus
    truth = json.loads((folder / "ground-truth.json").read_text())
    outputs: dict[str, list[str]] = {"lexbor": [], "html5lib": []}
    for name in outputs:
        monkeypatch.setattr(document, "parse_html", lambda source, name=name: parse.parse_html(source, name))
        for key in sorted(truth):
            body = gzip.decompress((folder / "html" / f"{key}.html.gz").read_bytes())
            outputs[name].append(document.extract(body, url=truth[key]["url"], content_type="text/html").markdown)
    same = sum(a == b for a, b in zip(outputs["lexbor"], outputs["html5lib"], strict=True))
    bench = load_script("bench/extraction.py", "bench_extraction")
    truths = [truth[key]["articleBody"] for key in sorted(truth)]
    f1 = {
        name: bench.score([(t, bench.plain(o)) for t, o in zip(truths, found, strict=True)])[2]
        for name, found in outputs.items()
    }
    assert same >= 0.9 * len(truth), f"only {same} of {len(truth)} documents are identical"
    assert abs(f1["lexbor"] - f1["html5lib"]) <= 0.002, f1


@pytest.mark.parametrize("parser", ["lexbor", "html5lib"])
def test_a_frame_left_open_in_a_noscript_does_not_swallow_the_page(parser):
    html = (
        '<body><noscript><iframe src="https://tags.example/ns.html" height="0" width="0" /></noscript>'
        "<main><h1>Intuitive infrastructure</h1><p>Deploy from your repository.</p></main>"
        "<noscript><p>A thread for readers without JavaScript.</p></noscript></body>"
    )
    body = parse.parse_html(html, parser).find("body")
    assert body.find("main/h1").text == "Intuitive infrastructure", "the page is not the text of an invisible frame"
    assert body.find("noscript/iframe") is not None
    assert "A thread for readers without JavaScript." in "".join(body.itertext())


def test_a_closed_frame_and_text_outside_noscript_are_left_as_they_are():
    html = '<noscript><iframe src="/a"></iframe></noscript><p>text</p><iframe src="/b" />'
    assert parse.close_frames_in_noscript(html) == html
