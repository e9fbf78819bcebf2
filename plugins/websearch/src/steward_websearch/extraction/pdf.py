"""PDF → text in reading order, page by page, with title, author and page count.

PDFium (Chrome's PDF engine, through pypdfium2) reads the text layer: measured on two real
manuals here it was 5-10x faster than pypdf and pdfminer.six at the same text, in 21 MB against
36-37 MB. A PDF is an attack surface, so this runs in an isolated worker like all extraction,
and two caps hold besides the worker's time and memory: only the first ``max_pages`` pages are
read, and how far the Flate streams inflate is checked before PDFium sees the file (a few
kilobytes that inflate to gigabytes are refused in the time it takes to inflate
``MAX_INFLATED_BYTES``, not when the worker runs out of memory). Nothing is rendered and no
OCR is run: a scanned PDF with no text layer is refused with a message saying so.
"""

from __future__ import annotations

import re
import zlib

from steward_websearch.extraction.document import (
    MAX_PDF_PAGES,
    Document,
    InvalidContent,
    UnsupportedContent,
    estimate_tokens,
)

PAGE_BREAK = "\n\n---\n\n"
"""Between pages, in the Markdown and the text: a thematic break, which Markdown readers show as a rule."""
MAX_INFLATED_BYTES = 256 * 1024 * 1024
"""All of a PDF's Flate streams together, inflated; a worker has 1 GiB by default."""

_STREAM_START = re.compile(rb"stream\r?\n")
_INPUT_CHUNK = 16 * 1024
_IMAGE = re.compile(rb"/Subtype\s*/Image\b")
_DICTIONARY_REACH = 1024
"""How far before ``stream`` its dictionary is looked for (an image's is a few hundred bytes); only
back to its own ``obj``, so an image just before cannot vouch for the stream after it."""
_BLANK_LINES = re.compile(r"\n{3,}")


def read_pdf(body: bytes, *, url: str, max_pages: int = MAX_PDF_PAGES) -> Document:
    """The text of ``body``, a PDF; :class:`InvalidContent` for what cannot be read, and why."""
    import pypdfium2

    if b"%PDF-" not in body[:1024]:
        raise InvalidContent("declared a PDF, but the body is not one (no %PDF- header)")
    check_inflated_size(body)
    try:
        document = pypdfium2.PdfDocument(body)
    except pypdfium2.PdfiumError as error:
        raise InvalidContent(_why_unreadable(error)) from None
    try:
        total = len(document)
        texts = [_page_text(document, index) for index in range(min(total, max_pages))]
        metadata = {key.lower(): value.strip() for key, value in document.get_metadata_dict().items()}
    finally:
        document.close()
    damaged = sum(text is None for text in texts)
    if texts and damaged == len(texts):
        raise InvalidContent(f"none of the PDF's {len(texts)} page(s) could be read: the file is damaged")
    pages = [text or "" for text in texts]
    if total and not any(pages):
        raise UnsupportedContent(
            f"the PDF's {total} page(s) have no text layer (scanned images?); Steward does not run OCR"
        )
    text = PAGE_BREAK.join(page for page in pages if page)
    title = metadata.get("title") or _first_line(text)
    found = {"url": url, "pages": str(total), "title": title[:500]}
    if metadata.get("author"):
        found["byline"] = metadata["author"][:500]
    if total > len(pages):
        found["pages_read"] = str(len(pages))
    if damaged:
        found["pages_damaged"] = str(damaged)
    tokens = estimate_tokens(text)
    return Document(
        title=title[:500],
        markdown=text,
        text=text,
        metadata={key: value for key, value in found.items() if value},
        content_type="application/pdf",
        raw_tokens=tokens,
        clean_tokens=tokens,
    )


def check_inflated_size(body: bytes, limit: int = MAX_INFLATED_BYTES) -> None:
    """:class:`InvalidContent` when the Flate streams of ``body`` inflate past ``limit`` bytes in all.

    Streams are found by their ``stream`` keyword and inflated a small piece at a time, so the
    check holds at most a few megabytes whatever the file claims. Images are skipped: reading
    text never decodes them, and a scanned book's pages inflate to gigabytes honestly. What is
    not Flate data is skipped too (PDFium reads it, within the worker's memory limit).
    """
    view = memoryview(body)
    inflated = 0
    for start in _STREAM_START.finditer(body):
        own_object = body.rfind(b"obj", max(0, start.start() - _DICTIONARY_REACH), start.start())
        if _IMAGE.search(body, max(0, own_object, start.start() - _DICTIONARY_REACH), start.start()):
            continue
        inflater = zlib.decompressobj()
        position = start.end()
        try:
            while not inflater.eof and position < len(body):
                inflated += len(inflater.decompress(view[position : position + _INPUT_CHUNK]))
                position += _INPUT_CHUNK
                if inflated > limit:
                    raise InvalidContent(
                        f"the PDF's compressed streams inflate past {limit // (1024 * 1024)} MB; it was not read"
                    )
        except zlib.error:
            continue


def _page_text(document, index: int) -> str | None:
    """The text of one page; ``None`` for a page PDFium cannot load (a page object that is no
    page, a damaged content stream), so that the pages around it are still read."""
    from pypdfium2 import PdfiumError

    try:
        page = document[index]
    except PdfiumError:
        return None
    try:
        text_page = page.get_textpage()
        try:
            raw = text_page.get_text_range()
        finally:
            text_page.close()
    except PdfiumError:
        return None
    finally:
        page.close()
    lines = (line.rstrip() for line in raw.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n").split("\n"))
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def _why_unreadable(error: Exception) -> str:
    message = str(error)
    if "password" in message.lower():
        return "the PDF is encrypted with a password; it cannot be read"
    if "security" in message.lower():
        return "the PDF uses a security handler that cannot be read"
    return f"the body is not a readable PDF ({message.removeprefix('Failed to load document ').strip('().')})"


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.split("\n") if line.strip()), "")
