"""Steward as an MCP server: the capabilities offered on the ``mcp`` surface as tools (SPEC §14).

``protocol`` holds the wire vocabulary, ``tools`` turns capabilities and outcomes into MCP's
shapes, ``server`` answers the methods, and the transports carry them: ``http`` (Streamable HTTP
at ``/mcp``) and ``stdio`` (``steward mcp``).
"""
