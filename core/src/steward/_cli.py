"""The ``steward`` command line: serve, inspect, manage keys and policy, and the terminal client.

Every command takes ``--data-dir`` and ``--config`` (or ``STEWARD_DATA_DIR`` / ``STEWARD_CONFIG``),
before or after the command name. The operator's commands are here; the terminal client's
(``invoke``, ``chat``, ``mcp``, ``login``) are in :mod:`steward._client_commands`, and what a
plugin's own commands use is :mod:`steward.commands`.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import click
import msgspec

from steward._auth import SCOPES, KeyStore, KeyStoreError
from steward._capability import EVERY_SURFACE
from steward._client_commands import CLIENT_COMMANDS
from steward._config import ConfigError, load_config
from steward._files import InUse, hold_exclusively, remove_orphaned_temporaries, write_atomic
from steward._host import Host
from steward._plugins import call_each, describe, discover, plugin_manager
from steward._scaffold import ScaffoldError, installed_from, placeholders, render, steward_requirement
from steward._state import StateUnavailable, open_backend, redact
from steward.commands import _Options, current_config, current_host, host_options

log = logging.getLogger("steward.cli")


@click.group()
@click.option(
    "--data-dir", type=click.Path(path_type=Path, file_okay=False), envvar="STEWARD_DATA_DIR", help="Data directory."
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    envvar="STEWARD_CONFIG",
    help="TOML configuration file.",
)
@click.option("--strict-plugins", is_flag=True, default=False, help="Refuse to start if any plugin fails to load.")
@click.version_option(package_name="steward-host")
@click.pass_context
def cli(context: click.Context, data_dir: Path | None, config_path: Path | None, strict_plugins: bool) -> None:
    """Steward: capabilities for models, agents and people, with a person's yes before anything leaves."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    context.obj = _Options(data_dir, config_path, strict_plugins)


for _command in CLIENT_COMMANDS:
    cli.add_command(_command)


@cli.command()
@host_options
@click.option("--host", "bind_host", help="Address to listen on (default 127.0.0.1).")
@click.option("--port", type=int, help="Port to listen on (default 8092).")
@click.option("--workers", type=int, help="Worker processes (default 1).")
def serve(bind_host: str | None, port: int | None, workers: int | None) -> None:
    """Serve the HTTP API; on the first start, create an admin key and show it once."""
    from steward import _http_server as http_server
    from steward._app import create_app

    server = {
        key: value for key, value in (("host", bind_host), ("port", port), ("workers", workers)) if value is not None
    }
    host = current_host(server=server)
    settings = host.config.server
    if settings.workers < 1:
        raise click.ClickException(f"--workers must be 1 or more, not {settings.workers}")
    if host.shared is None:
        _claim_data_directory(host)
    for orphan in remove_orphaned_temporaries(host.data_dir):
        log.warning("removed %s, left behind by a write that was interrupted", orphan)
    try:
        _move_keys_to_redis(host)
        first_key = None if host.keys.records() else host.keys.add("admin", ["admin"])
    except (KeyStoreError, StateUnavailable) as error:
        host.close()
        raise click.ClickException(str(error)) from None
    base = f"http://{settings.host}:{settings.port}"
    if first_key is not None:
        _show_first_key(first_key, host.data_dir, base)
    shared = f" with state in {redact(host.shared.url)}" if host.shared is not None else ""
    workers = f" ({settings.workers} workers)" if settings.workers > 1 else ""
    served = f"Steward serves {base}{workers} from {host.data_dir}{shared}"
    click.echo(f"{served}, in the foreground: Ctrl-C stops it.", err=True)
    click.echo(f"The household console: {base}/console (sign in with a key)", err=True)
    if settings.workers > 1:
        host.close()
        options = click.get_current_context().find_object(_Options) or _Options()
        http_server.run_workers(
            settings, config_path=options.config, data_dir=host.data_dir, strict=options.strict_plugins
        )
        return
    try:
        http_server.run(create_app(host), settings)
    finally:
        host.close()


def _claim_data_directory(host: Host) -> None:
    """On the memory backend this server must be the data directory's only one, with one worker."""
    workers = host.config.server.workers
    if workers > 1:
        host.close()
        raise click.ClickException(
            f'--workers {workers} needs the redis state backend ([state] backend = "redis"): '
            "with the memory backend each worker would keep its own pending confirmations, so a person's "
            "answer reaching another worker would be refused; see docs/operations.md"
        )
    try:
        hold_exclusively(host.data_dir / SERVER_LOCK)
    except InUse as error:
        host.close()
        raise click.ClickException(
            f"another Steward server already serves the data directory {host.data_dir} ({error}); "
            "two servers on one data directory would not share pending confirmations "
            "(the redis state backend lets them)"
        ) from None


