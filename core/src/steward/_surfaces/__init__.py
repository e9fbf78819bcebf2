"""The ways in, side by side over one gate, one view and one renderer per wire.

A request from REST, MCP, a conversation turn, the console or the CLI meets the same pieces:

- :mod:`~steward._surfaces.gate`: who is calling, with which scope, and a slot among the host's
  running invocations (one counter, whichever way in).
- :mod:`~steward._surfaces.views`: a capability as REST JSON, an MCP tool or an OpenAI tool.
- :mod:`~steward._surfaces.outcomes`: the executor's outcome as a REST body, an MCP tool result or
  a model's ``tool`` message.
- :mod:`~steward._surfaces.prompts`: the question a person answers before anything runs.

The adapters stand on them: :mod:`~steward._surfaces.rest` (``/api/v1``),
:mod:`~steward._surfaces.console` (the household page), :mod:`steward._mcp` (``/mcp`` and
``steward mcp``), :mod:`steward._conversation` (turns) and :mod:`steward._cli`. A new way in (a
voice front-end, say) is one more adapter that asks the gate, calls the executor, and renders
with these. Nothing here is imported by this package itself, so the pure modules (views,
outcomes, prompts) can serve the core without pulling in the web stack.
"""
