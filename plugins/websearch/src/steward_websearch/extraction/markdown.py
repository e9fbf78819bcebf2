"""An HTML element tree (``parse.parse_html``'s) as Markdown, or as plain text.

Headings, paragraphs, lists (nested), links with absolute URLs, emphasis, inline code, fenced
code blocks, block quotes and tables survive, and images whose ``alt`` says what they show;
other images, forms and anything invisible do not. The plain-text rendering is the same walk
without the syntax, so the two never disagree on content.
"""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element

from steward_websearch.extraction import commonmark
from steward_websearch.extraction.links import absolute_url
from steward_websearch.extraction.roles import names_a_line
from steward_websearch.extraction.vocabulary import BLOCKS, NEVER_TEXT, TABLE_CELLS

_SPACES = re.compile(r"[ \t\n\r\f]+")
BREAK = "\x00"
"""Where a ``<br>`` was: the only line break inside a block (NUL never survives parsing as text)."""
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")
"""Zero-width characters: a block of nothing else shows nothing (inside text they join emoji)."""
_ASIDE = f"\\s{BREAK}\u200b\u200c\u200d\u2060\ufeff"
_EDGES = re.compile(f"^([{_ASIDE}]*)(.*?)([{_ASIDE}]*)$", re.S)
"""What may stand at the edges of a link or an emphasis without being part of it: any space
(a no-break space too: ``** bold **`` is not bold to a Markdown reader), breaks, and zero-width
characters."""
SOFT_HYPHEN = "\u00ad"
"""Where a word may break across lines (``&shy;``): shown only when it does, so never in one line of text."""


