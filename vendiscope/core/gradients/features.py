"""Records -> ``(n, d)`` float32 unit rows of projected per-example gradients.

:class:`GradientEngine` holds a loaded proxy model and the seeded projections, encodes the
records (:mod:`.render`), sorts them by length into batches (:mod:`.batches`), computes
each batch in mode "fast" (:mod:`.logra`) or "exact" (:mod:`.exact`), and returns the rows
in the caller's order, each L2-normalised. Memory is bounded by one batch, whose padded
tokens are planned from the model's shape and a memory budget (:mod:`.memory`); progress is
reported after every batch, and cancellation is checked between batches and inside each one
at every transformer block, in the forward and the backward pass (a batch of 16 examples
takes half a minute on a small CPU: a cancel takes effect within a second).

Precision "auto": the forward and backward passes run under bf16 autocast on CUDA GPUs that
support bf16 and, in mode "fast", on CPUs with native bf16 instructions (AVX512-BF16 or AMX;
faster than float32 there, with rows within cosine 0.998 of float32's: docs/benchmarks.md),
in float32 elsewhere (fp16 gradients of a mean loss underflow; bf16 emulated on an older CPU
is slower than float32). "bfloat16" asks for bf16 autocast on any device; "float32" never
autocasts. Projections are always computed in float32.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import InputError, PluginError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress, representative_order
from vendiscope.core.gradients.batches import (
    WIDTH_STEP,
    collate,
    length_buckets,
    pad_token_id,
    padded_width,
)
from vendiscope.core.gradients.exact import project_exact
from vendiscope.core.gradients.logra import LoGra
from vendiscope.core.gradients.memory import plan_memory, release_free_memory
from vendiscope.core.gradients.proxy import (
    parameter_scope,
    parse_parameter_set,
    selected_parameters,
    transformer_blocks,
)
from vendiscope.core.gradients.render import Encoded, encode_examples, has_chat_template
from vendiscope.core.gradients.sketch import Projector

if TYPE_CHECKING:
    import numpy as np
    import torch

MODES = ("fast", "exact")
PRECISIONS = ("auto", "float32", "bfloat16")
# most examples per batch, by mode and device kind (the memory plan may allow fewer)
DEFAULT_BATCH = {
    ("fast", "cpu"): 16,
    ("fast", "cuda"): 64,
    ("exact", "cpu"): 8,
    ("exact", "cuda"): 8,
}


def resolve_device(device: str | torch.device) -> torch.device:
    """``auto`` -> CUDA when available, else the CPU."""
    import torch

    if str(device) == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def effective_precision(
    precision: str, device: str | torch.device, *, cpu_bf16: bool = False
) -> str:
    """What ``precision`` means on ``device``: ``"float32"`` or ``"bfloat16"`` (autocast).

    ``cpu_bf16``: whether "auto" may choose bf16 on a CPU with native bf16 (fast-mode
    gradients do; exact mode, the reference, and training keep float32 there).
    """
    import torch

    if precision == "bfloat16":
        return "bfloat16"
    if precision != "auto":
        return "float32"
    device = resolve_device(device)
    if device.type == "cuda":
        return "bfloat16" if torch.cuda.is_bf16_supported() else "float32"
    native = cpu_bf16 and device.type == "cpu" and cpu_has_native_bf16()
    return "bfloat16" if native else "float32"


def gradient_precision(precision: str, device: str | torch.device, mode: str) -> str:
    """:func:`effective_precision` for gradients: only mode "fast" may use a CPU's bf16."""
    return effective_precision(precision, device, cpu_bf16=mode == "fast")


def model_id_setting(model_id: str, key: str) -> str | None:
    """The value of ``key=value`` in a gradient featurizer's ``model_id``, if it names one."""
    for word in model_id.split():
        name, sep, value = word.partition("=")
        if sep and name == key:
            return value
    return None


