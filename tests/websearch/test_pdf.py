"""PDFs: text in reading order with pages apart, on every way in (extract, /v1/fetch, /v2/scrape,
web.fetch, steward extract), and the hostile ones refused with a clear error, never a 500."""

from __future__ import annotations

import pdf_samples
import pytest
import steward_websearch
from click.testing import CliRunner
from steward_websearch.cli import extract_command
from steward_websearch.extraction import InvalidContent, UnsupportedContent, extract
from steward_websearch.extraction.pdf import PAGE_BREAK
from test_service import SERVICE_KEY, settings_for

from steward.testing import serve_host

URL = "http://files.example/manual.pdf"


def read(body: bytes, content_type: str = "application/pdf", **options):
    return extract(body, url=URL, content_type=content_type, **options)


def test_a_manual_reads_in_order_with_its_pages_apart_and_its_metadata():
    document = read(pdf_samples.manual())
    first, second = document.markdown.split(PAGE_BREAK)
    assert first.startswith("Descaling the kettle\nFill it with water and white vinegar")
    assert second.index("The left column comes first.") < second.index("The right column comes second.")
    assert "The right column" not in second[: second.rindex("The left column comes first.")]
    assert document.text == document.markdown
    assert document.title == pdf_samples.MANUAL_TITLE
    assert document.metadata == {
        "url": URL,
        "title": pdf_samples.MANUAL_TITLE,
        "byline": pdf_samples.MANUAL_AUTHOR,
        "pages": "2",
    }
    assert document.content_type == "application/pdf"
    assert document.clean_tokens > 50


def test_a_pdf_sent_as_octet_stream_is_recognised_but_a_declared_type_is_never_overruled():
    assert read(pdf_samples.manual(), "application/octet-stream").title == pdf_samples.MANUAL_TITLE
    with pytest.raises(UnsupportedContent, match="declared text/html but the body is a PDF document"):
        read(pdf_samples.manual(), "text/html")


def test_only_the_first_pages_are_read_past_the_page_cap_and_the_metadata_says_so():
    document = read(pdf_samples.many_pages(7), max_pdf_pages=3)
    assert document.markdown.split(PAGE_BREAK) == ["page number 1", "page number 2", "page number 3"]
    assert (document.metadata["pages"], document.metadata["pages_read"]) == ("7", "3")
    assert document.title == "page number 1", "no title in the metadata: the first line"


