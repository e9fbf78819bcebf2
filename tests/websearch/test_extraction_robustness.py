"""Extraction never fails on a page a browser would show.

Real pages (the sample kept in the repository, ``data/extraction/README.md``) are broken the ways
pages break: cut short, bytes garbled, a stretch repeated, tags left open, and markup that defies
what the passes expect dropped in anywhere (an address that is no URL in every attribute that
holds one, numbers past what Python reads, JSON-LD of the wrong shapes, entities of no
character). What comes back is a Document, or one of the errors extraction documents
(``PageTooComplex``, ``UnsupportedContent``, ``InvalidContent``); never an exception from inside.
Four crashes were found this way (a picture's address, a gutter's number, a list's number, an
attribute's name in the HTML written back), each on a page a browser shows without a word.
Each kind of markup goes into the middle of the content of a few pages; random breakage on top
is derived the same way on every run (``derandomize``): a regression guard, not a search that
fails one run in ten.
"""

import encodings.aliases
import gzip
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from steward_websearch.extraction.document import Document, InvalidContent, UnsupportedContent, extract
from steward_websearch.extraction.parse import PageTooComplex

CORPORA = Path(__file__).parent / "data" / "extraction"
PAGES = sorted(CORPORA.glob("*/html/*.html.gz"))
NO_URL = "http://[cdn/a.svg"
DIGITS = "9" * 4300
"""As many digits as Python reads into an ``int``; one more and it refuses to write the number."""
MARKUP = [
    f'<div><img src="{NO_URL}" alt="a"><img src="/b.png" srcset="{NO_URL} 2x, , x" alt="b"></div>',
    f'<a href="{NO_URL}">a link</a><a href="http://a.example:99999999/">another</a><a href="mailto:%ZZ">mail</a>',
    f'<base href="{NO_URL}"><meta http-equiv="refresh" content="0;url={NO_URL}">',
    f'<video poster="{NO_URL}"><source src="{NO_URL}"></video><object data="{NO_URL}"></object>',
    f'<blockquote cite="{NO_URL}"><p>quoted</p></blockquote><form action="{NO_URL}"><input></form>',
    f'<iframe src="{NO_URL}"></iframe><noscript><iframe src="{NO_URL}" /></noscript>',
    f'<ol start="{DIGITS}"><li>one</li><li>two</li></ol><ol reversed><li value="-{DIGITS}">one</li><li>two</li></ol>',
    f'<table><tr><td colspan="{DIGITS}" rowspan="-1"><pre>{DIGITS}1\n{DIGITS}2</pre></td><td><pre>x = 1</pre></td></tr></table>',
    f'<img src="/a.png" width="{DIGITS}" height="1e309"><time datetime="99999-99-99">{DIGITS}</time>',
    '<script type="application/ld+json">{"@type":"Product","offers":{"price":[1,{"a":null}]},"name":{"x":1}</script>',
    '<script type="application/ld+json">[{"@graph":"x"},null,1,"s",{"@type":["Article",5],"articleBody":7}]</script>',
    '<script type="application/ld+json">{"@type": "Product", "offers": {"price": "1e99999", "priceCurrency": 5}}</script>',
    "&#x110000;&#0;&#xD800;&#55296;&bogus;&amp &#xFFFE; \x00 \x0b \u202e \ufeff",
    "<svg><foreignObject><p>inside a drawing</p></foreignObject></svg><math><mi>x</mi></math><template><p>t</p></template>",
    "<h2>" + "x" * 20000 + "</h2><p>" + ", " * 5000 + "</p>",
    "<details open><summary>Expand</summary><ul><li><a href='#a'>a</a><ul><li><a href='#b'>b</a></li></ul></li></ul></details>",
    "<div hidden aria-controls='x'><div id='x' style='display:none'><p>folded</p></div></div><button>Close</button>",
    '<meta charset="x-no-such-charset"><meta charset="utf-16">',
    '<p {{attributes}}="1" {broken="2" class="x">a template left its placeholders</p>',
]
CONTENT_TYPES = ["text/html", "text/html; charset=utf-8", "text/html; charset=latin-1", "text/html; charset=bogus", ""]


def _read(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes())


def _after_a_paragraph(page: bytes, markup: str) -> bytes:
    """``markup`` after the paragraph halfway through ``page``: in its content, where the passes look."""
    ends = [found.end() for found in re.finditer(rb"</p>", page)]
    at = ends[len(ends) // 2] if ends else len(page) // 2
    return page[:at] + markup.encode() + page[at:]


def _read_or_refused(page: bytes, **options: object) -> None:
    """Extraction of ``page`` comes back as a Document, or refuses it with an error it documents."""
    try:
        document = extract(page, url="https://pages.example/a/b?c=1", **options)
    except (PageTooComplex, UnsupportedContent, InvalidContent):
        return
    assert isinstance(document, Document)
    assert isinstance(document.markdown, str)
    assert isinstance(document.text, str)
    assert all(link.startswith(("http://", "https://")) for link in document.links)


@pytest.mark.parametrize("markup", MARKUP, ids=range(len(MARKUP)))
def test_markup_that_defies_the_passes_is_read_in_the_content(markup):
    for number, path in enumerate(PAGES[::8]):
        page = _after_a_paragraph(_read(path), markup)
        _read_or_refused(page, content_type="text/html", main_content_only=number % 3 != 2, with_html=number % 2 == 0)


def test_every_charset_python_knows_is_read_or_ignored_never_failed():
    """Python's codec registry answers to far more than charsets (rot13, base64, idna, zlib); a
    page may name any of them, in its header or its ``<meta>``."""
    names = sorted({*encodings.aliases.aliases, *encodings.aliases.aliases.values(), "rot13", "idna", "punycode"})
    page = "<html><head><meta charset='{}'></head><body><p>Crème brûlée, a dessert loved in France.</p></body></html>"
    for name in names:
        _read_or_refused(page.format(name).encode("cp1252"), content_type="text/html")
        _read_or_refused(page.format("utf-8").encode("cp1252"), content_type=f"text/html; charset={name}")


@st.composite
def broken_pages(draw: st.DrawFn) -> bytes:
    page = _read(draw(st.sampled_from(PAGES)))
    for _ in range(draw(st.integers(1, 6))):
        how = draw(st.sampled_from(["markup", "cut", "garble", "repeat", "unclose"]))
        at = draw(st.integers(0, len(page)))
        if how == "markup":
            page = page[:at] + draw(st.sampled_from(MARKUP)).encode() + page[at:]
        elif how == "cut":
            page = page[: max(at, 1)]
        elif how == "garble":
            page = page[:at] + bytes(draw(st.lists(st.integers(0, 255), min_size=1, max_size=40))) + page[at + 40 :]
        elif how == "repeat":
            page = page[:at] + page[at : at + draw(st.integers(1, 2000))] * draw(st.integers(2, 20)) + page[at:]
        else:
            page = page[:at].replace(b"</div>", b"").replace(b"</p>", b"") + page[at:]
    return page


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
@given(
    page=broken_pages(),
    content_type=st.sampled_from(CONTENT_TYPES),
    main_content_only=st.booleans(),
    with_html=st.booleans(),
)
def test_a_broken_page_is_read_or_refused_never_failed(page, content_type, main_content_only, with_html):
    _read_or_refused(page, content_type=content_type, main_content_only=main_content_only, with_html=with_html)


def test_the_sample_is_there():
    """The property above reads the sample; without it, it would test nothing."""
    assert len(PAGES) >= 40
