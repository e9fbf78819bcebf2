"""Markdown and text as a browser would show the page: whitespace collapsed, a line break only
where ``<br>`` puts one, absolute links, images only when they say what they show."""

import html as html_lib
import re

import pytest
from markdown_it import MarkdownIt
from steward_websearch.extraction import parse_html
from steward_websearch.extraction.markdown import Renderer

BASE = "https://docs.example/guide/"


def render(html: str, *, markdown: bool = True, parser: str = "lexbor") -> str:
    body = parse_html(f"<!doctype html><html><body>{html}</body></html>", parser).find("body")
    return Renderer(BASE, markdown=markdown).render(body)


@pytest.fixture(params=["lexbor", "html5lib"])
def parser(request):
    return request.param


def test_a_newline_in_the_source_is_a_space(parser):
    html = "<p>One sentence that the source\n   wraps\r\nacross\tlines.</p>"
    assert render(html, parser=parser) == "One sentence that the source wraps across lines."
    assert render(html, markdown=False, parser=parser) == "One sentence that the source wraps across lines."


def test_only_br_breaks_a_line(parser):
    html = "<p>Ada Leaf<br>12 Tea Street<br/>\n Leeds</p><div>loose text\nin a div<br>second line</div>"
    assert render(html, parser=parser) == "Ada Leaf  \n12 Tea Street  \nLeeds\n\nloose text in a div  \nsecond line"
    assert render(html, markdown=False, parser=parser) == (
        "Ada Leaf\n12 Tea Street\nLeeds\n\nloose text in a div\nsecond line"
    )


def test_breaks_inside_headings_and_cells_are_spaces(parser):
    html = "<h2>Two<br>words</h2><table><tr><th>Size<br>(cm)</th></tr><tr><td>10</td></tr></table>"
    assert render(html, parser=parser) == "## Two words\n\n| Size (cm) |\n| --- |\n| 10 |"


def test_a_break_in_a_list_item_stays_inside_the_item(parser):
    html = "<ul><li>Kettle<br>1.7 litres</li><li>Pot</li></ul><ol><li>Warm<br>the pot</li></ol>"
    assert render(html, parser=parser) == "- Kettle  \n  1.7 litres\n- Pot\n\n1. Warm  \n   the pot"


def test_code_blocks_keep_their_whitespace_and_language(parser):
    html = '<pre class="lang-js"><code>if (a) {\n    b();\n}</code></pre><p>Call <code>b(\n  )</code> once.</p>'
    assert render(html, parser=parser) == "```js\nif (a) {\n    b();\n}\n```\n\nCall `b( )` once."


def test_images_only_with_alt_text_and_absolute(parser):
    html = (
        '<p><img src="kettle.png" alt="A steel kettle"> <img src="spacer.gif" alt=""> <img src="x.png">'
        '<img src="data:image/png;base64,AAAA" alt="inline"> text</p>'
    )
    assert render(html, parser=parser) == "![A steel kettle](https://docs.example/guide/kettle.png) text"
    assert render(html, markdown=False, parser=parser) == "text"


def test_an_alt_that_only_names_a_picture_says_nothing(parser):
    html = (
        '<p><img src="s.svg" alt="star"><img src="s.svg" alt="5 Stars"><img src="u.png" alt="User avatar">'
        '<img src="n.jpg" alt="null"><img src="i.png" alt="image 3"> <img src="l.svg" alt="Next.js logo"> text</p>'
    )
    assert render(html, parser=parser) == "![Next.js logo](https://docs.example/guide/l.svg) text"


def test_a_thematic_break_only_between_text(parser):
    html = "<hr><p>One</p><hr><div><hr></div><p>Two</p><hr><hr>"
    assert render(html, parser=parser) == "One\n\n---\n\nTwo"


def test_fields_side_by_side_do_not_run_into_one_word(parser):
    html = (
        "<p><span>Article Number</span><span>802.758.87</span></p>"
        "<p><span class='name'>Dorothy</span><span class='text'>I love the shelves.</span></p>"
        "<p><span>Co</span><span>rnell</span> keeps <span>31</span><span>g</span> and <b>Game D</b><b>ay</b></p>"
    )
    assert render(html, markdown=False, parser=parser) == (
        "Article Number 802.758.87\n\nDorothy I love the shelves.\n\nCornell keeps 31g and Game Day"
    )
    assert render("<p><a href='/b'>REI Co-op</a><span>Nalgene Bottle</span></p>", parser=parser) == (
        "[REI Co-op](https://docs.example/b) Nalgene Bottle"
    )


def test_no_empty_emphasis_or_links(parser):
    html = '<p>Keep <strong> </strong><em></em><a href="/x"> </a>this.</p>'
    assert render(html, parser=parser) == "Keep this."


