"""How many tokens a gradient batch may hold: peak memory planned from the model's shape.

A batch's peak is the process (Python, torch, the project), the weights, and what the
backward pass keeps per token: the activations of every transformer block it goes back
through (about ``ACTIVATION_FLOATS * (hidden + intermediate)`` numbers per token and block)
and, for each labelled token, a few vocabulary-sized rows (the logits, their softmax and its
gradient); under bf16 autocast, bf16 copies of the weights and more vocabulary-sized rows.
The constants were measured on the bundled proxy (peak RSS of one batch of 38 to 1,004
tokens, 5 or all of them labelled, float32 and bf16) and rounded up;
``tests/benchmarks/bench_gradient_memory.py`` checks the plan against the command's peak.
Batches are then filled up to the tokens the budget allows
(:func:`~vendiscope.core.gradients.batches.length_buckets`), so a smaller budget costs more
batches, not a failure: on a CPU the rate per row hardly depends on the batch size. One
example longer than the budget still runs, alone.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

GB = 1_000_000_000
DEFAULT_MAX_MEMORY = int(2.5 * GB)
"""Peak memory a gradient job plans for by default (bytes): a laptop's share."""
PROCESS_BYTES = int(0.8 * GB)
"""Python, torch, an open project and the allocator's slack: ``vendiscope gradients`` between
batches measured 1.55 GB with the bundled proxy's weights and their bf16 copies (0.81 GB)."""
ACTIVATION_FLOATS = 5.0
"""Numbers the backward pass keeps per token and block, per unit of hidden + intermediate
size (measured 4.8 on SmolLM2-135M)."""
LOGIT_COPIES = {"float32": 2.6, "bfloat16": 4.8}
"""Vocabulary-sized float32 rows kept per labelled token (measured 2.4 and 4.6)."""
EXACT_GRADIENT_COPIES = 2
"""Exact mode holds a full gradient per example and its running sum (weights-sized each)."""
FREE_SHARE = 0.8
"""At most this share of the memory the machine has free goes to one job."""


@dataclass(frozen=True)
class MemoryPlan:
    """Bytes of a gradient job: fixed, per token of a batch, and the budget it plans for."""

    fixed: int
    per_token: int
    budget: int

    @property
    def batch_tokens(self) -> int:
        """Padded tokens one batch may hold (at least 1)."""
        return max(1, (self.budget - self.fixed) // max(self.per_token, 1))

    def peak(self, tokens: int) -> int:
        """Expected peak with a batch of ``tokens`` padded tokens."""
        return self.fixed + self.per_token * tokens

    def describe(self, longest_batch: int) -> str:
        """``peak memory about 1.9 GB (budget 2.5 GB)``."""
        return (
            f"peak memory about {self.peak(longest_batch) / GB:.1f} GB "
            f"(budget {self.budget / GB:.1f} GB)"
        )


def plan_memory(
    model: Any,
    *,
    blocks_back: int | None,
    mode: str = "fast",
    max_memory: int | None = None,
    device: Any = "cpu",
    autocast: str | None = None,
) -> MemoryPlan:
    """The plan for ``model`` on ``device``; ``blocks_back`` blocks are backpropagated (all: None).

    ``autocast``: ``"bfloat16"`` when the passes run under bf16 autocast, else None.

    On the CPU the budget is ``max_memory`` (default :data:`DEFAULT_MAX_MEMORY`), at most the
    process's size now plus :data:`FREE_SHARE` of the memory the machine has free. On CUDA the
    weights and the process live apart: the budget is that share of the GPU's free memory (at
    most ``max_memory`` when given), and only the batch counts against it.
    """
    config = getattr(model, "config", None)
    layers = int(getattr(config, "num_hidden_layers", 0) or 0)
    hidden = int(getattr(config, "hidden_size", 0) or 0)
    intermediate = int(getattr(config, "intermediate_size", 0) or 4 * hidden)
    vocab = int(getattr(config, "vocab_size", 0) or 0)
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    depth = layers if blocks_back is None else min(blocks_back, layers)
    copies = LOGIT_COPIES["bfloat16" if autocast else "float32"]
    floats = ACTIVATION_FLOATS * depth * (hidden + intermediate) + copies * vocab
    per_token = int(4 * floats)
    extra = EXACT_GRADIENT_COPIES * weights if mode == "exact" else 0
    if autocast:
        extra += weights // 2  # autocast keeps a bf16 copy of each weight it casts
    kind = getattr(device, "type", str(device).split(":")[0])
    if kind == "cuda":
        free = _cuda_free(device)
        budget = int(FREE_SHARE * free) if max_memory is None else min(max_memory, free)
        return MemoryPlan(fixed=extra, per_token=per_token, budget=budget)
    budget = DEFAULT_MAX_MEMORY if max_memory is None else int(max_memory)
    budget = min(budget, _ram_ceiling())
    return MemoryPlan(fixed=PROCESS_BYTES + weights + extra, per_token=per_token, budget=budget)


def parse_memory(text: str | int | float) -> int:
    """``"2.5GB"``, ``"800MB"``, ``"3G"`` or a number of bytes -> bytes."""
    if isinstance(text, (int, float)):
        return int(text)
    raw = text.strip().upper().removesuffix("B")
    scale = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}.get(raw[-1:], 1)
    number = raw[:-1] if scale != 1 else raw
    try:
        value = float(number) * scale
    except ValueError:
        raise ValueError(
            f"cannot read memory size '{text}' (write e.g. 2.5GB, 800MB or a number of bytes)"
        ) from None
    if value <= 0:
        raise ValueError(f"memory size must be positive, got '{text}'")
    return int(value)


def _ram_ceiling() -> int:
    import psutil

    own = psutil.Process().memory_info().rss
    return int(own + FREE_SHARE * psutil.virtual_memory().available)


def _cuda_free(device: Any) -> int:
    import torch

    free, _total = torch.cuda.mem_get_info(device)
    return int(free)


def release_free_memory() -> None:
    """Hand memory freed by the last batch back to the system (glibc's ``malloc_trim``).

    Batches of changing shapes leave the C heap fragmented; without this the process's
    resident size creeps up batch after batch (measured: 1.9 to 2.4 GB over 80 rows).
    Does nothing where there is no glibc.
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Any:
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None
