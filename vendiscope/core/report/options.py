"""What an audit report is asked to do, declared once (``vendiscope report``, the Python API).

A light module (nothing heavy imported), so that a command's options can show the default.
Coverage of a target uses :class:`~vendiscope.core.neighbors.options.CoverageOptions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from vendiscope.core.plugin_host.options import OperationOptions
from vendiscope.core.plugin_host.params import Choices, Label, Range, Unit
from vendiscope.core.view_data.constants import MAX_MAP_POINTS

FORMATS = ("html", "json")
IMAGE_FORMATS = ("png", "svg")


@dataclass(frozen=True)
class ReportOptions(OperationOptions):
    """The settings of one audit report."""

    OPERATION = "report"

    format: Annotated[
        str | None,
        Choices(*FORMATS),
        Label("Format"),
        "html: one self-contained file, charts embedded; json: the numbers; none: from the "
        "file's suffix.",
    ] = None
    images: Annotated[
        str, Choices(*IMAGE_FORMATS), Label("Chart images"), "How charts are embedded."
    ] = "png"
    max_points: Annotated[
        int, Range(1), Unit("points"), Label("Points on the map"), "Points drawn on the map."
    ] = MAX_MAP_POINTS
    contributions: Annotated[
        bool,
        Label("Source contributions"),
        "Compute each source's contribution to the whole score (reads the vectors).",
    ] = True
    compute: Annotated[
        bool,
        Label("Compute what is missing"),
        "First run the missing cheap steps from existing vectors: scores, near-duplicates, "
        "clusters, the map (UMAP: minutes on large data).",
    ] = False
    force: Annotated[bool, Label("Overwrite"), "Overwrite an existing file."] = False
