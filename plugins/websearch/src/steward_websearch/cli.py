"""The plugin's commands: ``steward extract`` (a local file, no network at all), and ``steward
fetch`` / ``steward search``, clients of a running server's fetch service that an agent can use
instead of ``curl | python`` (the server and key come from ``client.toml``, see ``steward login``).
"""

from __future__ import annotations

import enum
import json
import mimetypes
import sys
from pathlib import Path
from typing import NoReturn

import click
import httpx
import msgspec

import steward
from steward_websearch.extraction import InvalidContent, PageTooComplex, UnsupportedContent, extract
from steward_websearch.service.secret_files import BRAVE_KEY, HONCHO_KEY, SecretFile


@click.command("extract")
@click.argument("source", type=click.Path(allow_dash=True, dir_okay=False, path_type=Path))
@click.option(
    "--url", default="http://localhost/", show_default=True, help="Where the page came from (resolves relative links)."
)
@click.option(
    "--content-type",
    help="How to read the file (default: by its name's suffix, .pdf .json .txt .md .csv .html; else HTML).",
)
@click.option(
    "--format", "output", type=click.Choice(["markdown", "text", "json"]), default="markdown", show_default=True
)
def extract_command(source: Path, url: str, content_type: str | None, output: str) -> None:
    """Print the main content of FILE (or - for standard input) as Markdown, text or JSON."""
    body = sys.stdin.buffer.read() if str(source) == "-" else source.read_bytes()
    if content_type is None:
        content_type = _type_by_name(source.name) or ("application/pdf" if body.startswith(b"%PDF-") else "text/html")
    try:
        document = extract(body, url=url, content_type=content_type, with_text=output != "markdown")
    except (UnsupportedContent, InvalidContent, PageTooComplex) as error:
        raise click.ClickException(str(error)) from None
    if output == "json":
        click.echo(msgspec.json.format(msgspec.json.encode(document), indent=2))
    else:
        click.echo(document.markdown if output == "markdown" else document.text)


def _type_by_name(name: str) -> str | None:
    suffix = Path(name).suffix.lower()
    return {".md": "text/markdown", ".markdown": "text/markdown"}.get(suffix) or mimetypes.guess_type(name)[0]


class ExitCode(enum.IntEnum):
    """What ``steward fetch`` and ``steward search`` exit with, for scripts to branch on."""

    OK = 0
    FAILED = 1  # a bad request, a busy server, no server
    REFUSED = 2  # the guard refused the target
    UPSTREAM = 3  # the site or SearXNG failed or refused
    AUTH = 4  # no key, a wrong key, or a key without the service


@click.command("fetch")
@click.argument("url")
@click.option("--question", "-q", help="What you want from the page (focuses --mode digest).")
@click.option("--mode", type=click.Choice(["clean", "raw", "digest"]), default="clean", show_default=True)
@click.option("--jq", "jq_filter", help="A jq filter for JSON responses.")
@click.option("--recover", is_flag=True, help="Try archived copies if the site refuses.")
@click.option("--max-tokens", type=int, help="Cut the content to about this many tokens.")
@click.option(
    "--context/--no-context",
    "with_context",
    default=False,
    show_default=True,
    help="Add what the household's memory store holds about the page (read only).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the service's JSON answer.")
def fetch_command(
    url: str,
    question: str | None,
    mode: str,
    jq_filter: str | None,
    recover: bool,
    max_tokens: int | None,
    with_context: bool,
    as_json: bool,
) -> None:
    """Fetch URL through a Steward server's fetch service (not curl): guarded, cleaned, compact.

    The server and key come from ~/.config/steward/client.toml (steward login). Exit status:
    0 ok, 2 refused by the guard, 3 the site failed or refused, 4 key problem, 1 anything else.
    """
    payload: dict[str, object] = {"url": url, "mode": mode, "recover": recover, "context": with_context}
    for name, value in (("question", question), ("jq", jq_filter), ("max_tokens", max_tokens)):
        if value is not None:
            payload[name] = value
    body = _call("/v1/fetch", payload)
    if as_json:
        click.echo(json.dumps(body, indent=2, ensure_ascii=False))
    else:
        source = body["source"]
        title = body.get("metadata", {}).get("title")
        if title:
            click.echo(f"# {title}")
        snapshot = f", archived copy from {source['snapshot']['captured_at']}" if source.get("snapshot") else ""
        cached = ", cached" if source["cached"] else ""
        click.echo(f"source: {source['final_url']} ({source['status']}, {source['content_type']}{cached}{snapshot})")
        click.echo()
        click.echo(body["content"])
        for item in body.get("context") or []:
            click.echo(
                f"\nmemory ({item['kind']}, {item['peer'] or 'unknown'}, {item['created_at']}): {item['content']}"
            )
    for warning in body["warnings"]:
        click.echo(f"warning: {warning}", err=True)


