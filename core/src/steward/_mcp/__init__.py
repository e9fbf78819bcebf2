"""Steward as an MCP server: the capabilities offered on the ``mcp`` surface as tools (SPEC §14).

``protocol`` holds the wire vocabulary, ``server`` answers the methods, ``elicitation`` asks the
person through the client, and the transports carry them: ``http`` (Streamable HTTP at ``/mcp``)
and ``stdio`` (``steward mcp``). A tool's definition and a tool result are rendered where every
surface's are, in :mod:`steward._surfaces.views` and :mod:`steward._surfaces.outcomes`.
"""