@functools.cache
def cpu_has_native_bf16() -> bool:
    """Whether this CPU computes bf16 natively (Linux ``avx512_bf16`` or ``amx_bf16`` flag)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            return native_bf16_flags(info.read())
    except OSError:
        return False


def native_bf16_flags(cpuinfo: str) -> bool:
    """Whether the ``flags`` lines of a ``/proc/cpuinfo`` text name a native bf16 unit."""
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            flags = set(line.partition(":")[2].split())
            return bool(flags & {"avx512_bf16", "amx_bf16"})
    return False


class GradientEngine:
    """Gradient features of records for one loaded model and one set of settings."""

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        mode: str = "fast",
        parameters: str = "all",
        dim: int = 1024,
        seed: int = 0,
        projection: str = "sparse",
        batch_size: int | None = None,
        max_length: int = 512,
        exact_method: str = "loop",
        logra_rank: int | None = None,
        precision: str = "auto",
        end_of_turn: bool = True,
        system_prompt: str | None = None,
        max_memory: int | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode '{mode}' (choose one of: {', '.join(MODES)})")
        if precision not in PRECISIONS:
            raise ValueError(
                f"unknown precision '{precision}' (choose one of: {', '.join(PRECISIONS)})"
            )
        self.precision = precision
        self.end_of_turn = end_of_turn
        self.system_prompt = system_prompt
        self.model = model
        self.tokenizer = tokenizer
        self.mode = mode
        self.parameters = parameters
        self.max_length = max_length
        self.exact_method = exact_method
        self.device = next(model.parameters()).device
        kind = "cuda" if self.device.type == "cuda" else "cpu"
        self.batch_size = batch_size or DEFAULT_BATCH[(mode, kind)]
        self.memory = plan_memory(
            model,
            blocks_back=parse_parameter_set(parameters),
            mode=mode,
            max_memory=max_memory,
            device=self.device,
            autocast=self.autocast,
        )
        self.max_tokens = self.memory.batch_tokens
        self.projector = Projector(dim, seed=seed, kind=projection, device=self.device)
        self.chat_template = has_chat_template(tokenizer)
        if mode == "fast":
            self.logra: LoGra | None = LoGra(model, parameters, seed=seed, rank=logra_rank)
            self.n_parameters = self.logra.n_parameters
            self._chosen: dict[str, Any] = {}
        else:
            self.logra = None
            self._chosen = selected_parameters(model, parameters)
            self.n_parameters = sum(p.numel() for p in self._chosen.values())

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "mode": self.mode,
            "parameters": self.parameters,
            "n_parameters": self.n_parameters,
            "rendering": "chat-template" if self.chat_template else "plain",
            "dim": self.projector.dim,
            "seed": self.projector.seed,
            "max_length": self.max_length,
            "precision": f"{self.autocast} autocast" if self.autocast else "float32",
            "loss": _loss_description(self.end_of_turn),
            "end_of_turn": self.end_of_turn,
            "system_prompt": "the template's default"
            if self.system_prompt is None
            else self.system_prompt,
            "batch_tokens": self.max_tokens,
            "memory": self.memory.describe(self.longest_batch),
            "expected_peak_bytes": self.memory.peak(self.longest_batch),
        }
        out["projection"] = self.projector.kind
        if self.logra is not None:
            out["projection_detail"] = f"{self.logra.describe()}, then {self.projector.describe()}"
            out["logra_rank"] = self.logra.rank
            uncovered = sorted(self.logra.uncovered)
            out["covers"] = (
                "every parameter" if not uncovered else f"all but {', '.join(uncovered[:8])}"
            )
            if self.parameters != "all":
                out["covers"] = f"the linear layers of '{self.parameters}'"
        else:
            out["projection_detail"] = self.projector.describe()
            out["covers"] = "every parameter of the set"
        return out

    @property
    def longest_batch(self) -> int:
        """The most padded tokens a batch can hold: the budget's (or one longest row's)."""
        return max(min(self.max_tokens, self.batch_size * self.max_length), self.max_length)

    def report(self, records: Sequence[dict[str, str | None]]) -> dict[str, list[int]]:
        """Positions of records with nothing to score (``empty``) and of ``truncated`` ones."""
        encoded = self.encode(records)
        return {
            "empty": [i for i, e in enumerate(encoded) if e.empty],
            "truncated": [i for i, e in enumerate(encoded) if e.truncated],
        }

    def encode(self, records: Sequence[dict[str, str | None]]) -> list[Encoded]:
        return encode_examples(
            self.tokenizer,
            records,
            max_length=self.max_length,
            chat_template=True,
            end_of_turn=self.end_of_turn,
            system_prompt=self.system_prompt,
        )

    def features(
        self,
        records: Sequence[dict[str, str | None]],
        *,
        progress: Progress | None = None,
        cancel: CancelToken | None = None,
    ) -> np.ndarray:
        """``(len(records), d)`` float32 rows of unit length, in the order of ``records``."""
        return self._features(records, progress, cancel, None)

    def features_and_losses(
        self,
        records: Sequence[dict[str, str | None]],
        *,
        progress: Progress | None = None,
        cancel: CancelToken | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`features` and each record's loss, the mean cross-entropy the gradients are
        of (fast mode only: the loss is the forward pass the gradients are taken through)."""
        import numpy as np

        if self.logra is None:
            raise ValueError("each record's loss comes with the features in fast mode only")
        losses = np.empty(len(records), dtype=np.float32)
        return self._features(records, progress, cancel, losses), losses

    def _features(
        self,
        records: Sequence[dict[str, str | None]],
        progress: Progress | None,
        cancel: CancelToken | None,
        losses: np.ndarray | None,
    ) -> np.ndarray:
        import numpy as np

        progress = progress or NullProgress()
        cancel = cancel or CancelToken()
        encoded = self.encode(records)
        empty = [i for i, e in enumerate(encoded) if e.empty]
        if empty:
            shown = ", ".join(str(i) for i in empty[:5]) + (" ..." if len(empty) > 5 else "")
            raise InputError(
                f"{len(empty)} record(s) have no token to compute a loss on (positions {shown}): "
                "empty prompt, response and text, or max_length too small for the template"
            )
        out = np.empty((len(records), self.projector.dim), dtype=np.float32)
        total = len(records)
        done = 0
        progress.update(0, total)
        pad = pad_token_id(self.tokenizer)
        lengths = [len(e) for e in encoded]
        buckets = length_buckets(
            lengths, self.batch_size, self.max_tokens, step=WIDTH_STEP, cap=self.max_length
        )
        backward_checks = self.logra is not None or self.exact_method == "loop"
        # a spread of lengths first, not the longest: the first batches' rate (the ETA) holds
        for index in (buckets[i] for i in representative_order(len(buckets))):
            cancel.raise_if_cancelled()
            width = padded_width(max(lengths[i] for i in index), WIDTH_STEP, self.max_length)
            examples = [encoded[i] for i in index]
            batch = collate(examples, index, pad_id=pad, device=self.device, width=width)
            with cancel_checks(self.model, cancel, backward=backward_checks):
                rows = self._batch(batch)
            out[index] = _normalise(rows).cpu().numpy()
            if losses is not None and self.logra is not None and self.logra.last_losses is not None:
                losses[index] = self.logra.last_losses.float().cpu().numpy()
            del rows, batch
            if self.device.type == "cpu":
                release_free_memory()
            done += len(index)
            progress.update(done, total)
        return out

    def _batch(self, batch: Any) -> torch.Tensor:
        with self._autocast():
            if self.logra is not None:
                with parameter_scope(self.model, None):
                    return self.logra.project(batch, self.projector)
            with parameter_scope(self.model, set(self._chosen)):
                return project_exact(
                    self.model, batch, self._chosen, self.projector, method=self.exact_method
                )

    @property
    def autocast(self) -> str | None:
        """The autocast dtype the forward and backward passes run under (None: float32)."""
        found = gradient_precision(self.precision, self.device, self.mode)
        return None if found == "float32" else found

    def _autocast(self) -> Any:
        import torch

        if self.autocast is None:
            return contextlib.nullcontext()
        return torch.autocast(self.device.type, dtype=torch.bfloat16)