def test_a_break_is_never_inside_emphasis_or_a_link(parser):
    html = (
        '<p>One<em><br></em>two</p><p>See <a href="/x"><br></a>next</p>'
        "<p><strong>Title<br></strong>Body</p><p><a href='/y'>Tea <br></a>pot</p>"
    )
    assert render(html, parser=parser) == (
        "One  \ntwo\n\nSee  \nnext\n\n**Title**  \nBody\n\n[Tea](https://docs.example/y)  \npot"
    )


def test_relative_links_become_absolute(parser):
    html = '<p><a href="../tea">Tea</a> and <a href="#top">top</a> and <a href="javascript:x()">js</a></p>'
    assert render(html, parser=parser) == "[Tea](https://docs.example/tea) and top and js"


def test_a_code_block_keeps_a_line_per_block_and_per_br(parser):
    lines = "".join(f"<div class='line'><span>{line}</span></div>" for line in ["{", '  "id": 7,', "}"])
    html = f"<pre><code>{lines}</code></pre><pre>ls<br>cd /tmp</pre>"
    assert render(html, parser=parser) == '```\n{\n  "id": 7,\n}\n```\n\n```\nls\ncd /tmp\n```'
    assert render(html, markdown=False, parser=parser) == '{\n  "id": 7,\n}\n\nls\ncd /tmp'


def test_a_span_named_a_line_of_code_is_a_line_of_its_own(parser):
    """Gatsby's and Astro's highlighters put each line in a ``span`` their stylesheet shows as a
    block, with no line break between them; Shiki's spans have one, which is not doubled."""
    gatsby = "".join(
        f"<span class='gatsby-highlight-code-line'>{line}</span>" for line in ["npm create vite@latest app", "cd app"]
    )
    shiki = "\n".join(f"<span class='line'><span style='color:#D73A49'>{line}</span></span>" for line in ["a", "b"])
    modules = "".join(f"<span class='codeLine_lJS_'>{line}</span>" for line in ["x = 1", "y = 2"])
    styled = "<span class='line-through'>old</span> <span class='inline'>new</span>"
    html = f"<pre>{gatsby}</pre><pre>{shiki}</pre><pre><code>{modules}</code></pre><pre>{styled}</pre>"
    assert render(html, markdown=False, parser=parser) == (
        "npm create vite@latest app\ncd app\n\na\nb\n\nx = 1\ny = 2\n\nold new"
    )


def test_a_list_item_of_several_blocks_keeps_them_apart(parser):
    html = "<ul><li><h4>id</h4><p>Unique identifier.</p></li><li><div>Kettle</div><div>€49</div></li></ul>"
    assert render(html, parser=parser) == "- #### id\n\n  Unique identifier.\n- Kettle\n\n  €49"


def test_what_a_list_holds_besides_items_is_shown_as_a_browser_shows_it(parser):
    html = (
        "<ul class='carousel'><div class='slide'><p>Luxe Sateen</p><p>480 TC</p></div>"
        "<li>Percale</li><ul><li>Washed</li></ul></ul>"
    )
    assert render(html, parser=parser) == "Luxe Sateen\n\n480 TC\n- Percale\n  - Washed"


def test_a_block_inside_an_inline_or_custom_element_is_still_a_block(parser):
    code = "<span class='hljs-comment'># initialize</span>\ngit init"
    html = f"<p>Start with:</p><copyable-code><button>Copy</button><pre><code class='language-bash'>{code}</code></pre></copyable-code>"
    assert render(html, parser=parser) == "Start with:\n\n```bash\n# initialize\ngit init\n```"
    assert render("<span>One <div>Two</div> three</span>", parser=parser) == "One\n\nTwo\n\nthree"


def test_a_code_block_says_the_language_its_highlighter_was_told(parser):
    assert render("<pre class='brush: js notranslate'><code>let x = 1;</code></pre>", parser=parser) == (
        "```js\nlet x = 1;\n```"
    )
    assert render("<pre class='brush: c#; gutter: false'>int x;</pre>", parser=parser) == "```c#\nint x;\n```"
    assert render("<pre class='notranslate'>plain</pre>", parser=parser) == "```\nplain\n```"


def test_bold_split_across_elements_is_one_run_of_bold(parser):
    assert render("<h2><b>Game D</b><b>ay parties</b></h2>", parser=parser) == "## **Game Day parties**"
    assert render("<p>Rated ****, <b>twice</b></p>", markdown=False, parser=parser) == "Rated ****, twice"
    assert render("<p>Rated ****</p>", parser=parser) == "Rated \\*\\*\\*\\*"


