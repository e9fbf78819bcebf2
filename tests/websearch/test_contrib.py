import tomllib
from pathlib import Path

import msgspec
from steward_websearch.settings import WebsearchSettings

SETTINGS = Path(__file__).parents[2] / "contrib" / "searxng" / "settings.yml"


def test_searxng_settings_enable_json_and_disable_the_limiter():
    text = SETTINGS.read_text()
    formats = text.split("formats:", 1)[1].split("safe_search", 1)[0]
    assert "- json" in formats
    assert "- html" in formats
    assert "limiter: false" in text
    assert "image_proxy: false" in text
    assert 'bind_address: "127.0.0.1"' in text
    assert "port: 8093" in text
    assert "SEARXNG_SECRET" in text
    settings = [line.split("#", 1)[0] for line in text.splitlines()]
    assert not any("secret_key" in line for line in settings), "SearXNG does not expand ${…}: a key here is public"
    assert "use_default_settings: true" in text


def test_example_config_documents_every_websearch_key():
    example = tomllib.loads((Path(__file__).parents[2] / "contrib" / "steward.toml").read_text())
    section = example["plugins"]["websearch"]
    settings = msgspec.convert(section, type=WebsearchSettings)
    for field in msgspec.structs.fields(WebsearchSettings):
        assert field.name in section, f"[plugins.websearch] {field.name} is not in contrib/steward.toml"
        value = getattr(settings, field.name)
        if isinstance(value, msgspec.Struct):
            for inner in msgspec.structs.fields(value):
                assert inner.name in section[field.name], f"[plugins.websearch.{field.name}] {inner.name} is missing"
