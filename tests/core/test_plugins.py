"""Discovery through real entry points (dist-info directories on sys.path), selection and failures."""

import asyncio
import importlib.metadata
import logging
import textwrap
import types

import click
import msgspec
import pytest
from click.testing import CliRunner

import steward
from steward import _plugins as steward_plugins
from steward._cli import add_plugin_commands, cli
from steward._config import load_config
from steward._plugins import discover
from steward.testing import make_host


def install_fake_distribution(root, distribution: str, plugins: dict[str, str], modules: dict[str, str]) -> None:
    """Write what pip would: a dist-info with entry points, and the modules themselves."""
    info = root / f"{distribution.replace('-', '_')}-1.2.3.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.2.3\n")
    (info / "entry_points.txt").write_text(
        "[steward]\n" + "".join(f"{name} = {module}\n" for name, module in plugins.items())
    )
    for module, source in modules.items():
        (root / f"{module}.py").write_text(textwrap.dedent(source))


GOOD = """
    import msgspec
    import steward

    class Empty(msgspec.Struct):
        pass

    async def ping(arguments, context):
        return Empty()

    @steward.hookimpl
    def register_capabilities(config):
        return [steward.Capability("good.ping", 1, "Ping.", Empty, Empty, "read_only", "local", ping)]
"""

BROKEN_IMPORT = """
    import steward
    raise ImportError("needs libfoo 2.0")
"""

INVALID_CAPABILITY = """
    import msgspec
    import steward

    class Empty(msgspec.Struct):
        pass

    async def run(arguments, context):
        return Empty()

    @steward.hookimpl
    def register_capabilities(config):
        return [steward.Capability("Bad Name", 1, "x", Empty, Empty, "read_only", "local", run)]
"""

MISSPELT_HOOK = """
    import steward

    @steward.hookimpl
    def register_capabilites(config):
        return []
"""


@pytest.fixture
def site(tmp_path, monkeypatch):
    root = tmp_path / "site"
    root.mkdir()
    install_fake_distribution(
        root,
        "steward-testfamily",
        {"good": "good_plugin", "broken": "broken_plugin", "invalid": "invalid_plugin", "misspelt": "misspelt_plugin"},
        {
            "good_plugin": GOOD,
            "broken_plugin": BROKEN_IMPORT,
            "invalid_plugin": INVALID_CAPABILITY,
            "misspelt_plugin": MISSPELT_HOOK,
        },
    )
    monkeypatch.syspath_prepend(str(root))
    return root


def test_discovery_reports_failures_by_name_and_loads_the_rest(site, tmp_path):
    config = load_config(None, data_dir=tmp_path / "data", environ={})
    host = steward.Host(config)
    names = {plugin.name for plugin in host.plugins}
    assert {"good", "system"} <= names
    assert "broken" not in names
    errors = {error.plugin: error.message for error in host.load_errors}
    assert "ImportError: needs libfoo 2.0" in errors["broken"]
    assert "Bad Name" in errors["invalid"]
    assert "family.verb" in errors["invalid"]
    assert "register_capabilites" in errors["misspelt"]
    assert host.registry.get("good.ping") is not None
    good = next(info for info in host.plugin_infos() if info.name == "good")
    assert (good.distribution, good.version, good.capabilities) == ("steward-testfamily", "1.2.3", ["good.ping"])
    host.close()


def test_strict_loading_refuses_to_start(site, tmp_path):
    config = load_config(None, data_dir=tmp_path / "data", environ={}, overrides={"plugins": {"strict": True}})
    with pytest.raises(steward.PluginLoadFailed, match="broken: import of broken_plugin failed"):
        steward.Host(config)


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"STEWARD_PLUGINS": "good"}, ["good"]),
        ({"STEWARD_PLUGINS": "good,system"}, ["good", "system"]),
        ({"STEWARD_PLUGINS_DISABLED": "<every plugin but good>"}, ["good"]),
    ],
)
def test_selection(site, tmp_path, environ, expected):
    if environ.get("STEWARD_PLUGINS_DISABLED") == "<every plugin but good>":
        installed = {entry_point.name for entry_point in importlib.metadata.entry_points(group="steward")}
        environ = {"STEWARD_PLUGINS_DISABLED": ",".join(sorted(installed - {"good"}))}
    config = load_config(None, data_dir=tmp_path, environ=environ)
    plugins, errors = discover(config.plugins)
    assert sorted(plugin.name for plugin in plugins) == expected
    assert errors == []


def test_enabling_a_plugin_that_is_not_installed_is_reported(site, tmp_path):
    config = load_config(None, data_dir=tmp_path, environ={"STEWARD_PLUGINS": "good,wether"})
    _, errors = discover(config.plugins)
    assert [(error.plugin, error.message) for error in errors] == [
        ("wether", "enabled in the configuration but not installed")
    ]


