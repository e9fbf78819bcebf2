"""Extraction without any server: HTML to Markdown, charsets, JSON and jq, text, refusals, the CLI."""

import codecs
import json
import types

import pytest
from click.testing import CliRunner
from steward_websearch.cli import extract_command
from steward_websearch.extract import InvalidContent, UnsupportedContent, decode, extract
from steward_websearch.service.fetch_capability import extract_isolated
from steward_websearch.service.jq_program import check_program, run_program

ARTICLE = """<!doctype html>
<html lang="en-GB"><head>
<title>Brewing green tea | The Tea Site</title>
<meta property="og:title" content="Brewing green tea">
<meta name="author" content="Ada Leaf">
<meta property="article:published_time" content="2026-03-01T08:00:00Z">
<meta name="description" content="How to brew it well.">
<style>body { color: red }</style><script>var tracking = "SCRIPT-TEXT";</script>
</head><body>
<header class="site-header"><a href="/">The Tea Site</a> <nav><a href="/a">Home</a> <a href="/b">Shop</a></nav></header>
<div class="cookie-banner">We use cookies. ACCEPT-COOKIES</div>
<div class="layout">
 <aside class="sidebar"><h3>Popular</h3><ul><li><a href="/p1">SIDEBAR-LINK one</a></li><li><a href="/p2">SIDEBAR-LINK two</a></li></ul></aside>
 <article class="post">
  <h1>Brewing green tea</h1>
  <p>Green tea is gentle, and it rewards care: water that is too hot turns it bitter, while water that is too cool leaves it flat. This guide explains, step by step, how to brew it well.</p>
  <h2>Water</h2>
  <p>Use water at about 70 to 80 degrees, which is <em>well below</em> boiling, and <strong>never</strong> pour it straight from the kettle onto the leaves. See <a href="/guides/temperature">the temperature guide</a> for details.</p>
  <ul><li>Soft water works best, as hard water dulls the flavour.</li><li>Filter tap water if it smells of chlorine.</li></ul>
  <ol><li>Warm the pot.</li><li>Add the leaves.</li></ol>
  <blockquote><p>Tea is a quiet pleasure, and it asks for patience.</p></blockquote>
  <pre><code class="language-python">steep(seconds=90)</code></pre>
  <table><tr><th>Tea</th><th>Degrees</th></tr><tr><td>Sencha</td><td>75</td></tr><tr><td>Gyokuro</td><td>60</td></tr></table>
  <p>Steep for one to two minutes, then pour everything out, so that the leaves do not keep steeping in the pot and turn the second cup bitter.</p>
  <div class="share-buttons"><a href="https://twitter.com/share">SHARE-ON-TWITTER</a> <a href="https://facebook.com/share">Facebook</a></div>
 </article>
</div>
<section id="comments" class="comments"><h2>Comments</h2><p>COMMENT-TEXT: great post, thanks, I loved it, really, truly, deeply, madly.</p></section>
<footer class="site-footer"><p>FOOTER-TEXT © 2026</p><a href="/privacy">Privacy</a></footer>
</body></html>"""


@pytest.fixture(scope="module")
def article():
    return extract(ARTICLE.encode(), url="https://tea.example/guides/green", content_type="text/html; charset=utf-8")


def test_main_content_is_kept_as_markdown(article):
    markdown = article.markdown
    assert markdown.startswith("Green tea is gentle")
    assert "## Water" in markdown
    assert "*well below*" in markdown
    assert "**never**" in markdown
    assert "[the temperature guide](https://tea.example/guides/temperature)" in markdown
    assert "- Soft water works best" in markdown
    assert "1. Warm the pot.\n2. Add the leaves." in markdown
    assert "> Tea is a quiet pleasure" in markdown
    assert "```python\nsteep(seconds=90)\n```" in markdown
    assert "| Tea | Degrees |\n| --- | --- |\n| Sencha | 75 |" in markdown
    assert markdown.rstrip().endswith("turn the second cup bitter.")


