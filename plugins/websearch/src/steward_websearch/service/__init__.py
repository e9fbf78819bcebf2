"""What the family offers on top of ``net`` and ``extraction``: the capabilities and the routes.

``fetch_capability`` and ``search`` are the household's ``web.fetch`` and ``web.search``; ``fleet``
declares them again for the service surface, ``routes`` serves them as ``/v1/fetch`` and
``/v1/search``, ``firecrawl`` as Firecrawl's ``/v2/…``. Around them: the page cache, archive
recovery, admission limits, telemetry, jq, the ``digest`` mode (which asks the host's model, and
so lives here rather than in the host-free ``extraction``) and the Brave backend.
"""