def test_a_table_that_lays_the_page_out_is_read_as_its_blocks(parser):
    quote = "<table><tr><td><p>“Give us a big booster,” he said.</p><p>— T. Stafford</p></td></tr></table>"
    assert render(quote, parser=parser) == "“Give us a big booster,” he said.\n\n— T. Stafford"
    grid = "<table><tr><td><h2>Menu</h2></td></tr><tr><td><table><tr><th>Tea</th><th>°C</th></tr>"
    grid += "<tr><td>Sencha</td><td>75</td></tr></table></td></tr></table>"
    assert render(grid, parser=parser) == "## Menu\n\n| Tea | °C |\n| --- | --- |\n| Sencha | 75 |"


def test_a_block_of_zero_width_characters_shows_nothing(parser):
    html = "<p>Tabs</p><p>\u200b</p><h2>Workforce management</h2><p>👨\u200d👩\u200d👧</p>"
    assert render(html, parser=parser) == "Tabs\n\n## Workforce management\n\n👨\u200d👩\u200d👧"


def test_soft_hyphens_and_ruby_readings_are_not_in_the_line_of_text(parser):
    html = "<p>Schon im Mit&shy;tel&shy;al&shy;ter.</p><p><ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp></ruby>ども</p>"
    assert render(html, parser=parser) == "Schon im Mittelalter.\n\n子ども"
    assert render(html, markdown=False, parser=parser) == "Schon im Mittelalter.\n\n子ども"


def test_emphasis_and_links_keep_no_break_spaces_outside_their_syntax(parser):
    """``** bold **`` is two literal asterisks to a Markdown reader, and ``&nbsp;`` is a space."""
    html = (
        "<p>Rate:<b>\u00a0</b>high <b>Kelly Surrency\u00a0</b>coaches <i>\u00a0affiliate links.\u00a0</i>"
        "Try<a href='/tea'>\u00a0</a>tea</p>"
    )
    assert render(html, parser=parser) == (
        "Rate:\u00a0high **Kelly Surrency**\u00a0coaches \u00a0*affiliate links.*\u00a0Try\u00a0tea"
    )


def test_emphasis_a_reader_would_not_read_as_emphasis_is_plain_text(parser):
    html = "<p><b>Note:</b>Text, <i>Ayy wrote:</i>Last, was<s>$500</s>, <i><b>Fortune</b></i><b>®</b> 500</p>"
    assert render(html, parser=parser) == "Note:Text, Ayy wrote:Last, was$500, ***Fortune***® 500"


def test_bold_inside_bold_is_bold_once(parser):
    html = "<p><em><em><strong><em><strong>10</strong></em></strong></em><strong>LUOA</strong> only</em></p>"
    assert render(html, parser=parser) == "***10LUOA** only*"
    assert render("<p><b>a <b>b</b> c</b></p>", parser=parser) == "**a b c**"


def test_code_spans_hold_their_backticks_and_never_touch(parser):
    html = "<p><code>'ß'</code><code>U+00DF</code> <code>a`b</code> <code>`x`</code> <kbd>Ctrl</kbd>+<kbd>F</kbd> <code>rehash<br>which</code></p>"
    assert render(html, parser=parser) == "`'ß'U+00DF` ``a`b`` `` `x` `` `Ctrl`+`F` `rehash which`"


def test_a_code_block_holding_a_fence_gets_a_longer_one(parser):
    html = "<pre><code class='language-md'>```tasks\nnot done\n```</code></pre>"
    assert render(html, parser=parser) == "````md\n```tasks\nnot done\n```\n````"


def test_text_that_reads_as_markup_is_escaped(parser):
    html = "<p>Returns Option&lt;U&gt; from &lt;entry&gt;, &amp;amp; is an entity, 1 &lt; 2 &amp; AT&amp;T ~~no~~</p>"
    assert render(html, parser=parser) == (
        "Returns Option\\<U> from \\<entry>, \\&amp; is an entity, 1 < 2 & AT&T \\~\\~no\\~\\~"
    )


def test_a_line_of_a_paragraph_opens_no_block(parser):
    html = "<p><b>Read also<br>&gt;&gt;</b> the story</p><p># not a heading</p><p>Title<br>===</p><p>#hashtag</p>"
    assert render(html, parser=parser) == (
        "**Read also  \n\\>>** the story\n\n\\# not a heading\n\nTitle  \n\\===\n\n#hashtag"
    )


def test_a_line_of_a_paragraph_that_reads_as_a_list_item_is_text(parser):
    html = (
        "<p>1) Lego Star Wars<br>2) Polistil</p><p>2020. A year of kettles</p><p>Intro<br>1. one<br>- two<br>+ three</p>"
        "<ul><li>802.<br>11ac Wi-Fi</li></ul><p>-5 degrees, 3.5 stars</p><ol><li>A real item</li></ol>"
    )
    markdown = render(html, parser=parser)
    assert "1\\) Lego Star Wars" in markdown
    assert "2020\\. A year" in markdown
    assert "1\\. one  \n\\- two  \n\\+ three" in markdown
    assert "-5 degrees, 3.5 stars" in markdown, "a dash or a number inside a word opens nothing"
    shown = MarkdownIt("commonmark").render(markdown)
    assert shown.count("<ol>") == 1, "only the page's own list is a numbered list"
    assert "<ol start" not in shown
    assert shown.count("<ul>") == 1
    assert "<li>802.<br />\n11ac Wi-Fi</li>" in shown, "an item's first line is a line of text too"
    assert "1) Lego Star Wars<br />" in shown