@pytest.mark.parametrize(
    "boilerplate",
    [
        "SCRIPT-TEXT",
        "color: red",
        "Home",
        "ACCEPT-COOKIES",
        "SIDEBAR-LINK",
        "COMMENT-TEXT",
        "FOOTER-TEXT",
        "SHARE-ON-TWITTER",
    ],
)
def test_boilerplate_is_dropped(article, boilerplate):
    assert boilerplate not in article.markdown
    assert boilerplate not in article.text


def test_metadata_and_title(article):
    assert article.title == "Brewing green tea"
    assert article.metadata["byline"] == "Ada Leaf"
    assert article.metadata["published"] == "2026-03-01T08:00:00Z"
    assert article.metadata["language"] == "en-GB"
    assert article.metadata["description"] == "How to brew it well."
    assert "# Brewing green tea" not in article.markdown


def test_plain_text_has_no_syntax(article):
    assert "**" not in article.text
    assert "](" not in article.text
    assert "the temperature guide for details" in article.text


def test_token_counts_are_an_estimate(article):
    assert article.raw_tokens == (len(ARTICLE) + 3) // 4
    assert article.clean_tokens == (len(article.markdown) + 3) // 4
    assert article.clean_tokens < article.raw_tokens


def test_plain_text_keeps_the_numbers_of_ordered_lists(article):
    assert "Warm the pot.\nAdd" not in article.text
    assert "1. Warm the pot.\n2. Add the leaves." in article.text
    assert "- Soft water" not in article.text  # bullets are Markdown's; text keeps numbers only
    steps = b"""<html><body><main><p>Descaling takes four steps, in this order, and an hour in all; the
    kettle is cold before you start and rinsed when you finish, every time.</p>
    <ol start="3"><li>Fill it.</li><li>Boil it.</li><li value="9">Rinse it.</li><li>Dry it.</li></ol>
    <ol reversed><li>Three.</li><li>Two.</li><li>One.</li></ol></main></body></html>"""
    document = extract(steps, url="http://x.example/", content_type="text/html")
    assert "3. Fill it.\n4. Boil it.\n9. Rinse it.\n10. Dry it." in document.text
    assert "3. Three.\n2. Two.\n1. One." in document.text
    unreadable = b'<html><body><ol start="x"><li>One.</li><li value="">Two.</li></ol></body></html>'
    assert extract(unreadable, url="http://x.example/", content_type="text/html", main_content_only=False).text == (
        "1. One.\n2. Two."
    )
    assert "3. Fill it.\n4. Boil it." in document.markdown


@pytest.mark.parametrize(
    ("start", "value", "numbers"),
    [
        ("3rd", " +7 ", "3. One.\n7. Two."),  # a browser reads the leading digits
        ("-2", "0009", "-2. One.\n9. Two."),
        ("9" * 4300, "1" * 20, "1. One.\n2. Two."),  # past a ``long``: ignored, as browsers ignore it
        ("2147483648", "2147483647", "1. One.\n2147483647. Two."),
    ],
)
def test_list_numbers_are_read_as_browsers_read_them(start, value, numbers):
    """A ``start`` of 4,300 nines once failed the page: Python refuses to write so long a number."""
    page = f'<html><body><ol start="{start}"><li>One.</li><li value="{value}">Two.</li></ol></body></html>'
    document = extract(page.encode(), url="http://x.example/", content_type="text/html", main_content_only=False)
    assert document.text == numbers


class _InProcess:
    """The host's isolated workers, run in this process: what the service asks of them is recorded."""

    async def run(self, function, *args, result_type, file_access, **options):
        return function(*args, **options)


@pytest.mark.anyio
async def test_the_service_extracts_markdown_without_rendering_the_text(article):
    context = types.SimpleNamespace(isolated=_InProcess())
    document = await extract_isolated(context, ARTICLE.encode(), url="https://tea.example/", content_type="text/html")
    assert document.markdown == article.markdown
    assert document.text == ""


