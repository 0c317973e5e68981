"""Test-only plugins for the engine tests: they run inside Ray actors, so they live in a module
the actors can import (the driver's ``sys.path`` reaches them), not in a test file.

``crash_on``: a process that featurizes (or embeds) a text containing it exits at once, as a
worker killed by the OOM killer or a lost node would; with ``crash_marker`` only the first
time (the marker file records it), without it every time (a "poison" record).
``fail_on``: raise a ``ValueError`` instead (a plugin error), after ``fail_delay`` seconds.
``delay``: seconds each chunk takes (to stop a driver half-way).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vendiscope.core.plugin_host.interfaces import Featurizer
from vendiscope.core.plugin_host.manifest import Contribution, PluginManifest
from vendiscope.plugins.embedders.sentence_transformers import SentenceTransformerEmbedder


def _maybe_crash(texts: Sequence[str], crash_on: str | None, crash_marker: str | None) -> None:
    if crash_on is None or not any(crash_on in t for t in texts):
        return
    if crash_marker is not None:
        marker = Path(crash_marker)
        if marker.exists():
            return
        marker.write_text(str(os.getpid()))
    os._exit(17)


class ToyFeaturizer(Featurizer):
    """Hash features (no model): cheap enough to start several Ray actors in a test."""

    def __init__(
        self,
        dim: int = 8,
        crash_on: str | None = None,
        crash_marker: str | None = None,
        fail_on: str | None = None,
        fail_delay: float = 0.0,
        delay: float = 0.0,
    ) -> None:
        self.dim_ = dim
        self.delay = delay
        self.crash_on = crash_on
        self.crash_marker = crash_marker
        self.fail_on = fail_on
        self.fail_delay = fail_delay

    @property
    def dim(self) -> int:
        return self.dim_

    @property
    def model_id(self) -> str:
        return f"toy-{self.dim_}"

    def describe(self) -> dict[str, Any]:
        return {"mode": "toy", "pid": None}

    def featurize(self, records, *, progress, cancel) -> np.ndarray:
        texts = [f"{r.get('prompt') or ''}\n{r.get('response') or ''}" for r in records]
        _maybe_crash(texts, self.crash_on, self.crash_marker)
        if self.fail_on is not None and any(self.fail_on in t for t in texts):
            time.sleep(self.fail_delay)
            raise ValueError(f"toy featurizer refuses '{self.fail_on}'")
        time.sleep(self.delay)
        rows = np.empty((len(texts), self.dim_), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
            rows[i] = np.random.default_rng(seed).standard_normal(self.dim_)
        progress.update(len(texts), len(texts))
        return rows


class CrashOnceEmbedder(SentenceTransformerEmbedder):
    """The bundled MiniLM embedder, whose process dies once on a chosen text."""

    def __init__(
        self,
        *,
        crash_on: str | None = None,
        crash_marker: str | None = None,
        device: str = "cpu",
    ) -> None:
        super().__init__(device=device)
        self.crash_on = crash_on
        self.crash_marker = crash_marker

    def embed(self, texts, *, progress, cancel) -> np.ndarray:
        _maybe_crash(texts, self.crash_on, self.crash_marker)
        return super().embed(texts, progress=progress, cancel=cancel)


manifest = PluginManifest(
    "engine-test-plugins",
    (
        Contribution("featurizer", "toy", f"{__name__}:ToyFeaturizer"),
        Contribution("embedder", "crash-once-minilm", f"{__name__}:CrashOnceEmbedder"),
    ),
)
