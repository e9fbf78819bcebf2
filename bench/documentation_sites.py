"""Documentation sites built here from real sources, each page with its truth: the corpus of
``bench/extraction.py --documentation-sites``.

Documentation is written once and laid out by a generator's theme: the same page comes with a
theme's sidebars, headers, tables of contents and footers around it, and what is content does not
change with the theme. So each page's truth is its source as written, and the corpus is that
source built with many themes: requests' documentation (reStructuredText, with its API reference)
by Sphinx with its builtin themes and the popular ones, its truth what Sphinx's text builder
writes; httpx's (Markdown) by MkDocs with three themes and by Docusaurus (React, the JavaScript
world's generator), its truth the Markdown read as text. A rule fitted to one theme shows as that
theme's row alone.

Run in a venv holding the generators (``make bench REQUESTS=<checkout> HTTPX=<checkout>`` makes
``.venv-docs`` from ``requirements-docs-sites.txt``, and installs ``bench/docusaurus`` from its
lock); nothing here reaches the network: Sphinx's intersphinx, which fetches other projects'
inventories, is left out.

    .venv-docs/bin/python bench/documentation_sites.py --requests-repository DIR --httpx-repository DIR \\
        [--docusaurus bench/docusaurus] --out DIR
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

SPHINX_THEMES = (
    "alabaster",
    "classic",
    "nature",
    "haiku",
    "agogo",
    "bizstyle",
    "scrolls",
    "sphinxdoc",
    "pyramid",
    "traditional",
    "furo",
    "sphinx_rtd_theme",
    "pydata_sphinx_theme",
    "sphinx_book_theme",
    "shibuya",
    "piccolo_theme",
)
"""Sphinx's builtin themes and the popular ones ``requirements-docs-sites.txt`` installs."""

MKDOCS_THEMES = ("material", "mkdocs", "readthedocs")
MARKDOWN_EXTENSIONS = ("admonition", "codehilite", "toc", "fenced_code", "tables")
SPHINX_EXTENSIONS = "sphinx.ext.autodoc,sphinx.ext.todo"
"""requests' own, less intersphinx (it fetches other projects' inventories) and viewcode."""

TRUTH_CHARS = 200
"""Pages whose source says less (a redirect, an empty index) are left out."""


def build_sphinx(source: Path, out: Path) -> list[dict]:
    """requests' documentation, as text (the truth) and as HTML in every theme of ``SPHINX_THEMES``."""
    docs = source / "docs"
    run_sphinx(docs, out / "sphinx-text", "text")
    truths = {
        truth.relative_to(out / "sphinx-text").with_suffix(".html"): truth
        for truth in sorted((out / "sphinx-text").rglob("*.txt"))
        if len(truth.read_text()) >= TRUTH_CHARS
    }
    pages = []
    for theme in SPHINX_THEMES:
        run_sphinx(docs, out / f"sphinx-{theme}", "html", f"html_theme={theme}")
        for page, truth in truths.items():
            html = out / f"sphinx-{theme}" / page
            if html.exists():
                url = f"https://requests.readthedocs.io/en/latest/{page}"
                pages.append(entry(f"sphinx {theme}", html, truth, url, out))
    return pages


def run_sphinx(docs: Path, out: Path, builder: str, *settings: str) -> None:
    command = [sys.executable, "-m", "sphinx", "-q", "-b", builder]
    for setting in (f"extensions={SPHINX_EXTENSIONS}", *settings):
        command += ["-D", setting]
    run([*command, str(docs), str(out)])


def run(command: list[str], environment: dict[str, str] | None = None, directory: Path | None = None) -> None:
    """Run a generator quietly (requests' documentation alone warns a dozen times a build); when
    it fails, say what it said."""
    finished = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, **(environment or {})}, cwd=directory
    )
    if finished.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{finished.stderr[-4000:]}")