@contextlib.contextmanager
def cancel_checks(model: Any, cancel: CancelToken, *, backward: bool = True) -> Iterator[None]:
    """While active, ``cancel`` is checked as each transformer block runs forward and backward.

    A cancelled token raises :class:`~vendiscope.core.base.jobs.Cancelled` from a hook; it
    propagates out of the forward pass or ``backward()`` as itself, the hooks of the gradient
    modes are removed by their own ``finally`` blocks, and the model is left as it was.
    ``backward=False`` checks in the forward pass only (for ``torch.func`` transforms, which
    do not take tensor hooks).
    """
    try:
        blocks = list(transformer_blocks(model))
    except PluginError:
        blocks = []

    def check(_grad: Any) -> None:
        cancel.raise_if_cancelled()

    def forward(module: Any, args: tuple, output: Any) -> None:
        cancel.raise_if_cancelled()
        hidden = output[0] if isinstance(output, tuple) and output else output
        if backward and getattr(hidden, "grad_fn", None) is not None:
            hidden.register_hook(check)

    handles = [block.register_forward_hook(forward) for block in blocks]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


def _loss_description(end_of_turn: bool) -> str:
    labelled = "the response and the end-of-turn tokens" if end_of_turn else "the response"
    return f"mean cross-entropy over {labelled} (the whole text when there is no response)"


def _normalise(rows: torch.Tensor) -> torch.Tensor:
    import torch

    rows = rows.to(torch.float64)
    norms = rows.norm(dim=1, keepdim=True)
    if bool((norms == 0).any()) or not bool(torch.isfinite(norms).all()):
        raise InputError("a gradient is zero or not finite; the proxy model cannot score it")
    return (rows / norms).to(torch.float32)
