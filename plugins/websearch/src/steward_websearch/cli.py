"""``steward extract``: clean a local HTML (or JSON, or text) file, with no network at all."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import msgspec

from steward_websearch.extract import InvalidContent, UnsupportedContent, extract


@click.command("extract")
@click.argument("source", type=click.Path(allow_dash=True, dir_okay=False, path_type=Path))
@click.option(
    "--url", default="http://localhost/", show_default=True, help="Where the page came from (resolves relative links)."
)
@click.option("--content-type", default="text/html", show_default=True, help="How to read the file.")
@click.option(
    "--format", "output", type=click.Choice(["markdown", "text", "json"]), default="markdown", show_default=True
)
def extract_command(source: Path, url: str, content_type: str, output: str) -> None:
    """Print the main content of FILE (or - for standard input) as Markdown, text or JSON."""
    body = sys.stdin.buffer.read() if str(source) == "-" else source.read_bytes()
    try:
        document = extract(body, url=url, content_type=content_type)
    except (UnsupportedContent, InvalidContent) as error:
        raise click.ClickException(str(error)) from None
    if output == "json":
        click.echo(msgspec.json.format(msgspec.json.encode(document), indent=2))
    else:
        click.echo(document.markdown if output == "markdown" else document.text)
