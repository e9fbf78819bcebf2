"""Clean, compact content out of a fetched body, chosen by its declared Content-Type.

- HTML and XHTML are parsed the way browsers parse (``parse``, broken markup included), with
  the parts a React page streams put in place (``streaming``); the main content is found
  (``main_content``) and rendered as Markdown (``markdown``), with title, byline, date, language
  and description as metadata. With no recognisable main content, the whole body minus
  boilerplate is returned; a page whose HTML does not show the article it declares in JSON-LD
  gives that article (``linked_data``).
- JSON is validated and pretty-printed (a caller's jq program runs apart: ``jq_program``).
- text/plain, text/markdown and text/csv come back as they are.
- PDF (declared, or sniffed when the server says only ``application/octet-stream``) is read for
  its text layer (``pdf``): pages in order, separated by a thematic break.
- Anything else is :class:`UnsupportedContent`. The body is sniffed only to catch a lie (a PDF
  served as text/html), never to guess a type the server did not declare.

Token counts are an estimate (one token per four characters, what common BPE vocabularies give on
English prose); no tokenizer is downloaded at run time.
"""

from __future__ import annotations

import codecs
import contextlib
import gc
import json
import re
from collections.abc import Iterator
from typing import Any
from xml.etree import ElementTree
from xml.etree.ElementTree import Element

import msgspec
import webencodings

