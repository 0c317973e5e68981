"""The ``gradients`` featurizer: projected per-example gradients of a proxy LM (G-Vendi).

The G-Vendi score (Jung et al. 2025) is the Vendi score of these rows. Defaults follow the
paper's released code where it can be run offline: an instruction-tuned proxy LM (here the
bundled SmolLM2-135M-Instruct), the loss on the response tokens of the chat-rendered
example, gradients of all parameters, a seeded random projection to 1024 dimensions, each
row L2-normalised. Mode "fast" (the default) computes the projected gradients LoGra-style in
batches; mode "exact" computes true per-example gradients and projects them. See
``docs/gvendi.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

from vendiscope.api import (
    DEFAULT_GRADIENT_PRESET,
    GRADIENT_MODES,
    GRADIENT_PRECISIONS,
    GRADIENT_PRESETS,
    PAPER_DIM,
    SKETCH_KINDS,
    ByProduct,
    Choices,
    Featurizer,
    GradientEngine,
    Range,
    auto_dim,
    gradient_precision,
    load_proxy,
    loss_columns,
    model_label,
    parse_memory,
    parse_parameter_set,
    resolve_device,
)

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.api import CancelToken, Progress

# bump when the computation changes, so stored vectors are not mixed
# (v2: end-of-turn tokens labelled, system prompt setting)
VERSION = "v2"


class GradientFeaturizer(Featurizer):
    """Projected, unit-normalised per-example gradients of a proxy language model.

    Parameters
    ----------
    model
        ``None`` for the bundled SmolLM2-135M-Instruct, else a ``.gguf`` file, a local Hugging
        Face causal-LM folder or a hub id (downloaded only when asked for by id).
    mode
        ``"fast"`` (LoGra-style, batched) or ``"exact"`` (true per-example gradients).
    parameters
        ``"all"`` (the paper's), ``"linear"`` or ``"last-N-blocks-linear"`` (e.g.
        ``"last-4-blocks-linear"``, the ``light`` preset: about half the time and memory, less
        resolution; ``docs/gvendi.md``).
    dim
        Output dimension of the random projection: 1,024 (the paper's setting) by default,
        the same for every dataset, so gradient sets of a project compare and reuse each
        other's rows. ``None``: chosen from the dataset's size when a gradients job computes
        it (up to 16,384 for small sets, see ``core/gradients/dims.py``).
    seed
        Seed of the random projections.
    device
        ``"auto"`` (CUDA when available), ``"cpu"``, ``"cuda"``, ``"cuda:1"``...
    batch_size
        Examples per batch; ``None`` picks one for the mode and device.
    max_length
        Tokens per example; longer ones lose the start of their prompt first.
    projection
        ``"sparse"`` (count-sketch, the same on every device) or ``"rademacher"`` (dense
        blocks generated on the fly; for GPUs).
    precision
        ``"auto"`` (bf16 autocast on CUDA GPUs with bf16 and, in fast mode, on CPUs with
        native bf16 such as AVX512-BF16 or AMX; float32 elsewhere), ``"float32"``, or
        ``"bfloat16"`` (autocast on any device).
    end_of_turn
        Label the chat template's tokens after the response (``<|im_end|>``), as supervised
        fine-tuning and the paper's code do (default), or only the response.
    system_prompt
        ``None``: the system prompt the chat template inserts by default (SmolLM2's and
        Qwen2.5's do, as the paper's code renders it); a text: that system message
        instead (``""`` for an empty one).
    max_memory
        Peak memory the batches are planned for (``"2.5GB"``, ``"800MB"`` or bytes);
        ``None``: 2.5 GB on a CPU (less when the machine has less free), 80% of the free
        memory on a GPU. It changes how rows are batched, never the rows.
    """

    def __init__(
        self,
        model: str | None = None,
        mode: Annotated[str, Choices(*GRADIENT_MODES)] = "fast",
        parameters: str = GRADIENT_PRESETS[DEFAULT_GRADIENT_PRESET]["parameters"],
        dim: Annotated[int | None, Range(1)] = PAPER_DIM,
        seed: Annotated[int, Range(0)] = 0,
        device: str = "auto",
        batch_size: Annotated[int | None, Range(1)] = None,
        max_length: Annotated[int, Range(2)] = 512,
        projection: Annotated[str, Choices(*SKETCH_KINDS)] = "sparse",
        precision: Annotated[str, Choices(*GRADIENT_PRECISIONS)] = "auto",
        end_of_turn: bool = True,
        system_prompt: str | None = None,
        max_memory: str | None = None,
    ) -> None:
        if mode not in GRADIENT_MODES:
            raise ValueError(f"unknown mode '{mode}' (choose one of: {', '.join(GRADIENT_MODES)})")
        parse_parameter_set(parameters)
        if projection not in SKETCH_KINDS:
            raise ValueError(
                f"unknown projection '{projection}' (choose one of: {', '.join(SKETCH_KINDS)})"
            )
        if precision not in GRADIENT_PRECISIONS:
            raise ValueError(
                f"unknown precision '{precision}' (choose one of: {', '.join(GRADIENT_PRECISIONS)})"
            )
        if (
            (dim is not None and int(dim) < 1)
            or int(max_length) < 2
            or (batch_size is not None and batch_size < 1)
        ):
            raise ValueError("dim and batch_size must be positive, max_length at least 2")
        self.model = model
        self.mode = mode
        self.parameters = parameters
        self._auto_dim = dim is None
        self._dim = PAPER_DIM if dim is None else int(dim)
        self.seed = int(seed)
        self.device = device
        self.batch_size = batch_size
        self.max_length = int(max_length)
        self.projection = projection
        self.precision = precision
        self.end_of_turn = bool(end_of_turn)
        self.system_prompt = system_prompt
        self.max_memory = None if max_memory is None else parse_memory(max_memory)
        self._engine: GradientEngine | None = None
        self._info: dict[str, Any] = {}

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def model_id(self) -> str:
        return (
            f"gradients/{VERSION} model={model_label(self.model)} mode={self.mode} "
            f"parameters={self.parameters} dim={self._dim} seed={self.seed} "
            f"max_length={self.max_length} projection={self.projection} "
            f"precision={self.effective_precision} "
            f"end_of_turn={self.end_of_turn}"
            + ("" if self.system_prompt is None else f" system_prompt={self.system_prompt!r}")
        )

    @property
    def effective_precision(self) -> str:
        """``float32`` or ``bfloat16``: what ``precision`` means for this mode and device."""
        return gradient_precision(self.precision, self.device, self.mode)

    def params_for_rows(self, n_rows: int) -> dict[str, Any]:
        """``{"dim": ...}`` for ``n_rows`` records when ``dim`` was left automatic."""
        return {"dim": auto_dim(n_rows)} if self._auto_dim else {}

    def engine(self) -> GradientEngine:
        """The loaded model and projections (loaded on first use, then kept)."""
        if self._engine is None:
            device = resolve_device(self.device)
            lm, tokenizer, self._info = load_proxy(self.model, device=device)
            self._engine = GradientEngine(
                lm,
                tokenizer,
                mode=self.mode,
                parameters=self.parameters,
                dim=self._dim,
                seed=self.seed,
                projection=self.projection,
                batch_size=self.batch_size,
                max_length=self.max_length,
                precision=self.precision,
                end_of_turn=self.end_of_turn,
                system_prompt=self.system_prompt,
                max_memory=self.max_memory,
            )
        return self._engine

    def featurize(
        self,
        records: Sequence[dict[str, str | None]],
        *,
        progress: Progress,
        cancel: CancelToken,
    ) -> np.ndarray:
        return self.engine().features(records, progress=progress, cancel=cancel)

    @property
    def by_product(self) -> ByProduct | None:
        """Each record's loss, as the ``proxy-loss`` signal gives it, when the gradients are
        taken through that very loss: fast mode, float32, the signal's rendering (end-of-turn
        tokens labelled, the template's system prompt)."""
        if (
            self.mode != "fast"
            or self.effective_precision != "float32"
            or not self.end_of_turn
            or self.system_prompt is not None
        ):
            return None
        return ByProduct("proxy-loss", {"model": self.model or "", "max_length": self.max_length})

    def featurize_with_by_product(
        self,
        records: Sequence[dict[str, str | None]],
        *,
        progress: Progress,
        cancel: CancelToken,
    ) -> tuple[np.ndarray, np.ndarray]:
        features, losses = self.engine().features_and_losses(
            records, progress=progress, cancel=cancel
        )
        return features, loss_columns(losses)

    def report(self, records: Sequence[dict[str, str | None]]) -> dict[str, list[int]]:
        """Positions of records with nothing to score (``empty``) and of ``truncated`` ones."""
        return self.engine().report(records)

    def describe(self) -> dict[str, Any]:
        """Model, mode, parameter set and its size, rendering, dim, seed, projection.

        Loads the model if it is not loaded yet (the rendering and sizes depend on it).
        """
        engine = self.engine()
        return {
            "model": self._info.get("model", model_label(self.model)),
            "model_type": self._info.get("model_type"),
            "device": str(engine.device),
            **engine.describe(),
        }
