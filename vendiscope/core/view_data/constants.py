"""The constants of what views show (re-exported by :mod:`vendiscope.api`)."""

from __future__ import annotations

VENDI_METRICS = {"gvendi": "gradient", "vendi": "embedding"}
"""The headline Vendi scores and the kind of vector set each is computed on."""
METRIC_TITLES = {"gvendi": "G-Vendi", "vendi": "embedding-Vendi"}
"""How charts name the headline Vendi scores."""
NO_SOURCE = "(none)"
"""The source of records that have none (parenthesised: drawn as background by renderers)."""
MAX_CONTRIBUTION_SOURCES = 20
"""Sources (the largest) whose leave-one-out contribution :meth:`ViewData.source_table` gives."""
MAX_MAP_POINTS = 200_000
"""Points a map draws at most (a larger dataset is drawn from a seeded sample of this many)."""
TEXT_WIDTH = 300
"""Record texts are shortened to this many characters unless a width is given."""


__all__ = [
    "MAX_CONTRIBUTION_SOURCES",
    "MAX_MAP_POINTS",
    "METRIC_TITLES",
    "NO_SOURCE",
    "TEXT_WIDTH",
    "VENDI_METRICS",
]
