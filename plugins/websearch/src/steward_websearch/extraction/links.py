"""Links as a reader follows them: made absolute against the page, or not links at all.

A page's ``href`` is whatever its author typed. Where a browser cannot make a URL of one
(``http://[ccpa-preferences]`` is a bracketed host that is no IP address, ``:port`` no port), it
leaves the link dead and shows its text; extraction does the same instead of failing the page.
"""

from __future__ import annotations

import functools
from urllib.parse import urljoin, urlsplit, urlunsplit

_NOT_FOLLOWED = ("javascript:", "data:", "vbscript:")


@functools.lru_cache(maxsize=8192)
def absolute_url(base: str, reference: str) -> str | None:
    """``reference`` resolved against ``base``; ``None`` for a script or data URL, or no URL at all.

    Remembered: a page names the same addresses in its menus, its content and its link list,
    and both renderings and ``Document.links`` resolve each (``urljoin`` was 8 % of extraction).
    """
    reference = reference.strip()
    if not reference or reference.lower().startswith(_NOT_FOLLOWED):
        return None
    try:
        if reference.startswith(_ABSOLUTE) and ";" not in reference:
            return _absolute(base, reference)
        url = urljoin(base, reference)
        port = urlsplit(url).port
    except ValueError:
        return None
    return url if port != 0 else None


_ABSOLUTE = ("http://", "https://")


def _absolute(base: str, reference: str) -> str | None:
    """What ``urljoin`` makes of an absolute http(s) URL, from the one split the port check needs:
    the URL itself when its scheme is not the base's, else the URL put back together (an empty
    ``?`` or ``#`` dropped). Most links of a page are absolute; joining them was half the cost."""
    parts = urlsplit(reference)
    if parts.port == 0 or not parts.netloc:
        return None if parts.port == 0 else urljoin(base, reference)
    if not base.startswith(parts.scheme + ":"):
        return reference
    return urlunsplit(parts)