def test_the_text_is_rendered_only_when_asked_for(article):
    markdown_only = extract(ARTICLE.encode(), url="https://tea.example/", content_type="text/html", with_text=False)
    assert markdown_only.text == ""
    assert markdown_only.markdown == article.markdown
    assert article.text.startswith("Green tea is gentle")
    all_furniture = b"<html><body><nav><p>Only a menu: Home, About, Contact, Blog.</p></nav></body></html>"
    for with_text in (True, False):
        document = extract(all_furniture, url="http://x.example/", content_type="text/html", with_text=with_text)
        assert document.markdown == "Only a menu: Home, About, Contact, Blog."  # read whole rather than nothing


def test_pages_without_an_article_keep_the_body_minus_boilerplate():
    page = b"<html><body><nav>MENU</nav><p>Short note.</p><footer>FOOT</footer></body></html>"
    document = extract(page, url="http://x.example/", content_type="text/html")
    assert document.markdown == "Short note."


def test_the_html_leaves_out_attributes_named_like_a_template_s_placeholders():
    """``{{attrs}}`` left by a template, or a ``{`` that never closes: ElementTree reads such a name
    as ``{namespace}name``, writing ``xmlns:ns0`` junk for the first and failing on the second."""
    page = (
        '<html><body><main><p class="lead" {{ngAttrs}}="1" {broken="2" data-x="3">Kettles boil a litre in'
        " ninety seconds, and they do it every morning, for everyone in the house.</p></main></body></html>"
    )
    document = extract(page.encode(), url="http://x.example/", content_type="text/html", with_html=True)
    assert '<p class="lead" data-x="3">Kettles boil a litre' in document.html
    assert "xmlns" not in document.html


def test_the_whole_page_is_what_a_reader_sees_navigation_and_footers_included():
    whole = extract(ARTICLE.encode(), url="https://tea.example/", content_type="text/html", main_content_only=False)
    for kept in ["The Tea Site", "[Home](https://tea.example/a)", "SIDEBAR-LINK one", "## Water"]:
        assert kept in whole.markdown
    assert "# Brewing green tea\n\nGreen tea is gentle" in whole.markdown  # the page's heading, where it stands
    html = "text/html"
    as_html = extract(
        ARTICLE.encode(), url="https://t.example/", content_type=html, main_content_only=False, with_html=True
    )
    assert "<h1>Brewing green tea</h1>" in as_html.html
    assert "COMMENT-TEXT" in whole.markdown
    assert "FOOTER-TEXT" in whole.markdown
    assert "SCRIPT-TEXT" not in whole.markdown
    hidden = b"<html><body><p>Text a reader sees on the page.</p><div hidden><p>HIDDEN-TEXT</p></div></body></html>"
    page = extract(hidden, url="http://x.example/", content_type="text/html", main_content_only=False)
    assert page.markdown == "Text a reader sees on the page."


def test_base_href_and_unsafe_links():
    page = b'<html><head><base href="https://cdn.example/docs/"></head><body><p>Read <a href="intro">the intro</a> and <a href="javascript:evil()">this</a>, which is long enough to be the main content of the page for sure.</p></body></html>'
    markdown = extract(page, url="http://x.example/", content_type="text/html").markdown
    assert "[the intro](https://cdn.example/docs/intro)" in markdown
    assert "javascript" not in markdown


def test_a_link_that_is_no_url_is_its_text_and_the_page_still_reads():
    """Browsers leave ``http://[name]`` (a bracketed host that is no address) dead; so does extraction."""
    prose = "which is long enough to be the main content of the page for sure, and says so twice over."
    page = (
        '<html><head><base href="http://[cdn]/"></head><body><p>Set your <a href="http://[ccpa-preferences]">privacy'
        f' choices</a> or read <a href="/tea">about tea</a>, {prose} <img src="http://x.example:port/a.png"'
        ' alt="A kettle"></p></body></html>'
    ).encode()
    found = extract(page, url="http://x.example/", content_type="text/html")
    assert found.markdown.startswith("Set your privacy choices or read [about tea](http://x.example/tea), which")
    assert "A kettle" not in found.markdown
    assert found.links == ["http://x.example/tea"]