class Renderer:
    def __init__(self, base_url: str, markdown: bool = True) -> None:
        self.base_url = base_url
        self.markdown = markdown
        self.hard_break = "  \n" if markdown else "\n"
        self._holding_blocks: set[Element] = set()

    def render(self, root: Element) -> str:
        self._holding_blocks = _holding_blocks(root)
        blocks: list[str] = []
        self._blocks(root, blocks)
        shown = _between_text([block for block in blocks if _INVISIBLE.sub("", block).strip()])
        text = re.sub(r"\n{3,}", "\n\n", "\n\n".join(shown)).strip()
        if self.markdown:
            text = commonmark.resolve(text)
        return text.replace(SOFT_HYPHEN, "")

    # blocks
    def _blocks(self, element: Element, out: list[str], depth: int = 0) -> None:
        """Render ``element``'s content, a block at a time, into ``out``."""
        inline: list[str] = []

        def flush() -> None:
            if not inline:
                return
            text = self._lines("".join(inline))
            if text:
                out.append(text)
            inline.clear()

        if element.text:
            inline.append(self._escape(element.text))
        previous: Element | None = None
        for child in element:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag in BLOCKS:
                flush()
                self._block(child, tag, out, depth)
            elif tag == "br":
                inline.append(BREAK)
            elif tag == "img":
                inline.append(self._image(child))
            elif child in self._holding_blocks:
                flush()
                self._blocks(child, out, depth)
            elif tag and tag not in NEVER_TEXT:
                if _run_together(previous, child):
                    inline.append(" ")
                inline.append(self._inline(child))
            if child.tail:
                inline.append(self._escape(child.tail))
            previous = child
        flush()

    def _block(self, element: Element, tag: str, out: list[str], depth: int) -> None:
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            text = self._inline_text(element)
            if text:
                out.append(("#" * int(tag[1]) + " " + text) if self.markdown else text)
        elif tag == "p":
            text = self._paragraph(element)
            if text:
                out.append(text)
        elif tag in ("ul", "ol"):
            lines = self._list(element, tag == "ol", "")
            if lines:
                out.append("\n".join(lines))
        elif tag == "pre":
            code = _code_text(element).strip("\n")
            if code.strip():
                language = _code_language(element)
                fence = commonmark.code_fence(code)
                out.append(f"{fence}{language}\n{commonmark.plain(code)}\n{fence}" if self.markdown else code)
        elif tag == "blockquote":
            inner: list[str] = []
            self._blocks(element, inner, depth + 1)
            text = "\n\n".join(inner)
            if text:
                out.append(
                    "\n".join(("> " + line) if line else ">" for line in text.split("\n")) if self.markdown else text
                )
        elif tag == "table":
            rows = _rows(element)
            if _is_layout(element, rows):
                for row in rows:
                    for cell in row:
                        self._blocks(cell, out, depth)
            else:
                table = self._table(rows)
                if table:
                    out.append(table)
        elif tag == "hr":
            if self.markdown:
                out.append(THEMATIC_BREAK)
        else:
            self._blocks(element, out, depth)

    def _paragraph(self, element: Element) -> str:
        return self._lines(self._inline(element, top=True))

    def _lines(self, text: str) -> str:
        """Inline text as a block: spaces collapsed as a browser does, a line break only per ``<br>``."""
        if BREAK not in text:
            line = _SPACES.sub(" ", text).strip()
            return commonmark.line(line) if self.markdown else line
        lines = (_SPACES.sub(" ", line).strip() for line in text.split(BREAK))
        if self.markdown:
            lines = (commonmark.line(line) for line in lines)
        return self.hard_break.join(line for line in lines if line)

    def _list(self, element: Element, ordered: bool, indent: str) -> list[str]:
        """A list's lines, each item's further lines and nested lists indented to where its text
        starts (past ``10.``), which is where a Markdown reader looks for them."""
        lines: list[str] = []
        step = -1 if ordered and element.get("reversed") is not None else 1
        items = sum(1 for item in element if item.tag == "li")
        number = _integer(element.get("start"), items if step < 0 else 1) - step
        for item in element:
            tag = item.tag if isinstance(item.tag, str) else ""
            own: list[Element] = []
            nested: list[Element] = []
            shell = Element("li")
            if tag == "li":
                number = _integer(item.get("value"), number + step)
                # plain text keeps an ordered list's numbers (steps refer to them), not bullets
                marker = f"{number}." if ordered else "-" if self.markdown else ""
                for child in item:
                    (nested if child.tag in ("ul", "ol") else own).append(child)
                shell.text = item.text
            elif tag in ("ul", "ol"):
                marker, nested = "", [item]
            elif tag and tag not in NEVER_TEXT:
                marker, own = "", [item]
            else:
                continue
            shell.extend(own)
            blocks: list[str] = []
            self._blocks(shell, blocks)
            continuation = indent + " " * (len(marker) + 1 if marker else 0)
            text = "\n\n".join(blocks).strip()
            if text:
                first, *rest = text.split("\n")
                text = "\n".join([first, *((continuation + line) if line else "" for line in rest)])
                lines.append(f"{indent}{marker} {text}".rstrip() if marker else f"{indent}{text}")
            for child in nested:
                lines.extend(self._list(child, child.tag == "ol", continuation if marker else indent + "  "))
        return lines

    def _table(self, table_rows: list[list[Element]]) -> str:
        rows = []
        for row in table_rows:
            cells = [self._inline_text(cell) for cell in row]
            if any(cells):
                rows.append(cells)
        if not rows:
            return ""
        if not self.markdown:
            return "\n".join(" ".join(cell for cell in row if cell) for row in rows)
        width = max(len(row) for row in rows)
        rows = [[cell.replace("|", "\\|") for cell in row] + [""] * (width - len(row)) for row in rows]
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * width]
        lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
        return "\n".join(lines)

    # inline
    def _inline_text(self, element: Element) -> str:
        """One line: headings and table cells have no line breaks."""
        text = self._inline(element, top=True)
        return _SPACES.sub(" ", text.replace(BREAK, " ")).strip()

    def _inline(self, element: Element, top: bool = False) -> str:
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag in NEVER_TEXT:
            return ""
        parts = [self._escape(element.text)] if element.text else []
        previous: Element | None = None
        for child in element:
            if child.tag == "br":
                parts.append(BREAK)
            elif child.tag == "img":
                parts.append(self._image(child))
            elif isinstance(child.tag, str) and child.tag in BLOCKS and child.tag not in TABLE_CELLS:
                parts.append(" " + self._inline(child, top=True) + " ")
            else:
                if _run_together(previous, child):
                    parts.append(" ")
                parts.append(self._inline(child))
            if child.tail:
                parts.append(self._escape(child.tail))
            previous = child
        content = "".join(parts)
        if top or not self.markdown or tag not in DECORATED:
            return content
        return self._decorate(tag, element, content)

    def _decorate(self, tag: str, element: Element, content: str) -> str:
        """``content`` as a link or with its emphasis; spaces and ``<br>`` at its edges stay outside the
        syntax (``<b>Title<br></b>`` is ``**Title**`` and a break, never a bold run cut by a break),
        and an element of nothing else has none."""
        lead, inner, trail = _EDGES.match(content).groups()
        if not inner:
            return content
        if tag == "a":
            href = (element.get("href") or "").strip()
            target = None if href.startswith("#") else absolute_url(self.base_url, href)
            if target:
                return f"{lead}{commonmark.LINK}{inner}]({commonmark.link_destination(target)}){trail}"
            return content
        if tag in CODE_SPANS:
            code = _EDGES.match(_SPACES.sub(" ", _code_text(element))).group(2)
            return lead + commonmark.wrap(commonmark.CODE, commonmark.plain(code)) + trail
        return lead + commonmark.wrap(EMPHASES[tag], inner) + trail

    def _escape(self, text: str) -> str:
        return commonmark.escape(text) if self.markdown else text

    def _image(self, element: Element) -> str:
        """``![alt](src)`` for an image that says what it shows; a space for one that does not,
        which still stands between the words beside it, as it does on the screen (a star between
        "5 star reviews" and "Trustpilot", an icon between a label and its value).

        An ``alt`` made only of words for a picture (``image``, ``icon``, ``thumbnail``, ``star``,
        ``user avatar``, ``null``: a template's placeholder, or a script's missing value) and
        numbers says nothing of what this one shows.
        """
        if not self.markdown:
            return " "
        alt = _SPACES.sub(" ", element.get("alt") or "").strip()
        source = absolute_url(self.base_url, element.get("src") or "") if _says_something(alt) else None
        if not source:
            return " "
        alt = alt.replace("[", "\\[").replace("]", "\\]")
        return f" ![{alt}]({commonmark.link_destination(source)}) "


