"""What the embedding and gradient jobs are asked to do, declared once.

A light module (nothing heavy imported), so that a command's options can show the default.
The CLI (``vendiscope embed``, ``gradients``), the app's dialogs and the Python API read the
options here; the model's own parameters (``model``, ``device``, ``batch_size``...) are the
embedder's or featurizer's plugin parameters, declared in their signatures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from vendiscope.core.gradients.features import MODES as GRADIENT_MODES
from vendiscope.core.gradients.presets import PRESETS
from vendiscope.core.plugin_host.options import OperationOptions
from vendiscope.core.plugin_host.params import Choices, Label, Range, Unit

FIELDS = ("auto", "prompt", "response", "prompt+response", "text", "all")
"""What text of a record is embedded."""

ChunkRows = Annotated[
    int | None,
    Range(1),
    Unit("records"),
    Label("Records per chunk"),
    "Records per committed chunk (a resume point); none: the job's own size.",
]


@dataclass(frozen=True)
class EmbedOptions(OperationOptions):
    """The settings of one embedding job."""

    OPERATION = "embed"

    field: Annotated[
        str,
        Choices(*FIELDS),
        Label("Text to embed"),
        "auto: prompt and response together when present, else text; prompt; response; "
        "prompt+response; text; all: every text field.",
    ] = "auto"
    embedder: Annotated[str, Label("Embedder"), "Embedder plugin (see `vendiscope plugins`)."] = (
        "sentence-transformers"
    )
    reuse: Annotated[
        bool, Label("Reuse"), "Reuse vectors of identical records embedded before."
    ] = True
    chunk_rows: ChunkRows = None


@dataclass(frozen=True)
class GradientOptions(OperationOptions):
    """The settings of one gradient-features job."""

    OPERATION = "gradients"

    mode: Annotated[
        str,
        Choices(*GRADIENT_MODES),
        Label("Mode"),
        "fast: LoGra-style factored projections; exact: full gradients, projected.",
    ] = "fast"
    preset: Annotated[
        str | None,
        Choices(*PRESETS),
        Label("Setting"),
        "paper (the default: all parameters, as Jung et al. 2025) or light (the last 4 "
        "blocks: about half the time and memory, needs more records to tell groups apart); "
        "explicit featurizer parameters win over it.",
    ] = None
    chunk_rows: ChunkRows = None
