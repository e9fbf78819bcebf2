"""Links resolved as ``urljoin`` resolves them: the short cuts for absolute URLs and paths from
the site's root must give exactly what it gives, and a link no browser could follow is none."""

from urllib.parse import urljoin, urlsplit

import pytest
from steward_websearch.extraction.links import absolute_url

BASES = [
    "https://shop.example/a/b.html?q=1#top",
    "http://user@[::1]:8080/x/",
    "https://shop.example:0/",
    "https://shop.example:99999/",
    "ftp://files.example/pub/",
]
REFERENCES = [
    "/kettles",
    "/kettles/?page=2#list",
    "/a/./b",
    "/a/../b",
    "/a/.",
    "/x?",
    "/x#",
    "/x?#f",
    "/x;v=2",
    "/a\nb",
    "/a\tb",
    "//cdn.example/k.png",
    "/ spaced",
    "https://other.example/p?",
    "https://other.example/p#",
    "https://other.example/./p",
    "http://shop.example/p",
    "HTTPS://Other.example/P",
    "https://other.example:0/p",
    "https://[oops/p",
    "https:///p",
    "https://other.example/p?q=1#f",
    "https://other.example?only=query",
    "https://other.example#only-fragment",
    "https://other.example/a b",
    "https://user:secret@other.example/p",
    "https://other.example:8080/p",
    "https://other.example:/p",
    "https://δ.example/p",
    "https://other.example\\p",
    "https://other.example/p;v=2",
    "relative/page",
    "../up",
    "?only=query",
    "#anchor",
]


def urljoin_result(base: str, reference: str) -> str | None:
    try:
        url = urljoin(base, reference.strip())
        return url if urlsplit(url).port != 0 else None
    except ValueError:
        return None


@pytest.mark.parametrize("base", BASES)
def test_every_link_resolves_as_urljoin_resolves_it(base):
    for reference in REFERENCES:
        assert absolute_url(base, reference) == urljoin_result(base, reference), (base, reference)


def test_links_no_browser_follows_are_none():
    for reference in ("javascript:void(0)", " JavaScript:x", "data:text/html,hi", "vbscript:x", "", "   "):
        assert absolute_url("https://shop.example/", reference) is None


def test_a_file_on_the_author_s_disk_is_a_link_only_from_a_file():
    """A web page's ``file:`` link (an author's local copy, linked by mistake) is dead in a browser;
    a local page read with its own ``file:`` address links to its neighbours."""
    assert absolute_url("https://shop.example/", "file:///Users/derek/Downloads/guide.html") is None
    assert absolute_url("https://shop.example/", " FILE:///C:/guide.html") is None
    assert absolute_url("file:///home/me/site/page.html", "other.html") == "file:///home/me/site/other.html"
    assert absolute_url("file:///home/me/site/page.html", "file:///etc/guide.html") == "file:///etc/guide.html"
