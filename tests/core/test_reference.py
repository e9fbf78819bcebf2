"""docs/reference.md is what the code declares: every public field, hook and helper, nothing else."""

import dataclasses
import re
from pathlib import Path

import msgspec
import pytest
from script_modules import load_script

import steward
import steward.testing

ROOT = Path(__file__).parents[2]
REFERENCE = ROOT / "docs" / "reference.md"
generator = load_script("docs/generate_reference.py", "generate_reference")
DOCUMENTED_CLASSES = [path for _, _, paths in generator.SECTIONS for path in paths]


def sections(text: str) -> dict[str, str]:
    """Each ``### `Name…``` heading's name mapped to the text under it."""
    parts = re.split(r"^### `([A-Za-z_]+)[^\n]*\n", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def table_fields(section: str) -> list[str]:
    return re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE)


def runtime_fields(cls: type) -> list[str]:
    if dataclasses.is_dataclass(cls):
        return [field.name for field in dataclasses.fields(cls)]
    if getattr(cls, "_is_protocol", False):
        return list(cls.__annotations__)
    if not issubclass(cls, msgspec.Struct):
        return []
    return [field.name for field in msgspec.structs.fields(cls)]


def test_reference_is_generated_from_the_current_code():
    assert REFERENCE.read_text() == generator.render(), "docs/reference.md is stale: run make reference"


def test_the_classes_plugin_authors_declare_or_receive_are_all_covered():
    names = {path.split(":")[1] for path in DOCUMENTED_CLASSES}
    wanted = {"Capability", "Bounds", "Classification", "InvocationContext", "PolicyFlag", "HealthCheck", "Citation"}
    assert wanted <= names
    for path in DOCUMENTED_CLASSES:
        assert getattr(steward, path.split(":")[1]) is generator._resolve(path), f"{path} is not public"


@pytest.mark.parametrize("path", DOCUMENTED_CLASSES)
def test_every_field_is_in_the_reference_with_what_it_is_for(path):
    cls = generator._resolve(path)
    section = sections(REFERENCE.read_text())[cls.__name__]
    listed = table_fields(section)
    assert listed == ([] if issubclass(cls, BaseException) else runtime_fields(cls))
    undocumented = [field.name for field in generator.declared_fields(path) if not field.doc]
    assert undocumented == [], f"{cls.__name__}: give these fields a docstring under them"


def test_every_hook_and_only_the_hooks_are_in_the_reference():
    hookspecs = {name for name, value in vars(steward.hookspecs).items() if hasattr(value, "steward_spec")}
    text = REFERENCE.read_text()
    hooks_part = text.split("## Hooks", 1)[1].split("\n## ", 1)[0]
    assert set(sections(hooks_part)) == hookspecs
    assert {"register_capabilities", "register_outcome_codes", "register_commands"} <= hookspecs
    for name in hookspecs:
        assert sections(hooks_part)[name].strip(), f"hook {name} has no docstring"


def test_every_testing_helper_is_in_the_reference():
    testing_part = REFERENCE.read_text().split("## `steward.testing`", 1)[1].split("\n## ", 1)[0]
    assert set(sections(testing_part)) == set(steward.testing.__all__)
    assert {"serve_host", "serve_app", "ScriptedModel", "Rule", "FakeClock"} <= set(steward.testing.__all__)
    assert "audit_records" in sections(testing_part)["ServedHost"]


def test_every_public_name_is_in_the_index_with_a_description():
    index = REFERENCE.read_text().split("## Everything `import steward` offers", 1)[1]
    rows = dict(re.findall(r"^\| `([A-Za-z_]+)` \| (.*) \|$", index, flags=re.MULTILINE))
    assert set(rows) == set(steward.__all__)
    assert [name for name, description in rows.items() if not description.strip()] == []


def test_core_codes_are_listed_with_their_status():
    rows = re.findall(r"^\| `([A-Z_]+)` \| (\d{3}) \|", REFERENCE.read_text(), flags=re.MULTILINE)
    assert rows == [(str(code), str(code.status)) for code in steward.Code]


def test_a_field_without_a_docstring_is_found(tmp_path, monkeypatch):
    """The field check above can fail: a field with nothing under it has an empty description."""
    (tmp_path / "imagined_bounds.py").write_text(
        "import dataclasses\n\n\n@dataclasses.dataclass\nclass Limits:\n"
        '    seconds: float = 1\n    """How long."""\n    memory_bytes: int = 2\n'
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    fields = generator.declared_fields("imagined_bounds:Limits")
    assert [(field.name, field.default, field.doc) for field in fields] == [
        ("seconds", "1", "How long."),
        ("memory_bytes", "2", ""),
    ]
