from pathlib import Path

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
    assert "use_default_settings: true" in text
