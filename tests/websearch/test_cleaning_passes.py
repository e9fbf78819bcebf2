"""Each cleaning pass on its own: what it drops, and the look-alike it keeps.

``PASSES`` is the cleaner's table of contents; every pass in it has a case here (the last test
holds the two lists together), so a pass added without a test fails the suite.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from steward_websearch.extraction import cleaning, parse
from steward_websearch.extraction.cleaning import furniture
from steward_websearch.extraction.tree import Measures

STORY = "<p>" + "The river rose through the night and the bridge held until dawn. " * 6 + "</p>"


@dataclass(frozen=True)
class Case:
    cleaning_pass: cleaning.Pass
    html: str
    dropped: str
    kept: str
    article: bool = False


def content_of(html: str):
    return parse.parse_html(f"<html><body><div id='content'>{html}</div></body></html>").find("body")[0]


def text(content) -> str:
    return " ".join(" ".join(content.itertext()).split())


def reply(number: int) -> str:
    return f"<div class='post'><p>Reply number {number} says something of its own.</p><div>Quote</div></div>"


LONG = "A quiet kettle with a steel body, a two-litre jug and a base that turns all the way round. " * 2


def post(number: int, quote: str = "") -> str:
    quoted = f"<blockquote>{quote}</blockquote>" if quote else ""
    return (
        f"<div class='post'><div class='user'><a href='/members/{number}/'>Poster {number}</a>"
        f"<div class='user-extras'><dl><dt>Joined</dt><dd>Town {number}</dd></dl></div></div>"
        f"{quoted}<p>Reply number {number} says something of its own.</p></div>"
    )


JOBS = [(1, "Full-Time"), (2, "Full-Time"), (3, "Full-Time"), (4, "Contract")]
"""Cards whose one slot says "Full-Time" three times and "Contract" once: the records' data, no label."""

QUESTION = "Which descaler works best on a stainless kettle gone white inside?"

