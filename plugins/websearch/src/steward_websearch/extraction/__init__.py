"""Extraction: a fetched body to clean Markdown and text, with its metadata.

A library of its own: it imports nothing from ``steward``, so it can be used, tested and
benchmarked apart from the host. ``extract(body, url=, content_type=)`` is the entry point;
``parse`` builds the tree, ``streaming`` puts the parts a React page streams where its scripts
would, ``boilerplate`` drops what is not content, ``main_content`` finds what a reader came for and
``cleaning`` tidies inside it (``tree``, ``roles`` and ``blocks`` are what the three share: the
tree's measures, what names say, what measures say), ``linked_data`` reads what the page declares
it is (and the article body it declares, for pages whose HTML does not show it), ``product``
puts a product's buy box beside its description, ``markdown`` renders it.
"""

from steward_websearch.extraction.document import (
    Document,
    InvalidContent,
    UnsupportedContent,
    decode,
    estimate_tokens,
    extract,
    is_json,
    json_text,
    load_json,
    media_type,
    text_body,
)
from steward_websearch.extraction.parse import PageTooComplex, parse_html

__all__ = [
    "Document",
    "InvalidContent",
    "PageTooComplex",
    "UnsupportedContent",
    "decode",
    "estimate_tokens",
    "extract",
    "is_json",
    "json_text",
    "load_json",
    "media_type",
    "parse_html",
    "text_body",
]
