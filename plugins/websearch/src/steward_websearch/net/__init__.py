"""The network layer: the SSRF guard (``guard``) and fetching through it under hard limits (``fetch``).

Nothing here knows about pages or capabilities: a destination is checked, a body is fetched,
and every failure is a :class:`~steward_websearch.net.fetch.FetchFailed` or the guard's
:class:`~steward_websearch.net.guard.TargetRejected`.
"""
