"""rs-trafilatura (through trafipy) for bench/extraction.py, in a Python of its own.

trafipy ships wheels for CPython 3.12 and later only, and Steward's environment is 3.11, so the
bench runs this file in ``.venv-trafipy`` (``make bench`` makes it with a Python 3.12 when the
machine has one). Requests come on stdin, one JSON line each (``{"html": …, "url": …}``, the page
as Latin-1 so bytes survive), and each answer is a JSON line with the text and the seconds
``trafipy.extract`` took in this process, so the pipe is never counted as extraction time.
"""

import json
import re
import sys
import time

import trafipy


def decoded(html: bytes) -> str:
    """trafipy takes text: UTF-8, else the charset the page declares, else Windows-1252."""
    try:
        return html.decode("utf-8")
    except UnicodeDecodeError:
        declared = re.search(rb"""charset=["']?([A-Za-z0-9_-]+)""", html[:4096])
        try:
            return html.decode(declared.group(1).decode() if declared else "cp1252", "replace")
        except LookupError:
            return html.decode("cp1252", "replace")


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        html = request["html"].encode("latin-1")
        started = time.perf_counter()
        try:
            text = trafipy.extract(decoded(html), url=request["url"] or None).text or ""
        except Exception as error:  # noqa: BLE001 - a page it cannot read scores as empty, as trafilatura's None does
            text = ""
            print(f"trafipy: {type(error).__name__}: {error}", file=sys.stderr)
        seconds = time.perf_counter() - started
        sys.stdout.write(json.dumps({"text": text, "seconds": seconds}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
