"""``steward_websearch.extract``: the public extraction API at its first address (kept working).

The code lives in :mod:`steward_websearch.extraction`; this module re-exports its public names,
whatever they are, so the two addresses cannot drift apart.
"""

from steward_websearch.extraction import *  # noqa: F403
from steward_websearch.extraction import __all__ as __all__