from steward_websearch.extraction import boilerplate, cleaning, linked_data, main_content, product, streaming
from steward_websearch.extraction.blocks import says_the_title, title_words
from steward_websearch.extraction.links import absolute_url
from steward_websearch.extraction.markdown import Renderer
from steward_websearch.extraction.parse import parse_html
from steward_websearch.extraction.tree import flatten_deep, paragraph_text, remove_keeping_tail

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
JSON_TYPES = frozenset({"application/json", "text/json"})
TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown", "text/csv"})
PDF_TYPES = frozenset({"application/pdf", "application/x-pdf"})
MAX_PDF_PAGES = 500
BINARY_SIGNATURES = (
    (b"%PDF-", "a PDF document"),
    (b"\x89PNG", "a PNG image"),
    (b"GIF8", "a GIF image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"\x1f\x8b", "gzip data"),
    (b"RIFF", "a RIFF (WebP, WAV, AVI) file"),
    (b"\x00\x00\x01\x00", "an icon"),
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_META_READS_AS = {"utf-16le": "utf-8", "utf-16be": "utf-8", "x-user-defined": "windows-1252"}
"""What a ``<meta charset>`` naming these means (HTML's prescan): a page whose tag could be read
as ASCII is in no UTF-16, and x-user-defined there means windows-1252."""
_LEGACY = frozenset(
    name for name in webencodings.LABELS.values() if name not in {"utf-8", "utf-16le", "utf-16be", "replacement"}
)
"""The encodings a UTF-8 body can be declared in by mistake: every one but UTF-8 itself, UTF-16
(whose ASCII text is valid UTF-8 too) and the replacement encoding."""


class UnsupportedContent(Exception):
    """A type Steward does not turn into text; the message names it."""


class InvalidContent(Exception):
    """A body that does not hold what its type says (bad JSON), or a bad jq program."""


class Document(msgspec.Struct, kw_only=True):
    title: str
    markdown: str
    text: str
    metadata: dict[str, str]
    content_type: str
    raw_tokens: int
    clean_tokens: int
    links: list[str] = []
    html: str = ""


def estimate_tokens(text: str) -> int:
    return (len(text) + 3) // 4


def media_type(content_type: str) -> tuple[str, str | None]:
    """``text/html; charset=UTF-8`` → (``text/html``, ``utf-8``)."""
    kind, _, parameters = content_type.partition(";")
    charset = None
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            charset = value.strip().strip("\"'").lower()
    return kind.strip().lower(), charset


def extract(
    body: bytes,
    *,
    url: str,
    content_type: str,
    main_content_only: bool = True,
    with_html: bool = False,
    with_text: bool = True,
    max_pdf_pages: int = MAX_PDF_PAGES,
) -> Document:
    """Turn ``body`` into a :class:`Document`; usable without any server.

    For HTML, ``links`` lists every http(s) link of the page; ``main_content_only=False`` keeps
    the whole page (navigation and footers too, scripts and styles never); ``with_html`` adds the
    kept content as HTML (what Firecrawl's ``html`` format is); ``with_text=False`` leaves
    ``Document.text`` of an HTML page empty, for a caller that reads only the Markdown (the server
    does: rendering the text too was 4 % of extraction). When the main content comes out
    empty on a page that says something (its story in a block dressed as furniture, an ``aside``),
    it is looked for again with the page's furniture kept, and failing that the page is read
    whole: a caller gets the navigation with the text rather than nothing.
    """
    kind, charset = media_type(content_type)
    if not kind:
        kind = "text/html" if _looks_like_html(body) else "application/octet-stream"
    if kind in HTML_TYPES or kind in JSON_TYPES or kind in TEXT_TYPES:
        _refuse_binary(body, kind)
    if kind in HTML_TYPES:
        with _no_cycle_collection():
            options = {"with_html": with_html, "with_text": with_text}
            document = _html(body, url, kind, charset, main_content_only=main_content_only, **options)
            if main_content_only and not document.markdown.strip():
                document = _html(body, url, kind, charset, main_content_only=True, drop_furniture=False, **options)
            if main_content_only and not document.markdown.strip():
                return _html(body, url, kind, charset, main_content_only=False, **options)
            return document
    if kind in PDF_TYPES or (kind == "application/octet-stream" and body[:1024].find(b"%PDF-") != -1):
        from steward_websearch.extraction.pdf import read_pdf

        return read_pdf(body, url=url, max_pages=max_pdf_pages)
    if is_json(kind):
        return _json(body, kind, charset)
    if kind in TEXT_TYPES:
        text = decode(body, charset, html=False)
        return _as_text(text, kind, raw=text)
    raise UnsupportedContent(
        f"unsupported content type {kind!r}: only HTML, PDF, JSON and plain text, Markdown or CSV are read"
    )


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused while a page is read, when it was running.

    A page's tree is hundreds of thousands of elements, dicts and lists made in a few milliseconds,
    and none of them in a cycle (an element knows its children, not its parent): every collection
    the allocations trigger walks them all and frees nothing, 5 % of the time extraction took on
    WCXB's pages. Reference counting frees the tree as ever; the collector runs again afterwards,
    for whatever else the process made. Left as it is when something else had paused it.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def is_json(kind: str) -> bool:
    """Whether a media type (``application/json``, ``application/ld+json``, …) holds JSON."""
    return kind in JSON_TYPES or kind.endswith("+json")


def text_body(body: bytes, content_type: str) -> str:
    """The body as text, for text types only (HTML, XML, JSON and ``text/*``): what ``raw`` mode returns."""
    kind, charset = media_type(content_type)
    textual = kind.startswith("text/") or kind in HTML_TYPES or is_json(kind) or kind.endswith("+xml")
    if not (textual or kind == "application/xml"):
        raise UnsupportedContent(f"raw mode returns text types only, not {kind or 'an undeclared type'!r}")
    _refuse_binary(body, kind)
    return decode(body, charset, html=kind in HTML_TYPES)


def _refuse_binary(body: bytes, kind: str) -> None:
    head = body[:16]
    for signature, name in BINARY_SIGNATURES:
        if head.startswith(signature):
            raise UnsupportedContent(f"declared {kind} but the body is {name}")
    if b"\x00" in body[:1024] and not body.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise UnsupportedContent(f"declared {kind} but the body is binary")


def _looks_like_html(body: bytes) -> bool:
    head = body[:512].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))


