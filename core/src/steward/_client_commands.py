"""The terminal client's commands: ``invoke``, ``chat``, ``mcp`` and ``login``.

They talk to the running server with the key from ``~/.config/steward/client.toml`` (``steward
login``), so a capability runs where the household's state, limits and audit log are; a person's
yes is asked on this terminal, with the question every surface asks
(:func:`~steward._surfaces.prompts.confirmation_prompt`). ``--local`` builds a host in this process
instead, for plugin development.
"""

from __future__ import annotations

import asyncio
import functools
import getpass
import json
import logging
import sys
from collections.abc import Callable
from typing import Any

import click
import httpx
import msgspec

from steward._auth import Principal
from steward._capability import Classification, Surface
from steward._client import (
    ClientSettings,
    ClientSettingsError,
    cannot_reach,
    load_client_settings,
    save_client_settings,
    server_client,
)
from steward._confirmation import token_digest
from steward._host import Host
from steward._outcome import Outcome, PendingConfirmation, Status
from steward._surfaces.prompts import confirmation_prompt
from steward.commands import cli_principal, current_host, host_options


@click.command()
@host_options
@click.argument("name")
@click.option("--json", "arguments", default="{}", help="Arguments as a JSON object.")
@click.option(
    "--local",
    is_flag=True,
    help="Run it in this process instead of on the server (development only: see the description).",
)
def invoke(name: str, arguments: str, local: bool) -> None:
    """Invoke a capability on the running server, asking y/N on the terminal when it needs confirmation.

    The server and key come from ~/.config/steward/client.toml (steward login), as for
    steward fetch: the capability runs where the household's state, limits and audit log
    are. --local builds a host in this process instead, for plugin development: pending
    confirmations die with the command, and what the capability changes, it changes from here.
    Exit status 0 when it ran, 1 otherwise.
    """
    try:
        parsed = json.loads(arguments)
    except ValueError as error:
        raise click.BadParameter(f"not JSON: {error}", param_hint="--json") from None
    if not isinstance(parsed, dict):
        raise click.BadParameter("must be a JSON object", param_hint="--json")
    if local:
        click.echo("--local: running in this process, not on the server", err=True)
        host = current_host()
        try:
            outcome = msgspec.to_builtins(asyncio.run(_invoke_here(host, name, arguments)))
        finally:
            host.close()
    else:
        outcome = _invoke_on_server(name, parsed)
    click.echo(json.dumps(outcome, indent=2, ensure_ascii=False))
    if outcome.get("status") != Status.OK:
        sys.exit(1)