def test_a_picture_whose_address_is_no_url_does_not_fail_the_page():
    """A block of pictures is weighed as a gallery, each picture looked at for an icon; one whose
    ``src`` has a bracketed host that is no address (``http://[cdn/…``) is no icon, and the page reads."""
    prose = "<p>Kettles boil a litre in ninety seconds, and they do it every morning, for everyone in the house.</p>"
    pictures = "".join(
        f'<figure><img src="{source}" alt="Kettle {n}"></figure>'
        for n, source in enumerate(["http://[cdn/kettle.jpg", "/kettle-2.jpg", "/kettle-3.jpg", "http://[cdn/icon.svg"])
    )
    page = f"<html><body><article><h1>Kettles</h1>{prose * 4}<div>{pictures}</div>{prose}</article></body></html>"
    found = extract(page.encode(), url="http://x.example/", content_type="text/html")
    assert found.markdown.count("Kettles boil a litre") == 5


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        ("café".encode("latin-1"), "text/plain; charset=ISO-8859-1", "café"),
        ("naïve “quotes”".encode("cp1252"), "text/plain; charset=windows-1252", "naïve “quotes”"),
        (codecs.BOM_UTF8 + "über".encode(), "text/plain; charset=latin-1", "über"),
        (codecs.BOM_UTF16_LE + "日本".encode("utf-16-le"), "text/plain", "日本"),
        ("日本語".encode("shift_jis"), "text/plain; charset=shift_jis", "日本語"),
        (b"plain ascii", "text/plain", "plain ascii"),
        ("ünïcode".encode(), "text/plain", "ünïcode"),
        ("caf\xe9".encode("latin-1"), "text/plain; charset=utf-8", "caf\ufffd"),
        ("caf\xe9".encode("latin-1"), "text/plain; charset=no-such-charset", "café"),
        # Python's codecs that are no charset a browser knows: ignored, not applied (or failing)
        ("caf\xe9".encode("latin-1"), "text/plain; charset=base64", "café"),
        ("caf\xe9".encode("latin-1"), "text/plain; charset=idna", "café"),
        (b"Kettle", "text/plain; charset=rot13", "Kettle"),
        (b"tab\\u0041", "text/plain; charset=unicode_escape", "tab\\u0041"),
        (b"+AGEAYgBj-", "text/plain; charset=utf-7", "+AGEAYgBj-"),
        (b"~{<:Ky2;S{#,~}", "text/plain; charset=hz-gb-2312", "\ufffd"),  # the standard's replacement
    ],
)
def test_charsets(body, content_type, expected):
    assert extract(body, url="http://x.example/", content_type=content_type).markdown == expected


@pytest.mark.parametrize(
    ("declared", "expected"),
    [("rot13", "Crème brûlée"), ("utf-16", "Cr\ufffdme br\ufffdl\ufffde"), ("x-user-defined", "Crème brûlée")],
)
def test_a_meta_charset_is_read_as_browsers_read_it(declared, expected):
    """A label no browser knows is ignored (rot13 failed the page); a page whose ``<meta>`` could be
    read at all is in no UTF-16, so it means UTF-8; x-user-defined there means windows-1252."""
    page = f'<html><head><meta charset="{declared}"></head><body><p>Crème brûlée is a dessert, loved.</p></body></html>'
    assert expected in extract(page.encode("cp1252"), url="http://x.example/", content_type="text/html").markdown


def test_meta_charset_is_honoured_when_the_header_is_silent():
    page = '<html><head><meta charset="windows-1252"></head><body><p>Crème brûlée is a dessert with a burnt sugar top, loved in France and elsewhere.</p></body></html>'
    assert "Crème brûlée" in extract(page.encode("cp1252"), url="http://x.example/", content_type="text/html").markdown


