"""What a scoring job is asked to do, declared once (the CLI, the Python API, the app).

A light module (nothing heavy imported), so that a command's options can show them. The
metric's own parameters (``q``, ``bootstrap``, ``per_record``...) are the metric plugin's,
declared in its signature.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from vendiscope.core.plugin_host.options import OperationOptions
from vendiscope.core.plugin_host.params import Label, Range, Unit


@dataclass(frozen=True)
class ScoreOptions(OperationOptions):
    """The settings of one scoring run."""

    OPERATION = "score"

    metric: Annotated[
        str, "gvendi (Vendi of the gradients), vendi (of the embeddings), or a metric plugin."
    ] = "gvendi"
    random_draws: Annotated[
        int,
        Range(1),
        Unit("draws"),
        Label("Random draws"),
        "Random subsets of a subset's size drawn for its random baseline (with vs_random).",
    ] = 20
    random_seed: Annotated[int, Range(0), Label("Random seed"), "Seeds the random draws."] = 0


DEFAULT_DRAWS = ScoreOptions.random_draws
"""Random subsets drawn for a subset's random baseline unless ``random_draws`` says otherwise."""
