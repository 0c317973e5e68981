"""What clustering and the Prismatic filter are asked to do, declared once.

A light module (nothing heavy imported), so that a command's options can show the default.
The CLI (``vendiscope clusters``, ``filter-candidates``), the app's cluster dialog and the
Python API read the options here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from vendiscope.core.plugin_host.options import OperationOptions
from vendiscope.core.plugin_host.params import Label, Range, Unit


@dataclass(frozen=True)
class ClusterOptions(OperationOptions):
    """The settings of one clustering (spherical k-means)."""

    OPERATION = "clusters"

    n_clusters: Annotated[
        int | None,
        Range(1),
        Label("Clusters"),
        "k of k-means; none: one cluster per 10 records, as the reference does.",
    ] = None
    seed: Annotated[int, Range(0), "Seeds k-means."] = 0


@dataclass(frozen=True)
class FilterOptions(OperationOptions):
    """The settings of one Prismatic filter of new candidates against a pool's clusters."""

    OPERATION = "filter-candidates"

    random_trials: Annotated[
        int,
        Range(1),
        Unit("draws"),
        Label("Random draws"),
        "Random draws of as many candidates, the baseline the kept ones are compared with.",
    ] = 5
    seed: Annotated[int, Range(0), "Seeds the random baseline."] = 0