def test_parentheses_in_a_link_target_are_encoded(parser):
    html = "<p><a href='/wiki/Ajax_(programming)'>AJAX</a> <img src='/img/sign-up%20(2).png' alt='Sign up'></p>"
    assert render(html, parser=parser) == (
        "[AJAX](https://docs.example/wiki/Ajax_%28programming%29) "
        "![Sign up](https://docs.example/img/sign-up%20%282%29.png)"
    )


def test_a_list_nested_in_a_numbered_item_is_indented_past_its_number(parser):
    items = "".join(f"<li>Item {n}</li>" for n in range(1, 10))
    html = f"<ol>{items}<li>Ten<ul><li>Inner</li></ul></li></ol>"
    assert render(html, parser=parser).endswith("10. Ten\n    - Inner")


def test_a_pipe_is_escaped_in_markdown_tables_only(parser):
    html = "<table><tr><th>Key</th><th>Means</th></tr><tr><td>a|b</td><td>either</td></tr></table>"
    assert render(html, parser=parser) == "| Key | Means |\n| --- | --- |\n| a\\|b | either |"
    assert render(html, markdown=False, parser=parser) == "Key Means\na|b either"


READ_BACK = [
    "<p>Rate:<b>\u00a0</b>high, <b>Kelly\u00a0</b>coaches, <i>\u00a0links.\u00a0</i>Try<a href='/t'>\u00a0</a>tea</p>",
    "<p><b>Note:</b>Text <i>wrote:</i>Last was<s>$500</s> <i><b>Fortune</b></i><b>®</b></p>",
    "<p>Fees $636<sup>*</sup><b>⁹</b> and <b>*</b>starred <i>(I</i> think<i>)</i> <b>\ufeffOur Take:\u00a0</b>The</p>",
    "<p><code>a</code><code>b</code> <code>x`y</code> <kbd>Ctrl</kbd>+<kbd>F</kbd> <code>rehash<br>which</code></p>",
    "<p>Option&lt;U&gt; &lt;head&gt; &lt;!-- x --&gt; &lt;https://a.example&gt; &amp;copy; AT&amp;T</p>",
    "<p><b>Read also<br>&gt;&gt;</b> the story</p><p># Hash</p><p>Title<br>---</p><p>1) one<br>+ two</p>",
    "<p><a href='/wiki/Ajax_(programming)'>AJAX (p)</a> and <a href='/a b\\c'>spaced</a></p>",
    "<pre>```tasks\nnot done\n```</pre><p>after ``` fence</p>",
    "<ol>"
    + "<li>x</li>" * 9
    + "<li>Ten<ol><li><p>Para</p><ol><li><blockquote>said</blockquote></li></ol></li></ol></li></ol>",
    "<table><tr><th>a|b</th><th><b>c</b>|</th></tr><tr><td><code>x|y</code></td><td>_z_</td></tr></table>",
    "<h2><b>Game D</b><b>ay</b> <i>[draft]</i> *</h2><p>snake_case __init__ 2*3*4 a * b</p>",
    "<p><kbd>\ufeff...“q”</kbd>é and <code>\u200bx\u00a0</code>y</p>",
    "<p>Wow!<a href='/t'>[1]</a> and see<a href='/u'>here</a></p>",
    "<p><kbd>- word!</kbd><s><kbd>®...</kbd>é</s></p>",
    "<p>a<s><br>&gt;#</s>5 and <code>&gt; kept</code></p>",
]


@pytest.mark.parametrize("html", READ_BACK)
def test_a_markdown_reader_shows_the_words_the_text_shows(html, parser):
    """The Markdown, read back by a CommonMark reader, shows what the plain text says: no
    literal asterisks or backticks, no words swallowed as HTML, no link cut short."""
    shown = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(render(html, parser=parser))
    shown = re.sub(r"</?(p|li|h\d|pre|blockquote|tr|td|th|br|ul|ol)\b[^>]*>", " ", shown)
    visible = html_lib.unescape(re.sub(r"<[^>]+>", "", shown))
    marker = re.compile(r"\d+[.)]|[-+*]")
    text = render(html, markdown=False, parser=parser)
    assert [word for word in visible.split() if not marker.fullmatch(word)] == [
        word for word in text.split() if not marker.fullmatch(word)
    ]