def decode(body: bytes, charset: str | None, *, html: bool) -> str:
    """Bytes to text: BOM, then the HTTP charset, then ``<meta charset>``, then UTF-8, then windows-1252.

    Never raises: undecodable bytes become U+FFFD. A charset is read by the labels of the WHATWG
    Encoding Standard, as browsers read it (``webencodings``): latin-1 and ascii mean windows-1252,
    and a label no browser knows is ignored. Python's own codec registry answers to far more
    (``rot13``, ``base64`` and ``idna`` failed the page; ``unicode_escape`` and ``utf-7`` read
    text a browser never shows). A label the standard maps to its replacement encoding (HZ,
    ISO-2022-KR: encodings whose escapes could smuggle markup) reads as one U+FFFD, as there;
    a ``<meta>`` naming UTF-16 means UTF-8 (``_META_READS_AS``). A body that is valid UTF-8 (and
    not all ASCII) is read as UTF-8 whatever legacy encoding it declares (``_as_utf8``).
    """
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return body[len(bom) :].decode(encoding, errors="replace")
    encoding = webencodings.lookup(charset) if charset else None
    if encoding is None and html and (match := _META_CHARSET.search(body[:4096])) is not None:
        encoding = webencodings.lookup(match.group(1).decode("ascii", "replace"))
        if encoding is not None and encoding.name in _META_READS_AS:
            encoding = webencodings.lookup(_META_READS_AS[encoding.name])
    if encoding is not None and encoding.name == "replacement":
        return "\ufffd" if body else ""
    if encoding is not None:
        if encoding.name in _LEGACY and (utf8 := _as_utf8(body)) is not None:
            return utf8
        return encoding.codec_info.decode(body, "replace")[0]
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body.decode("cp1252", errors="replace")


def _as_utf8(body: bytes) -> str | None:
    """``body`` read as UTF-8, when it is valid UTF-8 and not all ASCII; else None.

    Text in a legacy encoding is valid UTF-8 only by accident, and the accident needs every byte
    above ASCII to fall in UTF-8's few lead-and-continuation patterns: a page that passes is UTF-8
    whatever it declares. Such pages are common: a template's stale ``<meta charset=gb2312>`` over a
    site since moved to UTF-8, a page saved or archived as UTF-8 with its old tag kept, a server
    that labels everything ISO-8859-1. Read as declared, every accented letter is mojibake.
    """
    if body.isascii():
        return None
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _json(body: bytes, kind: str, charset: str | None) -> Document:
    raw = json_text(body, charset)
    value = load_json(raw)
    return _as_text(json.dumps(value, indent=2, ensure_ascii=False), kind, raw=raw)


def _as_text(text: str, kind: str, *, raw: str) -> Document:
    """A document whose Markdown and text are the same, with no title or metadata."""
    return Document(
        title="",
        markdown=text,
        text=text,
        metadata={},
        content_type=kind,
        raw_tokens=estimate_tokens(raw),
        clean_tokens=estimate_tokens(text),
    )


def load_json(text: str) -> Any:
    """The value ``text`` holds; :class:`InvalidContent` when it is no JSON, or nests too deep to read.

    Python's decoder recurses: ``[[[…]]]`` 100,000 deep is a ``RecursionError``, which is as much
    a body that cannot be read as a missing bracket is.
    """
    try:
        return json.loads(text)
    except ValueError as error:
        raise InvalidContent(f"the body is not valid JSON ({error})") from None
    except RecursionError:
        raise InvalidContent("the body is not valid JSON (it nests deeper than can be read)") from None


def json_text(body: bytes, charset: str | None) -> str:
    """A JSON body as text (UTF-8 unless its Content-Type says otherwise)."""
    return decode(body, charset or "utf-8", html=False)


