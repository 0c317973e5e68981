"""What a map is asked to do: its options, defaults, ranges and help, declared once.

A light module (nothing heavy imported), so that a command's options can show the default.
The CLI (``vendiscope map``), the app's map dialog and the Python API read them here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from vendiscope.core.plugin_host.options import OperationOptions
from vendiscope.core.plugin_host.params import Choices, Label, Range, Unit

METHODS = ("umap", "pca")
"""UMAP (neighbourhoods kept, on FAISS neighbours) or PCA (instant, linear)."""


@dataclass(frozen=True)
class MapOptions(OperationOptions):
    """The settings of one map (checked when built: a bad one raises ``ParamError``)."""

    OPERATION = "map"

    method: Annotated[
        str,
        Choices(*METHODS),
        Label("Method"),
        "umap: keeps neighbourhoods (on FAISS neighbours); pca: instant, linear, flattens "
        "clusters together.",
    ] = "umap"
    n_neighbors: Annotated[
        int,
        Range(2, 200),
        Unit("records"),
        Label("Neighbours"),
        "UMAP: how many neighbours shape each point (few: local detail; many: global shape).",
    ] = 15
    min_dist: Annotated[
        float,
        Range(0, 0.99),
        Label("Minimum distance"),
        "UMAP: how tightly points may pack (0: tight clumps).",
    ] = 0.1
    fit_sample: Annotated[
        int,
        Range(100),
        Unit("records"),
        Label("Fit on a sample above"),
        "Above this many records, UMAP is fitted on a sample and the rest are placed by "
        "their neighbours.",
    ] = 50_000
    seed: Annotated[int, Range(0), "Seeds the layout and the fit sample."] = 0
