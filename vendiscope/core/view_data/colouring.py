"""How a map is coloured when nobody says: one decision for the app's map view, the ``map``
view (``vendiscope view map``, the Python API) and anything else that draws a map.

Cheap to import (part of :mod:`vendiscope.api`): no NumPy, no store.
"""

from __future__ import annotations

DISTINCT_COLOURS = 12
"""Categorical colours a chart image tells apart (:data:`vendiscope.core.view_data.render.PALETTE`).
An image never repeats a colour: beyond this many categories, the largest keep a colour and
the rest are drawn together in grey as "other", and the legend says so."""


def default_map_colour(*, has_sources: bool, clusters: int) -> str:
    """What colours a map by default (a ``color_by`` of the map view).

    - ``"source"`` when the records have a source: the user's own groups, named in the
      legend (the largest :data:`DISTINCT_COLOURS` in colour, the rest as other);
    - else ``"cluster"`` when a clustering has at most :data:`DISTINCT_COLOURS` clusters;
    - else ``"sparse"`` (the under-represented clusters against the rest) when it has more:
      40 numbered clusters in 12 colours tell less than sparse against the rest;
    - else ``"none"``.
    """
    if has_sources:
        return "source"
    if clusters > DISTINCT_COLOURS:
        return "sparse"
    if clusters > 0:
        return "cluster"
    return "none"


__all__ = ["DISTINCT_COLOURS", "default_map_colour"]