def _html(
    body: bytes,
    url: str,
    kind: str,
    charset: str | None,
    *,
    main_content_only: bool,
    with_html: bool,
    with_text: bool,
    drop_furniture: bool = True,
) -> Document:
    source = decode(body, charset, html=True)
    root = parse_html(streaming.drop_fallbacks(source))
    if streaming.place_streamed_parts(root):
        flatten_deep(root)
    base = _base_url(root, url)
    metadata = _metadata(root, base)
    links = _links(root, base)
    body_element = root.find("body")
    if body_element is None:
        body_element = root
    items = linked_data.json_ld_items(root)
    article = linked_data.declares_an_article(metadata.get("type", ""), linked_data.declared_types(root, items))
    measures = None
    if main_content_only and drop_furniture:
        measures = boilerplate.remove_boilerplate(body_element, article=article)
    else:
        boilerplate.remove_unseen(body_element)
    content = (
        main_content.main_content(body_element, article=article, title=metadata.get("title", ""), measures=measures)
        if main_content_only
        else None
    )
    cleaned = None
    if content is None:
        content = main_content.landmark(body_element, measures) if main_content_only else body_element
    else:
        cleaned = cleaning.clean(content, article=article)
        if product.add_buy_box(items, body_element, content):
            cleaned = None
    if main_content_only:
        cleaning.tidy(content, article=article, measures=cleaned)
        content = linked_data.unrendered_body(items, content) or content
    if main_content_only:
        _drop_title_heading(content, metadata.get("title", ""))
    markdown = Renderer(base, markdown=True).render(content)
    text = Renderer(base, markdown=False).render(content) if with_text else ""
    return Document(
        title=metadata.get("title", ""),
        markdown=markdown,
        text=text,
        metadata=metadata,
        content_type=kind,
        raw_tokens=estimate_tokens(source),
        clean_tokens=estimate_tokens(markdown),
        links=links,
        html=_as_html(content) if with_html else "",
    )


def _as_html(content: Element) -> str:
    """``content`` written as HTML, without the attributes whose names ElementTree reads as
    ``{namespace}name``: a page never means one (a template's unrendered ``{{attributes}}``), and a
    ``{`` that never closes is a name ElementTree cannot write at all."""
    for element in content.iter():
        for name in [name for name in element.attrib if name.startswith("{")]:
            del element.attrib[name]
    return ElementTree.tostring(content, encoding="unicode", method="html")


def _links(root: Element, base: str) -> list[str]:
    found: dict[str, None] = {}
    for anchor in root.iter("a"):
        absolute = absolute_url(base, anchor.get("href") or "")
        if absolute and absolute.startswith(("http://", "https://")):
            found[absolute.split("#", 1)[0]] = None
    return list(found)


def _base_url(root: Element, url: str) -> str:
    base = root.find("head/base")
    href = base.get("href") if base is not None else None
    return absolute_url(url, href or "") or url


def _meta(root: Element) -> dict[str, str]:
    found: dict[str, str] = {}
    for meta in root.iter("meta"):
        key = (meta.get("property") or meta.get("name") or meta.get("itemprop") or "").strip().lower()
        value = (meta.get("content") or "").strip()
        if key and value and key not in found:
            found[key] = value
    return found


def _metadata(root: Element, url: str) -> dict[str, str]:
    meta = _meta(root)
    title_element = root.find("head/title")
    page_title = paragraph_text(title_element) if title_element is not None else ""
    title = meta.get("og:title") or meta.get("twitter:title") or page_title
    metadata = {"url": url}
    if not title:
        heading = next(root.iter("h1"), None)
        title = paragraph_text(heading) if heading is not None else ""
    values = {
        "title": title,
        "byline": meta.get("author")
        or meta.get("article:author")
        or meta.get("byl")
        or meta.get("parsely-author")
        or "",
        "published": meta.get("article:published_time")
        or meta.get("datepublished")
        or meta.get("date")
        or meta.get("pubdate")
        or meta.get("dc.date")
        or _time_datetime(root),
        "language": (root.get("lang") or meta.get("og:locale") or meta.get("content-language") or "").strip(),
        "description": meta.get("description") or meta.get("og:description") or "",
        "site_name": meta.get("og:site_name") or "",
        "type": " ".join(meta.get("og:type", "").split()).lower(),
    }
    metadata.update({key: value[:500] for key, value in values.items() if value})
    return metadata


def _time_datetime(root: Element) -> str:
    for element in root.iter("time"):
        if element.get("datetime"):
            return element.get("datetime", "")
    return ""


def _drop_title_heading(content: Element, title: str) -> None:
    """The title is metadata; an ``h1`` repeating it at the top of the main content would only
    repeat it. The whole page (``main_content_only=False``) keeps its heading where it stands."""
    if not title:
        return
    wanted = title_words(title)
    for parent in content.iter():
        for child in list(parent):
            if child.tag == "h1":
                if says_the_title(child, wanted):
                    remove_keeping_tail(parent, child)
                return
