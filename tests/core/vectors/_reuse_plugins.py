"""Test-only featurizers for the reuse and commit-by-time tests (importable by child processes).

``RecordingGradients``: the real gradient featurizer, writing each record it featurizes (its
prompt) and each model load to a log file, one line each.
``SlowFeaturizer``: hash features that take ``delay`` seconds per record, logging each one.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

import numpy as np

from vendiscope.core.plugin_host.interfaces import Featurizer
from vendiscope.core.plugin_host.manifest import Contribution, PluginManifest
from vendiscope.plugins.featurizers.gradients import GradientFeaturizer


def _log(path: str | None, line: str) -> None:
    if path is not None:
        with Path(path).open("a", encoding="utf-8") as file:
            file.write(line + "\n")


def logged(path: Path) -> list[str]:
    """The lines a plugin logged (none when it logged nothing)."""
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


class RecordingGradients(GradientFeaturizer):
    """:class:`GradientFeaturizer` that logs what it featurizes and when it loads its model."""

    def __init__(self, *, log: str | None = None, **params: Any) -> None:
        super().__init__(**params)
        self.log = log

    def engine(self) -> Any:
        if self._engine is None:
            _log(self.log, "load")
        return super().engine()

    def featurize(self, records, *, progress, cancel) -> np.ndarray:
        for record in records:
            _log(self.log, f"row {record.get('prompt')}")
        return super().featurize(records, progress=progress, cancel=cancel)


class SlowFeaturizer(Featurizer):
    """Deterministic hash features of the prompt, ``delay`` seconds per record."""

    def __init__(self, dim: int = 4, delay: float = 0.0, log: str | None = None) -> None:
        self.dim_ = dim
        self.delay = delay
        self.log = log

    @property
    def dim(self) -> int:
        return self.dim_

    @property
    def model_id(self) -> str:
        return f"slow-hash-{self.dim_}"  # the delay does not change the vectors

    def featurize(self, records, *, progress, cancel) -> np.ndarray:
        rows = np.empty((len(records), self.dim_), dtype=np.float32)
        for i, record in enumerate(records):
            cancel.raise_if_cancelled()
            time.sleep(self.delay)
            rows[i] = expected_row(record.get("prompt") or "", self.dim_)
            _log(self.log, f"row {record.get('prompt')}")
            progress.update(i + 1, len(records))
        return rows


def expected_row(prompt: str, dim: int) -> np.ndarray:
    """The row :class:`SlowFeaturizer` gives a record with this prompt."""
    seed = int.from_bytes(hashlib.blake2b(prompt.encode(), digest_size=8).digest(), "big")
    return np.random.default_rng(seed).standard_normal(dim).astype(np.float32)


manifest = PluginManifest(
    "reuse-test-plugins",
    (
        Contribution("featurizer", "recording-gradients", f"{__name__}:RecordingGradients"),
        Contribution("featurizer", "slow", f"{__name__}:SlowFeaturizer"),
    ),
)