def _integer(value: str | None, default: int) -> int:
    """An ``ol``'s ``start`` or an ``li``'s ``value``, as browsers read them (HTML's rules for
    parsing integers: the leading digits, "3rd" is 3), else ``default``: for no number, and for one
    outside a ``long`` (a browser's ``start`` ignores it; Python refuses to write a number of
    more than 4,300 digits, which a page's ``start="999…"`` asked for)."""
    found = _LEADING_INTEGER.match(value or "")
    if found is None:
        return default
    sign, digits = found.groups()
    digits = digits.lstrip("0") or "0"
    if len(digits) > 10:
        return default
    number = -int(digits) if sign == "-" else int(digits)
    return number if -(2**31) <= number < 2**31 else default


_LEADING_INTEGER = re.compile(r"[\t\n\f\r ]*([+-]?)([0-9]+)")


def _run_together(previous: Element | None, child: Element) -> bool:
    """Whether two fields written with nothing between them would read as one word that no word is.

    Templates put a label and its value, a brand and a product's name, a reviewer's name and the
    review in spans side by side (``<span>Article Number</span><span>802.758.87</span>``) and let
    the stylesheet set them apart. Where the join reads as no word does (a lower-case letter then
    a capital, a letter then a digit: ``Number802``, ``DorothyI love``) they get a space; a word
    split across spans (``Co</span><span>rnell``), or a number and its unit (``31</span><span>g``),
    stays as written.
    """
    if previous is None or previous.tail or previous.tag not in FIELDS or child.tag not in FIELDS:
        return False
    before, after = _last_character(previous), _first_character(child)
    return (before.islower() and after.isupper()) or (before.isalpha() and after.isdigit())


FIELDS = frozenset({"span", "a", "label"})


EMPHASES = {
    "strong": commonmark.STRONG,
    "b": commonmark.STRONG,
    "em": commonmark.EMPHASIS,
    "i": commonmark.EMPHASIS,
    "cite": commonmark.EMPHASIS,
    "s": commonmark.STRIKE,
    "del": commonmark.STRIKE,
    "strike": commonmark.STRIKE,
}
"""The delimiters each element of emphasis is written between."""
CODE_SPANS = frozenset({"code", "kbd"})
DECORATED = frozenset({"a", *CODE_SPANS, *EMPHASES})
"""What ``_decorate`` writes as Markdown syntax; the text of any other inline element is its own."""


def _first_character(element: Element) -> str:
    return next((piece[0] for piece in element.itertext() if piece), " ")


def _last_character(element: Element) -> str:
    """The last character of ``element``'s text, read from the end: a big field is not read whole."""
    pending: list[Element | str] = [element]
    while pending:
        node = pending.pop()
        if isinstance(node, str):
            if node:
                return node[-1]
            continue
        if isinstance(node.tag, str):
            pending.append(node.text or "")
            for child in node:
                pending.extend((child, child.tail or ""))
    return " "