def markdown_truths(source: Path, out: Path) -> dict[Path, Path]:
    """httpx's Markdown pages read as text, each written to ``mkdocs-truth``: by source page."""
    import html5lib
    import markdown

    docs = source / "docs"
    truths: dict[Path, Path] = {}
    for source_page in sorted(docs.rglob("*.md")):
        name = source_page.relative_to(docs)
        rendered = markdown.markdown(source_page.read_text(), extensions=list(MARKDOWN_EXTENSIONS))
        text = " ".join(html5lib.parse(rendered, namespaceHTMLElements=False).itertext())
        if len(text) >= TRUTH_CHARS:
            truth = out / "mkdocs-truth" / name.with_suffix(".txt")
            truth.parent.mkdir(parents=True, exist_ok=True)
            truth.write_text(text)
            truths[name] = truth
    return truths


def build_mkdocs(source: Path, out: Path, truths: dict[Path, Path]) -> list[dict]:
    """httpx's documentation in every theme of ``MKDOCS_THEMES``."""
    import yaml

    navigation = yaml.safe_load((source / "mkdocs.yml").read_text())["nav"]
    pages = []
    for theme in MKDOCS_THEMES:
        config = out / f"mkdocs-{theme}.yml"
        config.write_text(
            json.dumps(
                {
                    "site_name": "HTTPX",
                    "site_url": "https://www.python-httpx.org/",
                    "docs_dir": str(source / "docs"),
                    "theme": {"name": theme},
                    "repo_url": "https://github.com/encode/httpx/",
                    "nav": navigation,
                    "markdown_extensions": ["admonition", {"codehilite": {"css_class": "highlight"}}, "toc"],
                }
            )
        )
        site = out / f"mkdocs-{theme}"
        run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config), "-d", str(site)])
        pages += built_pages(f"mkdocs {theme}", site, truths, out)
    return pages


def build_docusaurus(source: Path, docusaurus: Path, out: Path, truths: dict[Path, Path]) -> list[dict]:
    """httpx's documentation laid out by Docusaurus's classic theme (React, rendered to HTML at
    build time): ``docusaurus`` is ``bench/docusaurus`` with its ``node_modules`` installed, where
    webpack keeps its cache (``node_modules/.cache``) when run from there."""
    site = out / "docusaurus-classic"
    program = docusaurus / "node_modules" / ".bin" / "docusaurus"
    environment = {"STEWARD_DOCS": str(source / "docs")}
    run([str(program), "build", str(docusaurus), "--out-dir", str(site)], environment, directory=docusaurus)
    return built_pages("docusaurus classic", site, truths, out)


def built_pages(site_name: str, site: Path, truths: dict[Path, Path], out: Path) -> list[dict]:
    """The corpus entries of a site built with one page per directory (``quickstart/index.html``)."""
    pages = []
    for name, truth in truths.items():
        built = name.with_name("index.html") if name.name == "index.md" else name.with_suffix("") / "index.html"
        if (site / built).exists():
            url = f"https://www.python-httpx.org/{built.parent.as_posix()}/".replace("/./", "/")
            pages.append(entry(site_name, site / built, truth, url, out))
    return pages


def entry(site: str, html: Path, truth: Path, url: str, out: Path) -> dict:
    return {"site": site, "html": str(html.relative_to(out)), "truth": str(truth.relative_to(out)), "url": url}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests-repository", type=Path, required=True, help="a checkout of github.com/psf/requests")
    parser.add_argument("--httpx-repository", type=Path, required=True, help="a checkout of github.com/encode/httpx")
    parser.add_argument(
        "--docusaurus", type=Path, help="bench/docusaurus, its node_modules installed: httpx's by Docusaurus too"
    )
    parser.add_argument("--out", type=Path, required=True)
    options = parser.parse_args()
    out = options.out.resolve()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    httpx = options.httpx_repository.resolve()
    truths = markdown_truths(httpx, out)
    pages = build_sphinx(options.requests_repository.resolve(), out) + build_mkdocs(httpx, out, truths)
    if options.docusaurus:
        pages += build_docusaurus(httpx, options.docusaurus.resolve(), out, truths)
    (out / "manifest.json").write_text(json.dumps(pages, indent=1))
    sites = len({page["site"] for page in pages})
    print(f"{len(pages)} pages of documentation in {sites} themes built into {out}")


if __name__ == "__main__":
    main()
