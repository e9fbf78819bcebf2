"""A caller's jq program over one JSON document: real jq, through the ``jq`` package.

A jq program is code from outside. It is compiled, to check it before anything is fetched, and
run only in an isolated worker (:class:`steward.IsolatedWorkers`): no environment, no files, a
CPU-time and memory limit, killed at the request's deadline. Compiling is no safer than running:
``import "…" as m;`` and ``include "…";`` make jq read files while it compiles, and its messages
quote what it read (a line of a ``.jq`` file, the parse position of a ``.json``) or say "module
not found" (an existence oracle). So module directives and ``modulemeta`` are refused before jq
sees the program, compiling happens in the worker too, where no file can be opened, and file
paths are cut out of jq's messages. The worker gets the document as text, already decoded.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jq

from steward_websearch.extraction import InvalidContent, load_json

_READS_MODULES = re.compile(r"(?<![\w$.])(import|include|modulemeta|get_search_list)(?![\w])")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[/\\][^\s/\\:\"',;()]+)+[/\\]?")


def refuse_module_access(program: str) -> None:
    """:class:`InvalidContent` when ``program`` names jq's module system, which reads files.

    Looked for outside string literals (a field named ``"import"`` is fine) but inside comments
    too: whatever a comment might hide from this look, jq does not get to read a file for it.
    """
    code = _STRING.sub('""', program)
    found = _READS_MODULES.search(code)
    if found:
        raise InvalidContent(f"jq: {found.group(1)} is not allowed here (jq programs may not read modules or files)")


def check_program(program: str) -> None:
    """:class:`InvalidContent` naming jq's complaint when ``program`` does not compile.

    Run it in an isolated worker: compiling may touch the file system.
    """
    refuse_module_access(program)
    _compiled(program)


def run_program(program: str, document: str) -> str:
    """``program`` applied to the JSON ``document``, pretty-printed (one result, or a list of them)."""
    refuse_module_access(program)
    value = load_json(document)
    try:
        results = _compiled(program).input_value(value).all()
    except ValueError as error:
        raise InvalidContent(f"jq: {_without_paths(str(error))}") from None
    return json.dumps(results[0] if len(results) == 1 else results, indent=2, ensure_ascii=False)


def _compiled(program: str) -> Any:
    try:
        return jq.compile(program)
    except ValueError as error:
        raise InvalidContent(f"jq: {_without_paths(str(error))}") from None


def _without_paths(message: str) -> str:
    """jq's message with anything shaped like a file path replaced: messages reach the caller."""
    return _PATH.sub("<path>", message)
