"""React's streamed server rendering: parts that arrive after the shell are put where the page's own
scripts put them, so the reader's page, in its order, is what is extracted."""

import pytest
from steward_websearch.extraction import extract, parse, streaming

STORY = (
    "<p>The council voted on Tuesday to keep the night buses running through the winter, after a"
    " petition with four thousand names reached the town hall in a single week.</p>"
)
LATER = (
    "<p>The second half of the story arrived later in the stream: the buses will run every twenty"
    " minutes, and the fares stay as they are until the spring.</p>"
)


def page(body: str) -> bytes:
    return f"<html><head><title>Night buses</title></head><body>{body}</body></html>".encode()


def markdown(body: str) -> str:
    return extract(page(body), url="https://news.example/buses", content_type="text/html").markdown


def test_a_completed_boundary_takes_the_place_of_its_fallback():
    text = markdown(
        f"<main><h1>Night buses</h1>{STORY}"
        '<!--$?--><template id="B:0"></template><p>Loading the rest of the story…</p><!--/$-->'
        "<p>Reported by the newsroom, with thanks to the drivers who answered our questions.</p></main>"
        f'<div hidden id="S:0">{LATER}</div><script>$RC("B:0","S:0")</script>'
    )
    first, second = text.index("The council voted"), text.index("The second half")
    assert first < second < text.index("Reported by the newsroom"), "the part sits where its boundary was"
    assert "Loading the rest" not in text, "the fallback goes when the part arrives"


def test_a_segment_fills_its_placeholder_inside_another_part():
    text = markdown(
        f'<main><h1>Night buses</h1><!--$?--><template id="B:0"></template><!--/$--></main>'
        f'<div hidden id="S:0">{STORY}<template id="P:1"></template></div>'
        f'<div hidden id="S:1">{LATER}</div>'
        '<script>$RS("S:1","P:1");$RC("B:0","S:0")</script>'
    )
    assert text.index("The council voted") < text.index("The second half")


def test_the_external_runtime_says_the_same_with_attributes():
    text = markdown(
        f'<main><h1>Night buses</h1>{STORY}<!--$?--><template id="B:0"></template><!--/$--></main>'
        f'<div hidden id="S:0">{LATER}</div><template data-rci="" data-bid="B:0" data-sid="S:0"></template>'
    )
    assert text.index("The council voted") < text.index("The second half")


def test_what_no_script_moves_stays_as_it_was():
    shell = (
        f"<main><h1>Night buses</h1>{STORY}"
        '<!--$?--><template id="B:0"></template><p>Loading comments</p><!--/$--></main>'
        '<div hidden id="S:0"><p>A part the page never completes is never shown.</p></div>'
    )
    assert "never shown" not in markdown(shell + "<script>var x = 1;</script>")
    assert "never shown" not in markdown(shell + '<script>$RC("B:0","S:0","digest-of-an-error")</script>'), (
        "a boundary completed with an error is rendered on the client, from data the page does not hold"
    )


@pytest.mark.parametrize("parser", ["lexbor", "html5lib"])
def test_both_parsers_give_the_same_moves(parser):
    source = streaming.drop_fallbacks(
        '<div id="a"><!--$?--><template id="B:0"></template><i>wait</i><!--/$-->tail</div>'
        '<div hidden id="S:0">one<b>two</b>three</div><script>$RC("B:0","S:0")</script>'
    )
    root = parse.parse_html(source, parser)
    assert streaming.place_streamed_parts(root) == 1
    body = root.find("body")
    assert "".join(body.find("div").itertext()) == "onetwothreetail"
    assert body.find("div[@hidden]") is None


def test_a_segment_is_never_moved_into_itself():
    root = parse.parse_html(
        '<div hidden id="S:0"><template id="B:0"></template>x</div><script>$RC("B:0","S:0")</script>'
    )
    assert streaming.place_streamed_parts(root) == 0