def _move_keys_to_redis(host: Host) -> None:
    """The first start on the redis backend takes the keys of the memory backend along."""
    path = host.data_dir / "keys.toml"
    if host.shared is not None and path.exists():
        moved = host.keys.move_from(path)
        log.warning("moved %d key(s) from %s into the shared state store; the file is renamed", moved, path)


FIRST_KEY_FILE = "first-admin-key"
SERVER_LOCK = "server.lock"


def _show_first_key(key: str, data_dir: Path, base: str) -> None:
    """On a terminal, print the first key once; elsewhere (a journal), put it in a 0600 file instead.

    A key printed under systemd would live in the journal, readable by whoever reads logs.
    """
    if sys.stdout.isatty():
        click.echo(
            "\nCreated the first key, named 'admin' (shown once; only its hash is stored):\n\n"
            f"    {key}\n\nOpen the household console and sign in with it:\n\n    {base}/console\n\n"
            f"or try it with curl:\n\n"
            f"    curl -H 'Authorization: Bearer {key}' {base}/api/v1/capabilities\n\n"
            f"Lost it? On this machine, `steward keys add NAME --scope admin` makes another.\n"
        )
        return
    path = data_dir / FIRST_KEY_FILE
    write_atomic(path, f"{key}\n".encode(), mode=0o600)
    log.warning(
        "created the first key, named 'admin'; it is in %s (mode 0600): read it, then delete the file "
        "(lost? `steward keys add NAME --scope admin` on this machine makes another)",
        path,
    )


@cli.command()
@host_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def capabilities(as_json: bool) -> None:
    """List every capability installed here, with its classification.

    This reads this machine's plugins and configuration, as a server started here would load
    them; a running server's own list is GET /api/v1/capabilities.
    """
    from steward._surfaces.views import rest_capabilities

    host = current_host()
    described = rest_capabilities(host.registry)
    if as_json:
        click.echo(msgspec.json.format(msgspec.json.encode(described), indent=2))
        return
    for item in described:
        classification = item["classification"]
        click.echo(
            f"{item['name']} v{item['version']}  {classification.side_effect}/{classification.network}, "
            f"confirmation {classification.confirmation}"
            + (f", needs {item['policy_key']}" if item["policy_key"] else "")
            + ("" if len(item["surfaces"]) == len(EVERY_SURFACE) else f", only on {', '.join(item['surfaces'])}")
        )
        click.echo(f"    {item['description']}")
        for variant in item["variants"]:
            click.echo(f"    on {', '.join(variant['surfaces'])}: {variant['description']}")


@cli.command()
@host_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def plugins(as_json: bool) -> None:
    """List loaded plugins, where they come from, and any that failed to load."""
    host = current_host()
    infos, errors = host.plugin_infos(), host.load_errors
    if as_json:
        click.echo(msgspec.json.format(msgspec.json.encode({"plugins": infos, "load_errors": errors}), indent=2))
        return
    for info in infos:
        origin = f"{info.distribution} {info.version}" if info.distribution else "given directly"
        click.echo(f"{info.name}  ({origin})  capabilities: {', '.join(info.capabilities) or '-'}")
    for error in errors:
        click.echo(f"FAILED {error.plugin}: {error.message}")


@cli.group()
def keys() -> None:
    """Manage API keys (stored as hashes in keys.toml)."""


def _key_store() -> KeyStore:
    """The keys the configured server uses: ``keys.toml``, or the shared Redis."""
    config = current_config()
    try:
        return KeyStore(open_backend(config.state).key_table(config.data_dir))
    except StateUnavailable as error:
        raise click.ClickException(str(error)) from None


@keys.command("add")
@host_options
@click.argument("name")
@click.option("--scope", "scopes", multiple=True, required=True, type=click.Choice(SCOPES), help="Repeat for several.")
@click.option(
    "--preapprove", multiple=True, help="Capability this key may run without confirmation (invoke/service surfaces)."
)
def keys_add(name: str, scopes: tuple[str, ...], preapprove: tuple[str, ...]) -> None:
    """Create a key and print it once, alone on its line."""
    try:
        key = _key_store().add(name, list(scopes), list(preapprove))
    except KeyStoreError as error:
        raise click.ClickException(str(error)) from None
    click.echo(key)