@pytest.mark.parametrize(
    ("declared", "header", "text"),
    [
        ("gb2312", None, "深度学习模型可以回答关于伦敦地铁网络的问题。"),
        ("windows-1252", None, "Crème brûlée, naïve “quotes” and a café."),
        ("shift_jis", None, "日本語の文章です。"),
        (None, "text/html; charset=ISO-8859-1", "Crème brûlée, naïve “quotes” and a café."),
    ],
)
def test_a_body_in_utf8_is_read_as_utf8_whatever_legacy_encoding_it_declares(declared, header, text):
    """A stale ``<meta charset>`` (or a server's blanket ISO-8859-1) over a UTF-8 page: read as
    declared, every letter beyond ASCII would be mojibake."""
    meta = f'<meta charset="{declared}">' if declared else ""
    page = f"<html><head>{meta}</head><body><article><p>{text} {text} {text}</p></article></body></html>"
    found = extract(page.encode(), url="http://x.example/", content_type=header or "text/html")
    assert text in found.markdown


@pytest.mark.parametrize(("encoding", "text"), [("gbk", "这是一个中文句子。"), ("cp1252", "Straße, café, “quotes”.")])
def test_a_legacy_body_that_is_no_utf8_is_read_as_declared(encoding, text):
    page = f'<html><head><meta charset="{encoding}"></head><body><p>{text} {text} {text}</p></body></html>'
    assert text in extract(page.encode(encoding), url="http://x.example/", content_type="text/html").markdown


def test_utf16_is_never_second_guessed_as_utf8():
    """UTF-16's ASCII is valid UTF-8 (every other byte a NUL): a header naming UTF-16 is kept."""
    assert decode("Kettle".encode("utf-16-le"), "utf-16le", html=False) == "Kettle"


def test_decode_never_raises():
    assert decode(bytes(range(256)), "utf-8", html=True)


def test_json_is_validated_pretty_printed_and_filtered():
    body = json.dumps({"items": [{"name": "a", "n": 1}, {"name": "b", "n": 2}]}).encode()
    document = extract(body, url="http://x.example/", content_type="application/json")
    assert json.loads(document.markdown) == {"items": [{"name": "a", "n": 1}, {"name": "b", "n": 2}]}
    assert "\n  " in document.markdown
    assert json.loads(run_program("[.items[].name]", body.decode())) == ["a", "b"]
    assert json.loads(run_program(".items[].n", body.decode())) == [1, 2]
    problem = extract(body, url="http://x.example/", content_type="application/problem+json")
    assert problem.content_type == "application/problem+json"
    with pytest.raises(InvalidContent, match="jq"):
        check_program(".items[")
    with pytest.raises(InvalidContent, match="jq"):
        run_program(".items[", body.decode())
    with pytest.raises(InvalidContent, match="not valid JSON"):
        run_program(".", "{oops")
    with pytest.raises(InvalidContent, match="not valid JSON"):
        extract(b"{oops", url="http://x.example/", content_type="application/json")


def test_json_nested_too_deep_to_read_is_invalid_content_and_a_page_holding_it_still_reads():
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(InvalidContent, match="nests deeper than can be read"):
        extract(deep.encode(), url="http://x.example/", content_type="application/json")
    with pytest.raises(InvalidContent, match="nests deeper than can be read"):
        run_program(".", deep)
    prose = "<p>The page's own text, long enough to read as its content, and it says so in full.</p>"
    page = f"<html><head><script type='application/ld+json'>{deep}</script></head><body>{prose}</body></html>"
    found = extract(page.encode(), url="http://x.example/", content_type="text/html")
    assert found.markdown == "The page's own text, long enough to read as its content, and it says so in full."


@pytest.mark.parametrize("kind", ["text/plain", "text/markdown", "text/csv"])
def test_text_types_come_back_as_they_are(kind):
    body = b"# not parsed\na,b\n1,2\n"
    assert extract(body, url="http://x.example/", content_type=kind).markdown == body.decode()


