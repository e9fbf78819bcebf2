"""The documented plugin API is the real one: names, hooks, and examples that run."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import subprocess
import sys
import types
import typing
from pathlib import Path

import click
import msgspec
import pytest

import steward
from steward import hookspecs
from steward._app import create_app
from steward.testing import make_host

DOC = (Path(__file__).parents[2] / "docs" / "plugins.md").read_text()
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC, re.DOTALL)


def documented_public_names() -> set[str]:
    section = DOC.split("## The public API", 1)[1].split("\n## ", 1)[0]
    first_cells = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    return {name for cell in first_cells for name in re.findall(r"`([^`]+)`", cell)}


def hookspec_names() -> list[str]:
    return [
        name
        for name, function in inspect.getmembers(hookspecs, inspect.isfunction)
        if hasattr(function, "steward_spec")
    ]


def test_all_equals_the_documented_names():
    assert set(steward.__all__) == documented_public_names()
    for name in steward.__all__:
        assert hasattr(steward, name), name


def test_nothing_public_leaks_beyond_all():
    """As httpx checks its own: every name of ``steward`` without an underscore is in ``__all__``,
    but for the public modules (importing them makes them attributes)."""
    modules = {"web", "commands", "testing", "hookspecs"}
    leaked = {name for name in vars(steward) if not name.startswith("_")} - modules - set(steward.__all__)
    assert leaked == set()
    private = sorted(
        path.stem for path in Path(steward.__file__).parent.iterdir() if path.suffix == ".py" or path.is_dir()
    )
    assert [name for name in private if not name.startswith("_") and name not in {*modules, "plugin_template"}] == []


def test_public_functions_and_classes_say_they_are_stewards():
    assert repr(steward.ApiError) == "<class 'steward.ApiError'>"
    assert steward.require_scope.__module__ == "steward"
    assert steward.Surface.__module__ == "steward"
    assert repr(steward.Outcome) == "<class 'steward.Outcome'>"
    assert repr(steward.Capability) == "<class 'steward.Capability'>"
    public_classes = [getattr(steward, name) for name in steward.__all__ if isinstance(getattr(steward, name), type)]
    assert {cls.__module__ for cls in public_classes} == {"steward"}
    for cls in public_classes:
        typing.get_type_hints(cls, include_extras=True)


class Traced(steward.Outcome):
    """A plugin's own Struct on a public one, written with postponed annotations (as this module
    is): decoding it resolves ``Outcome``'s annotations too (``Any``, ``Stage``, ...)."""

    trace: list[str] = msgspec.field(default_factory=list)


def test_public_structs_and_their_subclasses_still_decode_after_taking_stewards_name():
    body = b'{"capability": "a.b", "version": 1, "stage": "execute", "status": "ok", "result": {"n": 1}'
    traced = msgspec.json.decode(body + b', "trace": ["x"]}', type=Traced)
    assert (traced.stage, traced.status, traced.result, traced.trace) == (
        steward.Stage.EXECUTE,
        steward.Status.OK,
        {"n": 1},
        ["x"],
    )
    with pytest.raises(msgspec.ValidationError, match="stage"):
        msgspec.json.decode(body.replace(b"execute", b"nowhere") + b"}", type=Traced)
    assert msgspec.json.decode(body + b"}", type=steward.Outcome).result == {"n": 1}


def test_every_hookspec_has_a_documented_section():
    assert len(hookspec_names()) == 11
    for name in hookspec_names():
        assert re.search(rf"^### .*`{name}`", DOC, re.MULTILINE), f"docs/plugins.md has no section for {name}"


def test_every_hookspec_has_a_docstring():
    for name in hookspec_names():
        assert getattr(hookspecs, name).__doc__, name


def load_example(source: str, index: int) -> types.ModuleType:
    module = types.ModuleType(f"doc_example_{index}")
    exec(compile(source, f"docs/plugins.md example {index}", "exec", dont_inherit=True), module.__dict__)
    return module


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_examples_are_valid_plugins(index, tmp_path):
    source = EXAMPLES[index]
    assert "from steward." not in source.replace("from steward.testing", ""), "examples use public names only"
    module = load_example(source, index)
    hooks = [name for name in hookspec_names() if hasattr(module, name)]
    if not hooks:
        tests = [function for name, function in vars(module).items() if name.startswith("test_")]
        assert tests, "an example is either a plugin or a test"
        for test in tests:
            test(tmp_path)
        return
    plugins = [steward.Plugin("doc", module)]
    if "register_policy_flags" not in hooks:
        plugins.append(steward.Plugin("flags", flags_example()))
    host = make_host(plugins, data_dir=tmp_path)
    assert host.load_errors == []
    if "register_capabilities" in hooks:
        assert len(host.registry) == 1
    if "register_routes" in hooks:
        assert any(getattr(route, "path", "").startswith("/api/v1/weather") for route in create_app(host).routes)
    if "register_commands" in hooks:
        group = click.Group("steward")
        module.register_commands(group)
        assert "weather-rooms" in group.commands
    host.close()


def flags_example() -> types.ModuleType:
    """The capability example's policy_key names the flag that the flags example registers."""
    index = next(i for i, source in enumerate(EXAMPLES) if "def register_policy_flags" in source)
    return load_example(EXAMPLES[index], index)


def test_capability_example_without_its_flag_is_reported(tmp_path):
    index = next(i for i, source in enumerate(EXAMPLES) if "def register_capabilities" in source)
    host = make_host([steward.Plugin("doc", load_example(EXAMPLES[index], index))], data_dir=tmp_path)
    assert "'weather_enabled' is not a registered policy flag" in host.load_errors[0].message


def test_import_steward_does_not_load_the_command_line():
    probe = "import sys, steward; print('steward.commands' in sys.modules); steward.current_config; print('steward.commands' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert shown == ["False", "True"], "only asking for current_config loads it"


@pytest.mark.parametrize("module", ["steward.web", "steward.commands"])
def test_the_audience_modules_offer_only_documented_names(module):
    """What a route or command author imports from these, docs/plugins.md names."""
    for name in importlib.import_module(module).__all__:
        assert f"`{name}`" in DOC, f"{module}.{name} is not documented"


def test_the_command_line_and_the_server_never_load_the_testing_helpers():
    probe = (
        "import sys, steward._cli, steward._app, steward._scripted_model; "
        "print(sorted(name for name in sys.modules if name.startswith('steward.testing')))"
    )
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "[]", "steward dev-model's scripted model lives outside steward.testing"


PUBLIC_MODULES = {"steward", "steward.testing", "steward.web", "steward.commands"}


@pytest.mark.parametrize(
    "source",
    sorted((Path(__file__).parents[2] / "plugins").glob("*/src/**/*.py"))
    + sorted((Path(__file__).parents[2] / "contrib" / "plugin-template").glob("**/*.py")),
    ids=lambda path: str(path.relative_to(Path(__file__).parents[2])),
)
def test_bundled_plugins_import_only_stewards_public_names(source):
    tree = ast.parse(source.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            if name == "steward" or name.startswith("steward."):
                assert name in PUBLIC_MODULES, f"{source.name}:{node.lineno} imports the private module {name}"