def test_cli_and_health_show_load_errors(site, tmp_path):
    result = CliRunner().invoke(cli, ["plugins", "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 0
    assert "good  (steward-testfamily 1.2.3)  capabilities: good.ping" in result.output
    assert "FAILED broken: import of broken_plugin failed: ImportError: needs libfoo 2.0" in result.output
    strict = CliRunner().invoke(cli, ["plugins", "--strict-plugins", "--data-dir", str(tmp_path / "data")])
    assert strict.exit_code == 1
    assert "strict plugin loading" in strict.output
    host = steward.Host(load_config(None, data_dir=tmp_path / "data", environ={}))
    report = asyncio.run(host.health())
    assert report.status == "degraded"
    assert {error.plugin for error in report.load_errors} == {"broken", "invalid", "misspelt"}


class Empty(msgspec.Struct):
    pass


async def nothing(arguments, context):
    return Empty()


def plugin_with(**hooks) -> types.SimpleNamespace:
    return types.SimpleNamespace(**{name: steward.hookimpl(function) for name, function in hooks.items()})


def capability(name: str, **options) -> steward.Capability:
    return steward.Capability(name, 1, "d", Empty, Empty, "read_only", "local", nothing, **options)


def test_duplicate_capability_names_always_stop_the_start(tmp_path):
    first = plugin_with(register_capabilities=lambda: [capability("same.name")])
    second = plugin_with(register_capabilities=lambda: [capability("same.name")])
    with pytest.raises(
        steward.PluginLoadFailed, match=r"'same\.name' is declared by both plugin 'first' and plugin 'second'"
    ):
        make_host([steward.Plugin("first", first), steward.Plugin("second", second)], data_dir=tmp_path)


def test_policy_key_must_be_a_registered_flag(tmp_path):
    plugin = plugin_with(
        register_capabilities=lambda: [capability("a.b", policy_key="web_serch_enabled"), capability("a.c")]
    )
    host = make_host([steward.Plugin("a", plugin)], data_dir=tmp_path)
    assert "policy_key 'web_serch_enabled' is not a registered policy flag" in host.load_errors[0].message
    assert [entry.capability.name for entry in host.registry] == ["a.c"]


def test_hooks_that_raise_or_return_junk_are_reported(tmp_path):
    def explode():
        raise RuntimeError("bad day")

    plugins = [
        steward.Plugin("raises", plugin_with(register_capabilities=explode)),
        steward.Plugin("junk", plugin_with(register_capabilities=lambda: ["not a capability"])),
        steward.Plugin("settings", plugin_with(register_settings=lambda: dict)),
        steward.Plugin("flags", plugin_with(register_policy_flags=lambda: [steward.PolicyFlag("x_enabled", "d")])),
        steward.Plugin("flags2", plugin_with(register_policy_flags=lambda: [steward.PolicyFlag("x_enabled", "d")])),
    ]
    host = make_host(plugins, data_dir=tmp_path)
    messages = {error.plugin: error.message for error in host.load_errors}
    assert messages == {
        "raises": "register_capabilities raised RuntimeError: bad day",
        "junk": "register_capabilities returned something that is not a steward.Capability",
        "settings": "register_settings must return a msgspec.Struct type",
        "flags": "policy flag 'x_enabled' is already owned by plugin 'flags2'",
    }


def test_hooks_run_in_pluggys_order_with_tracing_and_tracebacks(tmp_path, caplog, monkeypatch):
    """tryfirst first, trylast last, else the last registered first, as pluggy itself calls them."""
    called = []

    def flags(name):
        def register_policy_flags():
            called.append(name)
            return []

        return register_policy_flags

    def explode():
        raise RuntimeError("bad day")

    plugins = [
        steward.Plugin(
            "last", types.SimpleNamespace(register_policy_flags=steward.hookimpl(trylast=True)(flags("last")))
        ),
        steward.Plugin("plain_a", plugin_with(register_policy_flags=flags("plain_a"))),
        steward.Plugin(
            "first", types.SimpleNamespace(register_policy_flags=steward.hookimpl(tryfirst=True)(flags("first")))
        ),
        steward.Plugin("plain_b", plugin_with(register_policy_flags=flags("plain_b"))),
        steward.Plugin("raises", plugin_with(register_capabilities=explode)),
    ]
    monkeypatch.setenv("STEWARD_TRACE_PLUGINS", "1")
    with caplog.at_level(logging.INFO, logger="steward.plugins"):
        make_host(plugins, data_dir=tmp_path)
    assert called == ["first", "plain_b", "plain_a", "last"]
    assert "hook register_policy_flags of plugin first:" in caplog.text
    failure = next(record for record in caplog.records if "raised RuntimeError: bad day" in record.getMessage())
    assert failure.exc_info is not None, "the traceback reaches the log"
    assert "in explode" in caplog.text


def test_plugin_settings_are_decoded_strictly(tmp_path):
    class Settings(msgspec.Struct, forbid_unknown_fields=True):
        url: str = "http://127.0.0.1:1"
        retries: int = 1

    seen = []

    async def show(arguments, context):
        seen.append(context.settings)
        return Empty()

    plugin = plugin_with(
        register_settings=lambda: Settings,
        register_capabilities=lambda: [steward.Capability("w.show", 1, "d", Empty, Empty, "read_only", "local", show)],
    )
    host = make_host([steward.Plugin("w", plugin)], data_dir=tmp_path, config={"plugins": {"w": {"retries": 3}}})
    assert host.config.plugin_settings("w") == Settings(retries=3)
    asyncio.run(host.executor.invoke("w.show", {}, caller=steward.Principal("t", frozenset()), surface="cli"))
    assert seen == [Settings(retries=3)]
    for section, message in (
        ({"retries": "3"}, "plugins.w.retries: Expected `int`, got `str`"),
        ({"retry": 3}, "plugins.w.retry: unknown key"),
    ):
        with pytest.raises(steward.ConfigError, match=message.replace(".", r"\.")):
            make_host([steward.Plugin("w", plugin)], data_dir=tmp_path, config={"plugins": {"w": section}})


COMMANDS = """
    import click
    import steward

    @steward.hookimpl
    def register_commands(cli, config):
        station = config.plugin_section("weather").get("station", "none")

        @cli.command("weather-station")
        def weather_station():
            click.echo(f"station {station}")
"""


def test_register_commands_receives_the_configuration(tmp_path, monkeypatch):
    root = tmp_path / "commands-site"
    root.mkdir()
    install_fake_distribution(root, "steward-weather", {"weather": "weather_commands"}, {"weather_commands": COMMANDS})
    monkeypatch.syspath_prepend(str(root))
    importlib.invalidate_caches()
    (tmp_path / "steward.toml").write_text('[plugins.weather]\nstation = "kitchen"\n')
    monkeypatch.setenv("STEWARD_CONFIG", str(tmp_path / "steward.toml"))
    monkeypatch.setenv("STEWARD_PLUGINS", "weather")
    group = click.Group("steward")
    add_plugin_commands(group)
    result = CliRunner().invoke(group, ["weather-station"])
    assert result.output == "station kitchen\n"


def test_one_bad_declaration_never_takes_its_valid_siblings_with_it(tmp_path):
    def declarations():
        return [
            capability("weather.now"),
            steward.Capability("weather.bad", 1, "d", Empty, Empty, "readonly", "lan", nothing),
            capability("weather.later"),
        ]

    host = make_host([steward.Plugin("weather", plugin_with(register_capabilities=declarations))], data_dir=tmp_path)
    assert sorted(entry.capability.name for entry in host.registry) == ["weather.later", "weather.now"]
    [error] = host.load_errors
    assert error.plugin == "weather"
    assert "weather.bad" in error.message
    assert "side_effect 'readonly' (valid: 'read_only' or 'mutating')" in error.message
    assert "network 'lan' (valid: 'local' or 'external')" in error.message
    with pytest.raises(steward.InvalidCapability, match="side_effect 'readonly'"):
        steward.Capability("weather.bad", 1, "d", Empty, Empty, "readonly", "local", nothing)


def test_mcp_the_console_and_conversation_routes_come_through_the_hooks_a_plugin_uses(tmp_path):
    """The built-in surfaces are a plugin named ``steward``: not listed among the installed ones,
    and the app factory adds nothing of theirs by itself."""
    host = make_host([], data_dir=tmp_path)
    try:
        assert host.manager.get_plugin("steward") is not None
        assert host.plugin_infos() == []
        by_plugin = {
            plugin: [route.path for route in routes]
            for plugin, routes in steward_plugins.call_each(host.manager, "register_routes", config=host.config)
        }
        assert {"/mcp", "/api/v1/conversation/message", "/console", "/console/panels/{name}.js"} <= set(
            by_plugin["steward"]
        )
        host.manager.unregister(name="steward")
        paths = {getattr(route, "path", None) for route in steward.create_app(host).routes}
        assert "/mcp" not in paths
        assert "/console" not in paths
        assert "/api/v1/capabilities/{name}/invoke" in paths
    finally:
        host.close()
