"""PDFs for the tests, made when asked for: real files written by a real PDF library (fpdf2), and
the hostile ones (a Flate bomb) written by hand, byte by byte."""

from __future__ import annotations

import functools
import zlib

import fpdf

MANUAL_TITLE = "Kettle manual"
MANUAL_AUTHOR = "Acme Appliances"


@functools.cache
def manual() -> bytes:
    """Two pages: instructions, then two columns that must be read left column first."""
    pdf = fpdf.FPDF()
    pdf.set_title(MANUAL_TITLE)
    pdf.set_author(MANUAL_AUTHOR)
    pdf.set_font("helvetica", size=12)
    pdf.add_page()
    pdf.multi_cell(0, 8, "Descaling the kettle\nFill it with water and white vinegar, then leave it for an hour.")
    pdf.add_page()
    with pdf.text_columns(ncols=2) as columns:
        columns.write("The left column comes first. " * 12)
        columns.new_column()
        columns.write("The right column comes second. " * 12)
    return bytes(pdf.output())


def encrypted() -> bytes:
    pdf = fpdf.FPDF()
    pdf.set_encryption(owner_password="owner", user_password="user")
    pdf.add_page()
    pdf.set_font("helvetica")
    pdf.cell(text="the secret recipe")
    return bytes(pdf.output())


def scanned() -> bytes:
    """Pages with nothing but drawing on them, as a scan's images are: no text layer."""
    pdf = fpdf.FPDF()
    for _ in range(2):
        pdf.add_page()
        pdf.rect(20, 20, 120, 160, style="F")
    return bytes(pdf.output())


def many_pages(count: int) -> bytes:
    pdf = fpdf.FPDF()
    pdf.set_font("helvetica")
    for number in range(1, count + 1):
        pdf.add_page()
        pdf.cell(text=f"page number {number}")
    return bytes(pdf.output())


def damaged(readable_pages: int = 1) -> bytes:
    """``readable_pages`` pages that say "page one reads", and then a page whose object is no page
    (the number 42): PDFium opens the file and cannot load that page."""
    text = b"BT /F1 12 Tf 72 720 Td (page one reads) Tj ET"
    pages = [b"%d 0 R" % (5 + number) for number in range(readable_pages)] + [b"4 0 R"]
    return _pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(pages), len(pages)),
            b"<< /Length %d >>\nstream\n" % len(text) + text + b"\nendstream",
            b"42",
            *(
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R"
                b" /Resources << /Font << /F1 %d 0 R >> >> >>" % (5 + readable_pages)
                for _ in range(readable_pages)
            ),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
    )


@functools.cache
def flate_bomb(inflated_megabytes: int = 4096) -> bytes:
    """A valid one-page PDF whose content stream is ~4 MB of Flate data inflating to 4 GiB of zeros.

    The stream is one megabyte of zeros compressed once and repeated: a full flush makes each
    piece independent of the one before, so no gigabytes are ever compressed here.
    """
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    piece = compressor.compress(bytes(1 << 20)) + compressor.flush(zlib.Z_FULL_FLUSH)
    size = inflated_megabytes << 20
    adler = ((size % 65521) << 16) | 1
    data = b"\x78\xda" + piece * inflated_megabytes + b"\x03\x00" + adler.to_bytes(4, "big")
    return _pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream",
        ]
    )


def bomb_behind_an_image() -> bytes:
    """The bomb's content stream right after a small image object: the image may not vouch for it."""
    bomb = flate_bomb()
    image = b"5 0 obj\n<< /Type /XObject /Subtype /Image /Width 1 /Height 1 >>\nstream\nx\nendstream\nendobj\n"
    at = bomb.index(b"4 0 obj")
    return bomb[:at] + image + bomb[at:]


def _pdf(objects: list[bytes]) -> bytes:
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)
