from pathlib import Path

import pytest

from steward import ConfigError, load_config


def write(tmp_path, text: str) -> Path:
    path = tmp_path / "steward.toml"
    path.write_text(text)
    return path


def test_defaults(tmp_path):
    config = load_config(None, environ={})
    assert (config.server.host, config.server.port, config.server.workers) == ("127.0.0.1", 8092, 1)
    assert config.data_dir == Path("~/.local/state/steward").expanduser()
    assert config.confirmation.lifetime_seconds == 120
    assert config.plugins.enabled is None


def test_file_environment_and_flag_precedence(tmp_path):
    path = write(tmp_path, 'data_dir = "/from/file"\n[server]\nport = 9000\nhost = "127.0.0.2"\n')
    config = load_config(path, environ={"STEWARD_SERVER__PORT": "9100"})
    assert (config.server.port, config.server.host, config.data_dir) == (9100, "127.0.0.2", Path("/from/file"))
    config = load_config(path, environ={"STEWARD_DATA_DIR": "/from/env"})
    assert config.data_dir == Path("/from/env")
    config = load_config(path, data_dir=Path("/from/flag"), environ={"STEWARD_DATA_DIR": "/from/env"})
    assert config.data_dir == Path("/from/flag")


def test_config_file_from_environment(tmp_path):
    path = write(
        tmp_path,
        "[plugins]\nenabled = ['system']\nstrict = true\n[plugins.websearch]\nsearxng_url = 'http://127.0.0.1:8093'\n",
    )
    config = load_config(None, environ={"STEWARD_CONFIG": str(path)})
    assert config.plugins.enabled == ["system"]
    assert config.plugins.strict is True
    assert config.plugin_section("websearch") == {"searxng_url": "http://127.0.0.1:8093"}


def test_plugin_lists_and_sections_from_environment():
    config = load_config(
        None,
        environ={
            "STEWARD_PLUGINS": "system, websearch",
            "STEWARD_PLUGINS_DISABLED": "homeassistant",
            "STEWARD_PLUGINS__WEBSEARCH__SEARXNG_URL": "http://127.0.0.1:9",
        },
    )
    assert config.plugins.enabled == ["system", "websearch"]
    assert config.plugins.disabled == ["homeassistant"]
    assert config.plugin_environment("websearch") == {"searxng_url": "http://127.0.0.1:9"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[server]\nprot = 1\n", "server.prot: unknown key"),
        ("[server]\nport = 'high'\n", "server.port: Expected `int`, got `str`"),
        ("[sever]\nport = 1\n", "sever: unknown key"),
        ("[plugins]\nstrict = 'yes'\n", "plugins.strict: Expected `bool`"),
        ("[plugins]\nenable = ['a']\n", "plugins.enable: unknown key"),
        ("[state]\nbackend = 'valkey'\n", "state.backend"),
        ("[server\n", "not valid TOML"),
    ],
)
def test_bad_files_name_the_key(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message.replace(".", r"\.").replace("(", r"\(").replace("[", r"\[")):
        load_config(write(tmp_path, text), environ={})


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"STEWARD_SERVER__PORT": "high"}, "STEWARD_SERVER__PORT"),
        ({"STEWARD_SERVER__PROT": "1"}, "server has no key 'prot'"),
        ({"STEWARD_SEVER__PORT": "1"}, "no configuration section named 'sever'"),
        ({"STEWARD_A__B__C__D": "1"}, "expected STEWARD_<SECTION>__<KEY>"),
    ],
)
def test_bad_environment_names_the_variable(environ, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, environ=environ)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.toml", environ={})


def test_example_config_in_contrib_is_valid():
    example = Path(__file__).parents[2] / "contrib" / "steward.toml"
    config = load_config(example, environ={})
    assert config.server.port == 8092


def test_the_state_backend_and_its_url_come_from_the_file_or_the_environment(tmp_path):
    path = tmp_path / "steward.toml"
    path.write_text('[state]\nbackend = "redis"\nurl = "redis://127.0.0.1:6390/2"\n')
    assert load_config(path, environ={}).state.url == "redis://127.0.0.1:6390/2"
    secret = "redis://:from-env@127.0.0.1:6390/2"
    state = load_config(path, environ={"STEWARD_STATE__URL": secret, "STEWARD_STATE__MAX_CONNECTIONS": "8"}).state
    assert (state.backend, state.url, state.max_connections) == ("redis", secret, 8)
    assert load_config(None, environ={}).state.backend == "memory"