@pytest.mark.parametrize(
    ("body", "error", "message"),
    [
        (pdf_samples.encrypted(), InvalidContent, "encrypted with a password"),
        (pdf_samples.scanned(), UnsupportedContent, r"2 page\(s\) have no text layer .*does not run OCR"),
        (b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF", InvalidContent, "not a readable PDF"),
        (b"<html><body>a page, not a PDF</body></html>", InvalidContent, "body is not one"),
        (b"", InvalidContent, "body is not one"),
        (pdf_samples.damaged(readable_pages=0), InvalidContent, r"none of the PDF's 1 page\(s\) could be read"),
    ],
    ids=["encrypted", "scanned", "malformed", "html-declared-pdf", "empty", "every-page-damaged"],
)
def test_what_cannot_be_read_says_why(body, error, message):
    with pytest.raises(error, match=message):
        read(body)


def test_a_damaged_page_is_left_out_and_the_pages_around_it_are_read():
    """A page object that is no page once failed the whole file with PDFium's own error (found by
    fuzzing the sample PDFs: 3 % of garbled files); the metadata counts the pages left out."""
    document = read(pdf_samples.damaged(readable_pages=2))
    assert document.markdown.split(PAGE_BREAK) == ["page one reads", "page one reads"]
    assert (document.metadata["pages"], document.metadata["pages_damaged"]) == ("3", "1")
    assert "pages_damaged" not in read(pdf_samples.manual()).metadata


@pytest.mark.parametrize(
    "bomb", [pdf_samples.flate_bomb(), pdf_samples.bomb_behind_an_image()], ids=["plain", "after-an-image"]
)
def test_a_flate_bomb_is_refused_before_pdfium_inflates_it(bomb):
    assert len(bomb) < 5 * 1024 * 1024, "small enough to pass the body cap"
    with pytest.raises(InvalidContent, match="inflate past 256 MB"):
        read(bomb)


def test_steward_extract_reads_a_pdf_file(tmp_path):
    path = tmp_path / "manual.pdf"
    path.write_bytes(pdf_samples.manual())
    result = CliRunner().invoke(extract_command, [str(path)])
    assert result.exit_code == 0, result.output
    assert "Descaling the kettle" in result.output
    assert "---" in result.output
    piped = CliRunner().invoke(extract_command, ["-", "--format", "json"], input=pdf_samples.manual())
    assert '"content_type": "application/pdf"' in piped.output
    (tmp_path / "locked.pdf").write_bytes(pdf_samples.encrypted())
    locked = CliRunner().invoke(extract_command, [str(tmp_path / "locked.pdf")])
    assert locked.exit_code == 1
    assert "encrypted with a password" in locked.output


@pytest.fixture
def served(site, searx, model, tmp_path):
    _, site_url = site
    config = {"plugins": {"websearch": settings_for(site_url, searx[1], model[1])}}
    with serve_host([steward_websearch], data_dir=tmp_path, config=config) as server:
        server.set_policy("web_search_enabled", True)
        yield server


def test_the_fetch_service_returns_a_pdfs_text(served, site):
    _, base = site
    agent = served.client(**SERVICE_KEY)
    clean = agent.post("/v1/fetch", json={"url": f"{base}/manual.pdf"})
    assert clean.status_code == 200, clean.text
    body = clean.json()
    assert body["content"].startswith("Descaling the kettle")
    assert PAGE_BREAK.strip() in body["content"]
    assert body["source"]["content_type"] == "application/pdf"
    assert body["metadata"]["title"] == pdf_samples.MANUAL_TITLE
    assert (body["metadata"]["byline"], body["metadata"]["pages"]) == (pdf_samples.MANUAL_AUTHOR, "2")
    sniffed = agent.post("/v1/fetch", json={"url": f"{base}/download"})
    assert sniffed.json()["content"].startswith("Descaling the kettle")
    digest = agent.post("/v1/fetch", json={"url": f"{base}/manual.pdf", "mode": "digest", "question": "kettle?"})
    assert digest.status_code == 200
    assert "Kettles boil water quietly" in digest.json()["content"]
    raw = agent.post("/v1/fetch", json={"url": f"{base}/manual.pdf", "mode": "raw"})
    assert raw.status_code == 415
    assert "text types only" in raw.json()["error"]["message"]


def test_firecrawl_scrape_and_web_fetch_return_a_pdfs_text(served, site):
    _, base = site
    scraped = served.client(**SERVICE_KEY).post("/v2/scrape", json={"url": f"{base}/manual.pdf"})
    assert scraped.status_code == 200, scraped.text
    data = scraped.json()["data"]
    assert data["markdown"].startswith("Descaling the kettle")
    assert data["metadata"]["title"] == pdf_samples.MANUAL_TITLE
    invoker = served.client(["invoke"], preapproved=["web.fetch"])
    fetched = invoker.post("/api/v1/capabilities/web.fetch/invoke", json={"arguments": {"url": f"{base}/manual.pdf"}})
    outcome = fetched.json()
    assert outcome["status"] == "ok", outcome
    assert outcome["result"]["text"].startswith("Descaling the kettle")
    assert outcome["result"]["content_type"] == "application/pdf"


@pytest.mark.parametrize(
    ("path", "status", "message"),
    [
        ("/bomb.pdf", 502, "inflate past 256 MB"),
        ("/scanned.pdf", 415, "no text layer"),
        ("/fake.pdf", 502, "not one"),
    ],
)
def test_hostile_pdfs_over_http_are_clear_errors_and_the_server_carries_on(served, site, path, status, message):
    _, base = site
    agent = served.client(**SERVICE_KEY)
    answer = agent.post("/v1/fetch", json={"url": f"{base}{path}"})
    assert (answer.status_code, message in answer.json()["error"]["message"]) == (status, True), answer.text
    health = served.client(["admin"]).get("/healthz").json()
    assert not [problem for problem in health["problems"] if "web.fetch" in problem or "worker" in problem], health
    assert agent.post("/v1/fetch", json={"url": f"{base}/manual.pdf"}).status_code == 200
