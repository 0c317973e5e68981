"""What neighbour search is asked to do: near-duplicates and coverage, declared once.

A light module (nothing heavy imported), so that a command's options can show the default.
The CLI (``vendiscope near-dups``, ``coverage``, ``report --target``), the app's dialogs and
forms, the report and the Python API read the options here.

A target record is *covered* when its nearest training record has a cosine similarity of at
least :attr:`CoverageOptions.min_similarity` (``--min-similarity``; once called ``--radius``,
though it is a similarity, not a distance).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.neighbors.algorithms.index import KINDS as INDEX_CHOICES
from vendiscope.core.plugin_host.options import OperationOptions
from vendiscope.core.plugin_host.params import Choices, Label, Range, Unit

DEVICE_CHOICES = ("auto", "cpu", "gpu")

IndexOption = Annotated[
    str,
    Choices(*INDEX_CHOICES),
    Label("Index"),
    "auto: exact below 20,000 records or for few queries, else a calibrated IVF index; "
    "flat: exact; ivf: inverted lists; hnsw: a graph index.",
]
DeviceOption = Annotated[
    str, Choices(*DEVICE_CHOICES), Label("Device"), "auto: the GPU when FAISS sees one; cpu; gpu."
]


@dataclass(frozen=True)
class NearDuplicateOptions(OperationOptions):
    """The settings of one near-duplicate search."""

    OPERATION = "near-duplicates"

    threshold: Annotated[
        float,
        Range(gt=0, le=1),
        Unit("cosine similarity"),
        Label("Threshold"),
        "Two records at or above this similarity are near-duplicates. 0.98-1.0: copies "
        "differing in case or a word; 0.95: close rewordings; 0.9: also one template filled "
        "in with a few different words; 0.85 and below: may join different requests on one "
        "template. Calibrated on real templated text with the bundled sentence encoder "
        "(docs/benchmarks.md).",
    ] = 0.9
    k: Annotated[
        int,
        Range(1, 1000),
        Unit("records"),
        Label("Neighbours examined"),
        "Nearest neighbours examined per record.",
    ] = 20
    index: IndexOption = "auto"
    device: DeviceOption = "auto"


@dataclass(frozen=True)
class CoverageOptions(OperationOptions):
    """The settings of one coverage measurement (of a target dataset by a training one)."""

    OPERATION = "coverage"

    min_similarity: Annotated[
        float,
        Range(-1, 1),
        Unit("cosine similarity"),
        Label("Minimum similarity"),
        "A target record is covered when its nearest training record is at least this similar.",
    ] = 0.8
    index: IndexOption = "auto"
    device: DeviceOption = "auto"


def check_min_similarity(value: float) -> float:
    """``value`` as a float, or a :class:`VendiscopeError` when it is not a cosine in [-1, 1]."""
    try:
        number = float(value) if not isinstance(value, bool | str) else None
    except (TypeError, ValueError):
        number = None
    if number is None or not -1.0 <= number <= 1.0:
        raise VendiscopeError(
            f"the minimum similarity (--min-similarity) must be a cosine similarity in [-1, 1]; "
            f"got {value!r}"
        )
    return number


DEFAULT_MIN_SIMILARITY = CoverageOptions.min_similarity
"""The coverage threshold, as the plugin API has published it since 1.3 (``vendiscope.api``)."""
