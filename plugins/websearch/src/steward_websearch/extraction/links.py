"""Links as a reader follows them: made absolute against the page, or not links at all.

A page's ``href`` is whatever its author typed. Where a browser cannot make a URL of one
(``http://[ccpa-preferences]`` is a bracketed host that is no IP address, ``:port`` no port), it
leaves the link dead and shows its text; extraction does the same instead of failing the page.
"""

from __future__ import annotations

import functools
import re
from urllib.parse import SplitResult, urljoin, urlsplit, urlunsplit

_NOT_FOLLOWED = ("javascript:", "data:", "vbscript:")


@functools.lru_cache(maxsize=8192)
def absolute_url(base: str, reference: str) -> str | None:
    """``reference`` resolved against ``base``; ``None`` for a script or data URL, for a file on the
    author's disk linked from a web page (``file:///Users/…``: browsers refuse to follow it, and
    Markdown readers to show it as a link), or no URL at all.

    Remembered: a page names the same addresses in its menus, its content and its link list,
    and both renderings and ``Document.links`` resolve each (``urljoin`` was 8 % of extraction).
    """
    reference = reference.strip()
    if not reference or reference.lower().startswith(_NOT_FOLLOWED):
        return None
    if reference[:5].lower() == "file:" and base[:5].lower() != "file:":
        return None
    if reference.startswith(_ABSOLUTE) and _as_written(reference):
        return reference
    try:
        if reference.startswith(_ABSOLUTE) and ";" not in reference and (parts := urlsplit(reference)).netloc:
            return _absolute(base, reference, parts)
        if _plain_path(reference) and (origin := _origin(base)):
            return origin + reference
        url = urljoin(base, reference)
        port = urlsplit(url).port
    except ValueError:
        return None
    return url if port != 0 else None


_ABSOLUTE = ("http://", "https://")


def _as_written(absolute: str) -> bool:
    """An absolute http(s) URL that resolves to itself as written, with no parsing: printable
    ASCII, no parameters (``;``), no empty query or fragment for ``urljoin`` to drop, and a host
    that is a plain name (no user, port, brackets or backslash: those are parsed, a port checked).
    Most links of a page are such, and ``Document.links`` resolves every one of the page: splitting
    and joining each again took 0.8 s of 20 s on WCXB's test split under a profiler."""
    if not (absolute.isascii() and absolute.isprintable()) or ";" in absolute or "?#" in absolute:
        return False
    if absolute.endswith(("?", "#")):
        return False
    start = absolute.index("//") + 2
    host = _HOST_END.split(absolute[start:], maxsplit=1)[0]
    return bool(host) and not _PARSED_HOST.search(host)


_HOST_END = re.compile(r"[/?#]")
_PARSED_HOST = re.compile(r"[:@\[\]\\\s]")


def _plain_path(reference: str) -> bool:
    """A path from the site's root that ``urljoin`` leaves as it is: no dot segments to resolve,
    no parameters, no empty query or fragment for it to drop, no tab or line break for it to take out."""
    return (
        reference.isprintable()
        and reference.startswith("/")
        and not reference.startswith("//")
        and "/." not in reference
        and ";" not in reference
        and "?#" not in reference
        and not reference.endswith(("?", "#"))
    )


@functools.lru_cache(maxsize=256)
def _origin(base: str) -> str | None:
    """``scheme://host[:port]`` of an http(s) base with a valid port; ``None`` for any other."""
    try:
        parts = urlsplit(base)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc or port == 0:
        return None
    return f"{parts.scheme}://{parts.netloc}"


def _absolute(base: str, reference: str, parts: SplitResult) -> str | None:
    """What ``urljoin`` makes of an absolute http(s) URL with a host, from the one split the port
    check needs: the URL itself when its scheme is not the base's, else the URL put back together
    (an empty ``?`` or ``#`` dropped). Most links of a page are absolute; joining them was half the cost."""
    if parts.port == 0:
        return None
    if not base.startswith(parts.scheme + ":"):
        return reference
    return urlunsplit(parts)