@click.command("search")
@click.argument("query")
@click.option("--k", "k", type=click.IntRange(1, 20), default=5, show_default=True, help="How many results.")
@click.option("--question", "-q", help="Rank results that address this first.")
@click.option("--rerank", is_flag=True, help="Order by meaning (the server's embeddings endpoint).")
@click.option("--digest", is_flag=True, help="Ask the server's model for one answer from the results.")
@click.option("--json", "as_json", is_flag=True, help="Print the service's JSON answer.")
def search_command(query: str, k: int, question: str | None, rerank: bool, digest: bool, as_json: bool) -> None:
    """Search the web through a Steward server's fetch service (its SearXNG).

    Exit status as for ``steward fetch``.
    """
    payload: dict[str, object] = {"query": query, "k": k, "rerank": rerank, "digest": digest}
    if question:
        payload["question"] = question
    body = _call("/v1/search", payload)
    if as_json:
        click.echo(json.dumps(body, indent=2, ensure_ascii=False))
    else:
        if body.get("digest"):
            click.echo(f"{body['digest']}\n")
        for position, hit in enumerate(body["results"], start=1):
            click.echo(f"{position}. {hit['title']}\n   {hit['url']}")
            if hit["snippet"]:
                click.echo(f"   {hit['snippet']}")
    for warning in body["warnings"]:
        click.echo(f"warning: {warning}", err=True)


def _call(path: str, payload: dict[str, object]) -> dict:
    try:
        settings = steward.load_client_settings()
    except steward.ClientSettingsError as error:
        _fail(str(error), ExitCode.AUTH)
    try:
        with steward.server_client(settings) as client:
            response = client.post(path, json=payload)
    except httpx.HTTPError as error:
        _fail(steward.cannot_reach(settings.url, error), ExitCode.FAILED)
    try:
        body = response.json()
    except ValueError:
        _fail(f"{settings.url} answered HTTP {response.status_code} without JSON", ExitCode.FAILED)
    if response.status_code != 200:
        error = body.get("error") if isinstance(body.get("error"), dict) else {}
        code, message = error.get("code", "?"), error.get("message", "")
        if "hint" in body:
            message += f" (next: {'--recover' if body['hint'] == 'recover' else 'a real browser'})"
        if response.status_code == 429 and "retry-after" in response.headers:
            message += f" (retry after {response.headers['retry-after']} s)"
        _fail(f"{code}: {message}", _exit_code(response.status_code, code))
    return body


def _exit_code(status: int, code: str) -> ExitCode:
    if status == 401 or code == steward.Code.FORBIDDEN:
        return ExitCode.AUTH
    if code == steward.Code.FETCH_TARGET_REJECTED:
        return ExitCode.REFUSED
    if status >= 500 or code == steward.Code.UNSUPPORTED_CONTENT_TYPE:
        return ExitCode.UPSTREAM
    return ExitCode.FAILED


def _fail(message: str, code: ExitCode) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


@click.group("websearch")
def websearch_group() -> None:
    """Web search settings kept in the data directory."""


@websearch_group.command("set-brave-key")
def set_brave_key() -> None:
    """Store a Brave Search subscription key (from standard input or a hidden prompt; never an argument).

    Once set, web.search and the service's search ask Brave's LLM Context API beside SearXNG.
    """
    _store(BRAVE_KEY, "Brave subscription key")
    click.echo("Brave key stored (0600); searches ask Brave beside SearXNG from the next request on")


@websearch_group.command("forget-brave-key")
def forget_brave_key() -> None:
    """Remove the Brave key: searches ask SearXNG alone again."""
    BRAVE_KEY.forget(steward.current_config().data_dir)
    click.echo("Brave key removed")


@websearch_group.command("set-honcho-key")
def set_honcho_key() -> None:
    """Store the API key of the Honcho that memory context reads (standard input or a hidden prompt)."""
    _store(HONCHO_KEY, "Honcho API key")
    click.echo("Honcho key stored (0600); memory context uses it from the next request on")


@websearch_group.command("forget-honcho-key")
def forget_honcho_key() -> None:
    """Remove the Honcho key: memory context asks Honcho without one."""
    HONCHO_KEY.forget(steward.current_config().data_dir)
    click.echo("Honcho key removed")


def _store(secret: SecretFile, prompt: str) -> None:
    key = sys.stdin.readline() if not sys.stdin.isatty() else click.prompt(prompt, hide_input=True)
    try:
        secret.write(steward.current_config().data_dir, key)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