@pytest.mark.parametrize(
    ("body", "content_type", "message"),
    [
        (b"\x89PNG\r\n", "image/png", "unsupported content type 'image/png'"),
        (b"PK\x03\x04", "application/zip", "unsupported content type 'application/zip'"),
        (b"%PDF-1.7 ...", "text/html", "declared text/html but the body is a PDF document"),
        (b"\x89PNG\r\n\x1a\n", "text/plain", "a PNG image"),
        (b"abc\x00\x01\x02", "application/json", "binary"),
        (b"\x00\x01", "", "application/octet-stream"),
    ],
)
def test_unsupported_and_lies(body, content_type, message):
    with pytest.raises(UnsupportedContent, match=message.replace("(", r"\(")):
        extract(body, url="http://x.example/", content_type=content_type)


def test_missing_content_type_sniffs_only_html():
    document = extract(
        b"<!DOCTYPE html><html><body><p>Hello there.</p></body></html>", url="http://x/", content_type=""
    )
    assert document.markdown == "Hello there."


def test_broken_markup_never_crashes():
    for page in (
        b"<p>unclosed <b>bold <i>italic",
        b"<table><td>cell",
        b"</div></div>" * 50,
        b"<" * 1000,
        b"",
        b"<html>" + b"<div>" * 3000 + b"deep",
    ):
        extract(page, url="http://x.example/", content_type="text/html")


def test_cli_extract(tmp_path):
    page = tmp_path / "page.html"
    page.write_text(ARTICLE)
    runner = CliRunner()
    markdown = runner.invoke(extract_command, [str(page), "--url", "https://tea.example/"])
    assert markdown.exit_code == 0
    assert "[the temperature guide](https://tea.example/guides/temperature)" in markdown.output
    text = runner.invoke(extract_command, ["-", "--format", "text"], input=ARTICLE)
    assert "**" not in text.output
    assert text.output.startswith("Green tea is gentle")
    as_json = json.loads(runner.invoke(extract_command, [str(page), "--format", "json"]).output)
    assert as_json["title"] == "Brewing green tea"
    assert as_json["text"].startswith("Green tea is gentle"), "the JSON holds the text too"
    refused = runner.invoke(extract_command, [str(page), "--content-type", "image/png"])
    assert refused.exit_code == 1
    assert "unsupported content type" in refused.output


def test_the_first_address_of_the_extraction_api_exports_the_same_names():
    import steward_websearch.extract as first
    import steward_websearch.extraction as library

    assert first.__all__ == library.__all__
    for name in library.__all__:
        assert getattr(first, name) is getattr(library, name)


def test_the_cycle_collector_pauses_while_a_page_is_read_and_runs_again_after(monkeypatch):
    import gc

    from steward_websearch.extraction import document as document_module

    seen: list[bool] = []
    read = document_module._html

    def reading(*args, **kwargs):
        seen.append(gc.isenabled())
        return read(*args, **kwargs)

    monkeypatch.setattr(document_module, "_html", reading)
    page = b"<html><body><main><h1>Kettles</h1><p>A kettle boils water, and this one quietly.</p></main></body></html>"
    assert gc.isenabled()
    extract(page, url="https://site.example/", content_type="text/html")
    assert seen == [False], "no collection walks the tree while it is read"
    assert gc.isenabled(), "and the collector runs again afterwards"
    gc.disable()
    try:
        extract(page, url="https://site.example/", content_type="text/html")
        assert not gc.isenabled(), "a collector paused by someone else stays paused"
    finally:
        gc.enable()

    def failing(*args, **kwargs):
        raise RuntimeError("the page could not be read")

    monkeypatch.setattr(document_module, "_html", failing)
    with pytest.raises(RuntimeError):
        extract(page, url="https://site.example/", content_type="text/html")
    assert gc.isenabled(), "a page that fails leaves the collector running"
