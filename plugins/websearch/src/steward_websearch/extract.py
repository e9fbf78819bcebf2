"""``steward_websearch.extract``: the public extraction API at its first address (kept working).

The code lives in :mod:`steward_websearch.extraction`.
"""

from steward_websearch.extraction import (
    Document,
    InvalidContent,
    PageTooComplex,
    UnsupportedContent,
    decode,
    estimate_tokens,
    extract,
    is_json,
    json_text,
    media_type,
    text_body,
)

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
    "media_type",
    "text_body",
]
