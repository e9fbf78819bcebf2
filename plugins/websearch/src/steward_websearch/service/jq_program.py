"""A caller's jq program over one JSON document: real jq, through the ``jq`` package.

A jq program is code from outside, so it is checked here (does it compile?) before anything is
fetched, and run only in an isolated worker (:class:`steward.IsolatedWorkers`): no environment,
no files, a CPU-time and memory limit, killed at the request's deadline. The worker gets the
document as text, already decoded, so it needs nothing from the disk.
"""

from __future__ import annotations

import json
from typing import Any

import jq

from steward_websearch.extraction import InvalidContent, load_json


def check_program(program: str) -> None:
    """:class:`InvalidContent` naming jq's complaint when ``program`` does not compile."""
    _compiled(program)


def run_program(program: str, document: str) -> str:
    """``program`` applied to the JSON ``document``, pretty-printed (one result, or a list of them)."""
    value = load_json(document)
    try:
        results = _compiled(program).input_value(value).all()
    except ValueError as error:
        raise InvalidContent(f"jq: {error}") from None
    return json.dumps(results[0] if len(results) == 1 else results, indent=2, ensure_ascii=False)


def _compiled(program: str) -> Any:
    try:
        return jq.compile(program)
    except ValueError as error:
        raise InvalidContent(f"jq: {error}") from None