CASES = [
    Case(
        cleaning.drop_posts_furniture,
        "<div class='post'><div class='user'><a href='/members/1/'>Poster 1</a></div>"
        f"<p>{QUESTION}</p></div>" + post(2, QUESTION) + post(3, "A manual quoted from outside the thread.") + post(4),
        dropped=f"Town 2 {QUESTION} Reply number 2",
        kept="A manual quoted from outside the thread. Reply number 3",
    ),
    Case(
        cleaning.drop_menus,
        "<ul><li><a href='/s'>Services</a><ul><li><a href='/s/1'>Boiler repair</a></li>"
        "<li><a href='/s/2'>Kettle repair</a></li></ul></li>"
        "<li><a href='/a'>About</a><ul><li><a href='/a/1'>Our team</a></li></ul></li></ul>"
        "<ul><li><a href='/r/1'>A kettle guide</a><ul><li>What to look for in a quiet kettle.</li></ul></li></ul>"
        + STORY,
        dropped="Boiler repair",
        kept="What to look for in a quiet kettle",
    ),
    Case(
        cleaning.drop_tables_of_contents,
        "<ul><li><a href='#boil'>Boil first</a></li><li><a href='#rinse'>Rinse after</a></li>"
        "<li><a href='#dry'>Dry at last</a></li></ul><h2 id='boil'>Boil</h2>"
        + STORY
        + "<section id='rinse'><h2>Rinse</h2></section><h2 id='dry'>Dry</h2><p>On this page</p><ul>"
        "<li><a href='#boil'>Boiling</a></li><li><a href='#rinse'>Rinsing</a></li><li><a href='#dry'>Drying</a></li>"
        "</ul><ul><li><a href='#boil'>Boil</a></li><li><a href='/rinse'>Rinsing guide</a></li>"
        "<li><a href='#dry'>Dry</a></li></ul>",
        dropped="Boiling Rinsing Drying",
        kept="Rinse after",
    ),
    Case(
        cleaning.drop_controls,
        "<p>You must log in to answer this question.</p><p>Log in to your console and click Create.</p>" + STORY,
        dropped="You must log in",
        kept="Log in to your console and click Create",
    ),
    Case(
        cleaning.drop_permalinks,
        "<h2 id='descaling'>Descaling<a class='headerlink' href='#descaling'>¶</a></h2>"
        "<dl><dt id='k.boil'><code>boil()</code><a class='headerlink' href='#k.boil'>Â¶</a></dt><dd>Boils.</dd></dl>"
        "<p>Rinse twice<a href='#note-1'>*</a>.</p><p id='note-1'>* With cold water.</p>",
        dropped="Â¶",
        kept="Rinse twice * . * With cold water.",
    ),
    Case(
        cleaning.drop_source_links,
        "<section id='method.is_ok' class='method'><span class='rightside'><span class='since' title='Stable since"
        " Rust version 1.0.0'>1.0.0 (const: 1.48.0)</span> · <a class='src' href='../../src/core/result.rs.html#557'>"
        "Source</a></span><h4 class='code-header'>pub fn is_ok(&amp;self) -&gt; bool</h4></section>"
        "<p>Returns true if the result is Ok, as measured in <a href='https://example.org/trial'>Source</a>.</p>",
        dropped="1.0.0",
        kept="pub fn is_ok(&self) -> bool Returns true if the result is Ok, as measured in Source .",
    ),
    Case(
        cleaning.drop_line_numbers,
        "<table><tr><td><pre>1\n2\n3</pre></td><td><pre>x = 1\ny = 2\nz = 3</pre></td></tr></table><pre>4\n5\n6</pre>",
        dropped="1 2 3",
        kept="4 5 6",
    ),
    Case(
        cleaning.drop_placeholders,
        "<div>Loading…</div><p>Loading the dishwasher takes two minutes.</p>" + STORY,
        dropped="Loading…",
        kept="Loading the dishwasher",
    ),
    Case(
        cleaning.drop_credits,
        "<p>Photo: AP</p><p>Source: Reuters</p>" + STORY,
        dropped="Photo: AP",
        kept="Source: Reuters",
    ),
    Case(
        cleaning.drop_bylines,
        "<p>Written by Cassidy Horton</p><div>Reviewed by: Brian Stormont, CFP®</div>"
        "<p><em>Edited by our experts to help students stand out.</em></p><p>Published by Valve</p>" + STORY,
        dropped="Reviewed by: Brian Stormont, CFP®",
        kept="Edited by our experts to help students stand out. Published by Valve",
    ),
    Case(
        cleaning.drop_disclosures,
        "<p><em>This post contains affiliate links: if you buy through them, we may earn a small commission.</em></p>"
        "<p>Streamers earn a commission when viewers buy games through their affiliate links.</p>" + STORY,
        dropped="This post contains affiliate links",
        kept="Streamers earn a commission",
    ),
    Case(
        cleaning.drop_reading_times,
        "<p><span>May 4</span> · <span>5 min read</span></p><p>It takes 5 minutes to read the meter.</p>" + STORY,
        dropped="5 min read",
        kept="It takes 5 minutes to read the meter.",
    ),
    Case(
        cleaning.drop_contents_labels,
        "<h2>Table of Contents</h2>" + STORY + "<div><strong>Inhaltsverzeichnis</strong></div>"
        "<ul><li>Flood</li><li>Bridge</li></ul>",
        dropped="Table of Contents",
        kept="Inhaltsverzeichnis Flood",
    ),
    Case(
        cleaning.drop_teasers,
        "<p>Related: <a href='/other'>Ten kettles reviewed</a></p>"
        "<p>Related work on kettles is cited at the end of this story, after the bridge.</p>" + STORY,
        dropped="Ten kettles reviewed",
        kept="Related work on kettles",
        article=True,
    ),
    Case(
        cleaning.drop_repeated_labels,
        "".join(reply(number) for number in range(1, 5))
        + "<blockquote>Quote</blockquote>"
        + "".join(f"<div class='job'><h3>Job {n}</h3><div class='terms'>{terms}</div></div>" for n, terms in JOBS),
        dropped="own. Quote Reply number 2",
        kept="Quote Job 1 Full-Time Job 2 Full-Time Job 3 Full-Time Job 4 Contract",
    ),
    Case(
        cleaning.drop_update_notes,
        STORY
        + "<p><em>Last updated: April 21, 2025</em></p><p>Last updated kettles boil faster than the old ones.</p>",
        dropped="Last updated: April 21",
        kept="Last updated kettles boil faster",
    ),
    Case(
        cleaning.drop_second_copies,
        f"<div><div class='wide'><div>{LONG}</div></div><div class='narrow'><div>{LONG}</div></div></div>"
        f"<p>{LONG}</p><p>{LONG}</p>",
        dropped=f"{LONG.strip()} {LONG.strip()} {LONG.strip()} {LONG.strip()}",
        kept=f"{LONG.strip()} {LONG.strip()} {LONG.strip()}",
    ),
    Case(
        cleaning.drop_before_title,
        "<div><a href='/'>Home</a> › <a href='/kettles'>Kettles</a></div>"
        "<header><span>Kitchen</span><h1>The quiet kettle</h1></header>" + STORY * 2,
        dropped="Home › Kettles",
        kept="Kitchen The quiet kettle",
    ),
    Case(
        cleaning.drop_closing_labels,
        "<h2>Comments on the forecast</h2>" + STORY + "<h3>3 Comments</h3>",
        dropped="3 Comments",
        kept="Comments on the forecast",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.cleaning_pass.__name__)
def test_a_pass_drops_its_kind_and_keeps_the_look_alike(case: Case):
    content = content_of(case.html)
    before = text(content)
    assert case.dropped in before
    assert case.kept in before
    case.cleaning_pass(content, article=case.article)
    after = text(content)
    assert case.dropped not in after
    assert case.kept in after


def test_every_pass_has_its_case_and_every_pass_has_a_docstring():
    assert [case.cleaning_pass for case in CASES] == list(cleaning.PASSES)
    for cleaning_pass in cleaning.PASSES:
        assert cleaning_pass.__doc__, cleaning_pass.__name__


def test_a_menu_that_is_all_the_content_says_is_its_index_and_stays():
    contents = "<ul>" + "".join(
        f"<li><a href='/guide/{n}'>Part {n}: descaling</a><ul><li><a href='/guide/{n}#acid'>Acids, part {n}</a></li>"
        f"<li><a href='/guide/{n}#rinse'>Rinsing, part {n}</a></li></ul></li>"
        for n in range(8)
    )
    page = f"<h1>Contents</h1>{contents}</ul><p>Start anywhere.</p>"
    content = content_of(page)
    cleaning.drop_menus(content, article=False)
    assert "Rinsing, part 7" in text(content), "a contents page is its table of contents"
    story = content_of(page)
    cleaning.drop_menus(story, article=True)
    assert "Rinsing, part 7" not in text(story), "over a short story, a news site's mega menu is still a menu"


CODE_LINES = (
    "image: nginx:1.14.2",
    "Photo: AP",
    "Read more",
    "Sign in to comment",
    "4 min read",
    "Contents",
    "Related posts",
    "<a href='/posts/1'>posts[1]</a>",
)
"""Lines of code that read like what the passes drop: a YAML key, a credit, a teaser's link, a
prompt, a reading time, the label of a table of contents, a rail's label over a line of links."""


@pytest.mark.parametrize("line_tag", ["span", "div"])
@pytest.mark.parametrize("cleaning_pass", cleaning.PASSES, ids=lambda cleaning_pass: cleaning_pass.__name__)
def test_no_pass_looks_inside_a_block_of_code(cleaning_pass: cleaning.Pass, line_tag: str):
    """Highlighters set each line in a ``span`` or a ``div`` of its own."""
    lines = "\n".join(f"<{line_tag} class='line'><span class='cl'>{line}</span></{line_tag}>" for line in CODE_LINES)
    content = content_of(f"{STORY}<pre><code class='language-yaml'>{lines}</code></pre>{STORY}")
    cleaning_pass(content, article=True)
    code = text(content_of(lines))
    assert code in text(content)


def test_nested_lists_of_links_that_are_a_manuals_parts_stay_beside_a_story():
    def part(name: str, opening: str) -> str:
        return (
            f"<section><h2>{name}</h2>{opening}<div><ul><li><a href='/{name}'>{name} overview</a><ul>"
            f"<li><a href='/{name}/install'>Installing {name}</a></li></ul></li></ul></div></section>"
        )

    said = "".join(part(name, f"<p>How {name} is done, step by step.</p>") for name in ("Brewing", "Descaling", "Care"))
    content = content_of(STORY + said)
    cleaning.drop_menus(content, article=True)
    assert "Installing Descaling" in text(content), "each part says what it holds: the manual's contents"
    labelled = content_of(STORY + "".join(part(name, "") for name in ("Brewing", "Descaling", "Care")))
    cleaning.drop_menus(labelled, article=True)
    assert "Installing Descaling" not in text(labelled), "labelled columns of links are a menu"


def test_a_control_that_unfolds_what_is_there_goes_and_a_heading_on_unfolding_stays():
    content = content_of(
        "<details open><summary><span>Expand description</span></summary>" + STORY + "</details>"
        "<div><span>Expand all</span> <span>Collapse all</span></div><h2>Expanding responses</h2>" + STORY
    )
    cleaning.drop_controls(content, article=False)
    assert "Expand description" not in text(content)
    assert "Collapse all" not in text(content)
    assert "Expanding responses" in text(content), "a section on expanding is no control"


def test_an_accounts_controls_go_but_a_section_or_a_link_in_a_sentence_on_signing_in_stays():
    content = content_of(
        "<ul><li><a href='/login'>Sign in</a></li><li><a href='/join'>Register</a></li></ul>"
        "<h2>Sign in</h2><p>See the <a href='/wiki/login'>login</a> article first.</p>" + STORY
    )
    cleaning.drop_controls(content, article=False)
    assert "Register" not in text(content)
    assert "Sign in See the login article first." in text(content)


def test_a_permalink_beside_its_heading_goes_and_a_link_to_another_heading_stays():
    content = content_of(
        "<div><h2 id='steps'>Steps</h2><a class='sl-anchor-link' href='#steps'><span class='sr-only'>Section titled"
        " “Steps”</span></a></div><p>See <a class='anchor' href='#rinsing'>Rinsing</a> first.</p>"
        "<div><h2 id='rinsing'>Rinsing</h2></div>"
    )
    cleaning.drop_permalinks(content, article=False)
    assert "Section titled" not in text(content)
    assert "See Rinsing first." in text(content), "a link to a heading elsewhere is a reference"


def test_a_permalink_to_the_label_before_its_heading_goes_and_so_does_a_link_to_the_code_it_documents():
    """Django's documentation: Sphinx sets a label's ``id`` on an empty ``span`` before the heading,
    and viewcode's "[source]" into each class's signature, linking to the file on its forge."""
    content = content_of(
        "<section id='s-cache'><span id='cache-middleware'></span><h3>Cache middleware<a class='headerlink'"
        " href='#cache-middleware'>¶</a></h3><dl class='py class'><dt class='sig sig-object py' id='cache.Update'>"
        "<span class='sig-name descname'><span class='pre'>UpdateCacheMiddleware</span></span><a class='reference"
        " external' href='https://github.com/django/django/blob/stable/5.1.x/django/middleware/cache.py#L61'><span"
        " class='viewcode-link'><span class='pre'>[source]</span></span></a></dt><dd><p>Updates the cache; see"
        " <a href='/en/5.1/topics/cache/'>[source]</a> for its settings.</p></dd></dl></section>"
    )
    cleaning.drop_permalinks(content, article=False)
    cleaning.drop_source_links(content, article=False)
    assert text(content) == (
        "Cache middleware UpdateCacheMiddleware Updates the cache; see [source] for its settings."
    ), "a link that says [source] to a page of prose is the writer's"


def test_a_link_to_another_page_whose_path_spells_the_headings_id_is_no_permalink():
    content = content_of(
        "<div id='changelog'><h2>Changelog</h2><a class='headerlink' href='/changelog'>¶</a>"
        "<a class='headerlink' href='#changelog'>¶</a></div>" + STORY
    )
    measures = Measures(content)
    found = {anchor.get("href"): furniture.is_permalink(anchor, measures) for anchor in content.iter("a")}
    assert found == {"/changelog": False, "#changelog": True}, "only a link to '#' and the id is the block's own"


def test_a_list_of_links_to_the_pages_sections_and_elsewhere_is_no_table_of_contents():
    content = content_of(
        "<h2 id='boil'>Boil</h2>" + STORY + "<h2 id='dry'>Dry</h2><ul><li><a href='#boil'>Boil</a></li>"
        "<li><a href='/rinse'>Rinsing guide</a></li><li><a href='#dry'>Dry</a></li></ul><ul><li><a href='#fn1'>1</a>"
        "</li><li><a href='#fn2'>2</a></li><li><a href='#fn3'>3</a></li></ul>"
    )
    cleaning.drop_tables_of_contents(content, article=False)
    assert "Rinsing guide" in text(content)
    assert "1 2 3" in text(content), "links to footnotes are no table of contents"


def test_the_same_description_of_two_terms_is_no_second_copy():
    parameters = (
        "<dl class='field-list'><dt>Parameters</dt><dd><ul><li><strong>url</strong> – the address of the kettle's"
        " own server.</li><li><strong>data</strong> – what to send in the body of the request.</li></ul></dd></dl>"
    )
    content = content_of(
        f"<section><dl class='function'><dt>kettle.put(url, data)</dt><dd><p>Sends a PUT.</p>{parameters}</dd></dl>"
        f"<dl class='function'><dt>kettle.patch(url, data)</dt><dd><p>Sends a PATCH.</p>{parameters}</dd></dl>"
        "</section>"
    )
    cleaning.drop_second_copies(content, article=False)
    assert text(content).count("what to send in the body of the request.") == 2, "each function has its parameters"
    twice = content_of(
        f"<section><dl class='function'><dt>kettle.put(url, data)</dt><dd><p>Sends a PUT.</p>{parameters}"
        f"<div class='narrow'>{parameters}</div></dd></dl></section>"
    )
    cleaning.drop_second_copies(twice, article=False)
    assert text(twice).count("what to send in the body of the request.") == 1, "one term's copy is still a copy"


def test_each_control_is_read_up_to_its_own_length_from_one_reading_of_the_block():
    padded = "." * 40
    content = content_of(
        "<p><a href='/story'>Read more</a> <a href='/story-2'>Read more" + padded + "</a></p>"
        "<div>Sort by</div><div>Sort by" + " ." * 15 + "</div>"
        "<p>Please log in to comment" + " x" * 65 + "</p><p>Please log in to comment" + " x" * 70 + "</p>" + STORY
    )
    cleaning.drop_controls(content, article=False)
    after = text(content)
    assert after.count("Read more") == 1, "a link to the rest says at most 40"
    assert "Read more" + padded in after
    assert after.count("Sort by") == 1, "a shop's control says at most 30"
    assert "Sort by ." in after
    assert after.count("Please log in to comment") == 1, "a prompt to sign in says at most 160"
    assert "Please log in to comment" + " x" * 70 in after


def test_posts_two_of_which_link_to_profiles_are_no_thread():
    quoted = (
        "<div class='post'><a href='/members/{0}/'>Poster {0}</a><blockquote>{1}</blockquote><p>Mine {0}.</p></div>"
    )
    content = content_of(
        "<div class='post'><p>"
        + QUESTION
        + "</p></div>"
        + quoted.format(1, QUESTION)
        + quoted.format(2, QUESTION).replace("/members/2/", "/about/")
        + quoted.format(3, QUESTION)
    )
    cleaning.drop_posts_furniture(content, article=False)
    assert text(content).count(QUESTION) == 4, "two profiles make no thread: its quotes are not read as repeats"
    thread = content_of(
        "<div class='post'><p>"
        + QUESTION
        + "</p></div>"
        + "".join(quoted.format(number, QUESTION) for number in (1, 2, 3))
    )
    cleaning.drop_posts_furniture(thread, article=False)
    assert text(thread).count(QUESTION) == 1, "three profiles make a thread, and its quotes of the first post go"


def test_an_entrys_update_and_a_posts_edit_are_the_records_fields_not_the_pages_notes():
    entries = "".join(
        f"<li><a href='/r/{name}'>{name}</a><p>A kettle's firmware.</p><span>Updated Mar {day}, 2026</span></li>"
        for name, day in [("boil", 8), ("descale", 7)]
    )
    post = "<div class='post'><p>Descale it monthly.</p><p>Last edited by Trilby (2024-08-04 14:26:59)</p></div>"
    html = (
        f"<ul>{entries}</ul>{post}<p>Dernière mise à jour : mai 2024</p>"
        "<div>Zuletzt aktualisiert am 3. März 2025</div><p>This post was last updated July 2021.</p>"
    )
    content = content_of(html + STORY)
    cleaning.drop_update_notes(content, article=False)
    text = " ".join("".join(content.itertext()).split())
    assert "Updated Mar 8, 2026" in text
    assert "Updated Mar 7, 2026" in text
    assert "Last edited by Trilby" in text
    for note in ["Dernière mise à jour", "Zuletzt aktualisiert", "last updated July"]:
        assert note not in text, note