@keys.command("list")
@host_options
def keys_list() -> None:
    """List keys (names, scopes, pre-approvals; never the keys)."""
    for record in _key_store().records():
        preapproved = f"  preapproved: {', '.join(record.preapproved)}" if record.preapproved else ""
        click.echo(f"{record.name}  scopes: {', '.join(record.scopes)}{preapproved}  created {record.created}")


@keys.command("revoke")
@host_options
@click.argument("name")
def keys_revoke(name: str) -> None:
    """Revoke a key; a running server refuses it from the next request on."""
    if not _key_store().revoke(name):
        raise click.ClickException(f"no key named {name!r}")
    click.echo(f"revoked {name}", err=True)


@cli.group()
def policy() -> None:
    """Read and set policy flags."""


@policy.command("get")
@host_options
@click.argument("flag", required=False)
def policy_get(flag: str | None) -> None:
    """Print every flag, or one."""
    snapshot = current_host().policy.snapshot()
    if flag is not None:
        if flag not in snapshot:
            raise click.ClickException(f"no policy flag named {flag!r}; known: {', '.join(snapshot) or 'none'}")
        snapshot = {flag: snapshot[flag]}
    for name, value in snapshot.items():
        click.echo(f"{name} = {'true' if value else 'false'}")


@policy.command("set")
@host_options
@click.argument("flag")
@click.argument("value", type=click.BOOL)
def policy_set(flag: str, value: bool) -> None:
    """Set a flag to true or false (applies to the next request, no restart)."""
    host = current_host()
    if flag not in host.policy.flags:
        raise click.ClickException(
            f"no policy flag named {flag!r}; known: {', '.join(sorted(host.policy.flags)) or 'none'}"
        )
    host.policy.set(flag, value)
    click.echo(f"{flag} = {'true' if value else 'false'}")


@cli.command("new-plugin")
@click.argument("name")
@click.option(
    "--directory",
    type=click.Path(path_type=Path, file_okay=False),
    help="Where to write the package (default ./steward-NAME).",
)
@click.option(
    "--steward-from",
    metavar="SOURCE",
    help="Where the plugin's tests and CI get steward-host: 'index', a checkout's core/ directory, "
    "a wheel, or a URL (git+https://…). Default: where this Steward was installed from.",
)
def new_plugin(name: str, directory: Path | None, steward_from: str | None) -> None:
    """Write a ready plugin package NAME: one capability, its tests, pyproject, README, CI workflow.

    NAME is the plugin's name and its capabilities' family (chores → chores.greet).
    steward-source.txt in it says where steward-host comes from; the README and the CI install
    it first.
    """
    source = steward_from or installed_from()
    destination = directory or Path(placeholders(name)["__DISTRIBUTION__"])
    try:
        written = render(name, destination, source)
    except ScaffoldError as error:
        raise click.ClickException(str(error)) from None
    for path in written:
        click.echo(f"wrote {path}")
    click.echo(f"\nsteward-host comes from: {steward_requirement(source)}")
    click.echo(
        f"next, in a fresh virtual environment: cd {destination} && "
        "pip install -r steward-source.txt -e '.[test]' && pytest"
    )


@cli.command("dev-model")
@click.option("--host", "bind_host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8081, show_default=True)
def dev_model(bind_host: str, port: int) -> None:
    """Serve a scripted OpenAI-compatible model for demos and tests (answers by rules, no weights).

    'search "x"' proposes web.search, 'fetch URL' web.fetch, 'health' system.health,
    'entities' or 'sensors' home_assistant.list_entities; after tool results it quotes them.
    """
    import uvicorn

    from steward._scripted_model import ScriptedModel

    click.echo(f"scripted model on http://{bind_host}:{port}/v1 (set [model] base_url to it)", err=True)
    uvicorn.run(ScriptedModel().app(), host=bind_host, port=port, log_level="warning")


def add_plugin_commands(group: click.Group) -> None:
    """Let the plugins selected by the environment's configuration add their commands."""
    try:
        config = load_config()
    except ConfigError as error:
        click.echo(f"warning: plugin commands not loaded: {error}", err=True)
        return
    found, _ = discover(config.plugins)
    manager, _ = plugin_manager(found)
    for plugin, result in call_each(manager, "register_commands", cli=group, config=config):
        if isinstance(result, Exception):
            click.echo(f"warning: plugin {plugin} could not add its commands: {describe(result)}", err=True)


def main() -> None:
    add_plugin_commands(cli)
    try:
        cli()
    except StateUnavailable as error:
        click.echo(f"Error: {error}", err=True)
        sys.exit(1)