def _invoke_on_server(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    try:
        settings = load_client_settings()
    except ClientSettingsError as error:
        raise click.ClickException(f"{error} (or use --local to run it in this process)") from None
    path = f"/api/v1/capabilities/{name}/invoke"
    with server_client(settings) as client:
        outcome = _post_outcome(client, path, {"arguments": arguments})
        pending = outcome.get("pending_confirmation")
        if not pending:
            return outcome
        withdraw = functools.partial(
            _post_outcome, client, "/api/v1/confirmations/withdraw", {"token": pending["token"]}
        )
        approve = _answer_or_withdraw(_question(pending, outcome.get("classification")), withdraw)
        if approve is None:
            return withdraw()
        return _post_outcome(client, path, {"confirmation": {"token": pending["token"], "approve": approve}})


def _answer_or_withdraw(question: str, withdraw: Callable[[], Any]) -> bool | None:
    """The person's answer, or ``None`` with no terminal; a request left unanswered is withdrawn.

    A pending confirmation the command walks away from (no terminal, Ctrl-C, end of input)
    would otherwise sit in the console, and run if someone approved it there later.
    """
    try:
        return _ask_about(question)
    except (click.Abort, KeyboardInterrupt, EOFError):
        withdraw()
        click.echo("\nWithdrawn: nothing ran.", err=True)
        raise


def _post_outcome(client: Any, path: str, payload: dict[str, Any]) -> dict[str, Any]:
    try:
        response = client.post(path, json=payload)
    except httpx.HTTPError as error:
        raise click.ClickException(cannot_reach(str(client.base_url), error)) from None
    body = response.json()
    if "status" not in body:
        error = body.get("error") or {}
        raise click.ClickException(f"{error.get('code', response.status_code)}: {error.get('message', response.text)}")
    return body


def _question(pending: dict[str, Any], classification: dict[str, Any] | None) -> str:
    """The question every surface asks, for a confirmation read off the server's JSON."""
    known = msgspec.convert(classification, Classification) if classification else None
    return confirmation_prompt(msgspec.convert(pending, PendingConfirmation), known)


def _ask_about(question: str) -> bool | None:
    """The person's answer on this terminal; ``None`` when there is no terminal to ask on."""
    click.echo(question, err=True)
    if not sys.stdin.isatty():
        click.echo(
            "No terminal to ask on: nothing ran, and the request is withdrawn (run it on a terminal, "
            "or have the key pre-approved for it: steward keys add NAME --preapprove CAPABILITY).",
            err=True,
        )
        return None
    return click.confirm("Run it?", default=False, err=True)


async def _invoke_here(host: Host, name: str, arguments: str) -> Outcome:
    principal = cli_principal()
    outcome = await host.executor.invoke(name, arguments, caller=principal, surface=Surface.CLI)
    pending = outcome.pending_confirmation
    if pending is None:
        return outcome
    confirmation_id = token_digest(pending.token)
    withdraw = functools.partial(host.executor.withdraw, confirmation_id, caller=principal)
    approve = _ask_about(confirmation_prompt(pending, outcome.classification))
    if approve is None:
        return await withdraw()
    return await host.executor.answer(confirmation_id, approve, caller=principal, surface=Surface.CLI)


@click.command()
@click.option("--url", default="http://127.0.0.1:8092", show_default=True, help="The Steward server.")
def login(url: str) -> None:
    """Save the server URL and a key (asked for, never an argument) in client.toml, mode 0600.

    The key is checked against the server first; steward invoke, chat, mcp, fetch and search use
    it. Piped in (echo "$KEY" | steward login), the key is read from the first line of input.
    """
    key = (click.prompt("key", hide_input=True) if sys.stdin.isatty() else sys.stdin.readline()).strip()
    if not key:
        raise click.ClickException("no key given: type it at the prompt, or pipe it in on one line")
    settings = ClientSettings(url=url.rstrip("/"), key=key)
    try:
        with server_client(settings, timeout=10) as client:
            response = client.get("/api/v1/capabilities")
    except httpx.HTTPError as error:
        raise click.ClickException(cannot_reach(url, error)) from None
    if response.status_code == 401:
        raise click.ClickException(f"{url} does not accept this key")
    if response.status_code != 200:
        raise click.ClickException(f"{url} answered HTTP {response.status_code}; is it a Steward server?")
    path = save_client_settings(settings)
    click.echo(f"saved {path} (mode 0600)")


@click.command()
@host_options
@click.option("--local", is_flag=True, help="Answer in this process instead of on the server (development only).")
def mcp(local: bool) -> None:
    """Serve MCP on stdin/stdout for a desktop client (its "command" to launch).

    Each message goes to the running server's /mcp with the key from client.toml (steward login)
    or STEWARD_URL/STEWARD_KEY, so the household's policy, confirmations and audit apply there,
    and the client's elicitation asks the person before anything leaves the house. --local
    builds a host in this process instead: its confirmations can be answered only through the
    client's elicitation, and die with the command.
    """
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    if local:
        asyncio.run(_mcp_here(current_host()))
        return
    try:
        settings = load_client_settings()
    except ClientSettingsError as error:
        raise click.ClickException(f"{error} (or use --local to answer in this process)") from None
    asyncio.run(_mcp_bridge(settings))


async def _mcp_bridge(settings: ClientSettings) -> None:
    from steward._mcp.stdio import Bridge, standard_lines

    await Bridge(settings.url, settings.key, await standard_lines()).run()


async def _mcp_here(host: Host) -> None:
    from steward._mcp.stdio import LocalSession, standard_lines

    caller = Principal(f"mcp:{getpass.getuser()}", frozenset({"invoke"}))
    console = "none: steward mcp --local keeps its confirmations in its own process"
    try:
        await LocalSession(host, caller, await standard_lines(), console).run()
    finally:
        await host.close_resources()
        host.audit.flush()
        host.close()


@click.command()
def chat() -> None:
    """Talk to a running server; each pending confirmation shows its exact arguments and asks y/N.

    The server and key come from ~/.config/steward/client.toml (or STEWARD_URL / STEWARD_KEY).
    """
    try:
        settings = load_client_settings()
    except ClientSettingsError as error:
        raise click.ClickException(str(error)) from None
    history: list[dict[str, str]] = []
    with server_client(settings) as client:
        while True:
            try:
                text = click.prompt("you", prompt_suffix="> ")
            except click.Abort:
                click.echo()
                return
            history.append({"role": "user", "content": text})
            body = _chat_request(client, {"messages": history})
            while body is not None and body.get("pending_confirmation"):
                body = _chat_request(client, {"confirmation": _ask_person(body)})
            if body is None:
                history.pop()
                continue
            click.echo(f"steward> {body['text']}")
            for receipt in body["invocations"]:
                click.echo(f"  [{_receipt(receipt)}]")
            for citation in body["citations"]:
                click.echo(f"  source: {citation['title']} <{citation['url']}>")
            history.append({"role": "assistant", "content": body["text"]})


def _chat_request(client: Any, payload: dict[str, Any]) -> dict[str, Any] | None:
    try:
        response = client.post("/api/v1/conversation/message", json=payload)
    except httpx.HTTPError as error:
        raise click.ClickException(cannot_reach(str(client.base_url), error)) from None
    body = response.json()
    if response.status_code != 200:
        click.echo(f"error: {body['error']['code']}: {body['error']['message']}", err=True)
        return None
    return body


def _ask_person(body: dict[str, Any]) -> dict[str, Any]:
    pending = body["pending_confirmation"]
    if body["text"]:
        click.echo(f"steward> {body['text']}")
    receipt = next((item for item in body["invocations"] if item["capability"] == pending["capability"]), {})
    click.echo(_question(pending, receipt.get("classification")))
    approve = click.confirm("Run it?", default=False)
    return {"token": pending["token"], "approve": approve}


def _receipt(receipt: dict[str, Any]) -> str:
    classification = receipt.get("classification") or {}
    place = "left this device" if classification.get("network") == "external" else "stayed on this device"
    if receipt["status"] != "ok":
        place = "did not run"
    code = f" {receipt['code']}" if receipt["code"] else ""
    return f"{receipt['capability']}: {receipt['status']}{code}, {place}"


CLIENT_COMMANDS = (invoke, chat, mcp, login)