def _between_text(blocks: list[str]) -> list[str]:
    """The blocks without a thematic break that separates nothing: first, last, or after another.

    What stood between two ``<hr>`` (a share bar, an ad) may have gone with the boilerplate; the
    rules around it mean nothing then.
    """
    kept: list[str] = []
    for block in blocks:
        if block != THEMATIC_BREAK or (kept and kept[-1] != THEMATIC_BREAK):
            kept.append(block)
    while kept and kept[-1] == THEMATIC_BREAK:
        kept.pop()
    return kept


THEMATIC_BREAK = "---"


def _says_something(alt: str) -> bool:
    words = _ALT_WORD.findall(alt.lower())
    return bool(words) and not set(words) <= PLACEHOLDER_ALT


_ALT_WORD = re.compile(r"[^\W\d_]+")
PLACEHOLDER_ALT = frozenset(
    """image images img picture pic photo icon thumbnail thumb avatar user profile placeholder spacer
    null undefined none star stars rating logo graphic banner gallery""".split()
)
"""Words for a picture, and a script's missing values: an ``alt`` of nothing else describes nothing."""


def _rows(table: Element) -> list[list[Element]]:
    """The cells of ``table``'s own rows (not those of a table nested in one of its cells)."""
    rows = []
    for child in table:
        for row in [child] if child.tag == "tr" else [r for r in child if r.tag == "tr"]:
            rows.append([cell for cell in row if cell.tag in TABLE_CELLS])
    return rows


def _is_layout(table: Element, rows: list[list[Element]]) -> bool:
    """A table that lays a page out rather than holding data: one row, one column without a
    header cell, or tables inside.

    Its cells are read as the blocks they hold; as a Markdown table, every paragraph of a cell
    would be crushed into one line of one cell.
    """
    filled = [row for row in rows if any("".join(cell.itertext()).strip() for cell in row)]
    if len(filled) <= 1:
        return True
    if max(len(row) for row in filled) == 1 and not any(cell.tag == "th" for row in filled for cell in row):
        return True
    return any(cell.find(".//table") is not None for row in rows for cell in row)


def _holding_blocks(root: Element) -> set[Element]:
    """Inline (or unknown, custom) elements that hold a block: a browser lays the block out as a
    block all the same (``<copyable-code><pre>…</pre></copyable-code>``)."""
    holding: set[Element] = set()
    for element in reversed(list(root.iter())):
        inline = element.tag not in BLOCKS and element.tag not in NEVER_TEXT
        if inline and any(child in holding or child.tag in BLOCKS for child in element):
            holding.add(element)
    return holding


def _code_text(element: Element) -> str:
    """A code block's text as a browser shows it: whitespace kept, a new line at each ``<br>`` and
    around each block element (highlighters put every line of code in a ``div`` of its own), and
    around an element named a line (``roles.names_a_line``) where the code has none: Gatsby's and
    Astro's highlighters set each line in a ``span`` their stylesheet shows as a block, one after
    the other, and without it ``cd my-project`` ran on from ``npm create vite@latest my-project``."""
    parts: list[str] = []

    def new_line() -> None:
        if parts and not parts[-1].endswith("\n"):
            parts.append("\n")

    def walk(node: Element) -> None:
        if node.text:
            parts.append(node.text)
        for child in node:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag == "br":
                parts.append("\n")
            elif tag in BLOCKS:
                new_line()
                walk(child)
                new_line()
            elif tag and names_a_line(child.get("class")):
                new_line()
                walk(child)
                if not (child.tail or "").startswith("\n"):
                    new_line()
            elif tag and tag not in NEVER_TEXT:
                walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(element)
    return "".join(parts)


def _code_language(element: Element) -> str:
    """The language a code block names for its highlighter: ``language-rust``, ``lang-py``, or
    SyntaxHighlighter's ``brush: js`` (MDN, WordPress plugins)."""
    for candidate in (element, *element.iter("code")):
        classes = candidate.get("class") or ""
        for name in classes.split():
            if name.startswith(("language-", "lang-")):
                return name.split("-", 1)[1]
        brush = _BRUSH.search(classes)
        if brush is not None:
            return brush.group(1)
    return ""


_BRUSH = re.compile(r"\bbrush:\s*([\w+#-]+)")
