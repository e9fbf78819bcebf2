"""Load a script of the repository (a bench, a docs generator) as a module, for the tests that check it."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).parents[1]


def load_script(relative_path: str, name: str) -> ModuleType:
    """The script at ``ROOT / relative_path``, imported under ``name`` (registered, so dataclasses work)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / relative_path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
