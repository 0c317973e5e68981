"""Length-bucketed batches, right padding, and the per-example mean loss.

Batches are right-padded: with a causal model a real token never attends to a later (pad)
position, its position ids are unchanged, and the loss ignores pad labels — so a row's
gradient does not depend on what it is batched with. So no attention mask is passed to the
model: without one, attention runs its causal kernel (a mask made each padded batch 1.5 times
slower on a CPU, measured at ~200 tokens). The mask still marks the real positions for the
gradient code.

The loss of one example is the **mean** cross-entropy over its own labelled tokens. A batch
backpropagates the **sum** of these per-example means: examples do not interact in the
forward pass, so the gradient of the sum with respect to anything computed from example
``b`` is exactly the gradient of example ``b``'s own loss. (The usual batch loss, a mean over
all labelled tokens of the batch, would scale each example by its share of the batch's
tokens, so a row would depend on its batch-mates.)

Only the hidden states at labelled positions go through the output head: a forward
pre-hook on the head swaps its input for those positions, gathered per example and
zero-padded. On a model whose head does not accept that, the full logits are used; the
gradient is the same either way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vendiscope.core.gradients.render import IGNORE, Encoded

if TYPE_CHECKING:
    import numpy as np
    import torch


@dataclass
class Batch:
    """A right-padded batch; ``index`` holds the examples' positions in the caller's list."""

    index: list[int]
    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    labels: torch.Tensor

    @property
    def size(self) -> int:
        return len(self.index)


WIDTH_STEP = 32
"""Gradient batches are padded to a multiple of this many tokens. Each new batch shape leaves
some memory behind in the CPU's kernels (measured 11 MB per shape under bf16 autocast: 66
shapes over 120 rows took the resident size from 1.1 to 1.8 GB), so the shapes a job can
meet are kept few (16 widths up to 512 tokens) whatever the data; the padding costs about
a tenth more arithmetic on rows of ~150 tokens."""


def padded_width(longest: int, step: int = 1, cap: int | None = None) -> int:
    """``longest`` rounded up to a multiple of ``step``, at most ``cap`` (and never less)."""
    width = -(-longest // step) * step
    return max(longest, min(width, cap)) if cap is not None else width


def length_buckets(
    lengths: Sequence[int],
    batch_size: int,
    max_tokens: int | None = None,
    *,
    step: int = 1,
    cap: int | None = None,
) -> list[list[int]]:
    """Indices grouped into batches of similar length, longest first.

    A batch holds at most ``batch_size`` examples and, when ``max_tokens`` is given, at most
    that many padded tokens (a single longer example still gets a batch of its own). Widths
    are counted as :func:`padded_width` with ``step`` and ``cap`` pads them.
    """
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        width = padded_width(lengths[current[0]] if current else lengths[i], step, cap)
        full = len(current) >= batch_size
        too_long = max_tokens is not None and (len(current) + 1) * width > max_tokens
        if current and (full or too_long):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


def collate(
    examples: Sequence[Encoded],
    index: list[int],
    *,
    pad_id: int,
    device: Any = "cpu",
    width: int | None = None,
) -> Batch:
    """Right-pad ``examples`` to ``width`` tokens (default: the longest's)."""
    import torch

    width = max([width or 0, *(len(e) for e in examples)])
    ids = torch.full((len(examples), width), pad_id, dtype=torch.long)
    labels = torch.full((len(examples), width), IGNORE, dtype=torch.long)
    mask = torch.zeros((len(examples), width), dtype=torch.long)
    for row, example in enumerate(examples):
        n = len(example)
        ids[row, :n] = torch.tensor(example.input_ids, dtype=torch.long)
        labels[row, :n] = torch.tensor(example.labels, dtype=torch.long)
        mask[row, :n] = 1
    return Batch(index, ids.to(device), mask.to(device), labels.to(device))


def pad_token_id(tokenizer: Any) -> int:
    for name in ("pad_token_id", "eos_token_id", "unk_token_id"):
        value = getattr(tokenizer, name, None)
        if isinstance(value, int):
            return value
    return 0


@dataclass
class LossOutput:
    """Per-example mean losses ``(B,)`` and, for the output head's input, its row mask."""

    losses: torch.Tensor
    head_mask: torch.Tensor  # (B, L) when the head saw gathered rows, else (B, T)


def per_example_loss(model: Any, batch: Batch, *, gather: bool = True) -> LossOutput:
    """Forward ``batch``; each example's mean cross-entropy over its labelled tokens."""
    import torch

    labels = batch.labels
    target = labels[:, 1:] != IGNORE  # position t predicts token t + 1
    counts = target.sum(dim=1)
    if bool((counts == 0).any()):
        raise ValueError("an example in the batch has no labelled token")
    head = model.get_output_embeddings() if gather else None
    if head is not None:
        positions, valid = target_positions(labels)
        wanted = torch.where(valid, labels.gather(1, positions + 1), IGNORE)
        with _gather_head_input(head, positions, valid):
            logits = _logits(model, batch)
        if logits.shape[:2] == wanted.shape:
            return LossOutput(_mean_ce(logits, wanted, counts), valid.to(logits.dtype))
    logits = _logits(model, batch)
    wanted = torch.cat([labels[:, 1:], torch.full_like(labels[:, :1], IGNORE)], dim=1)
    return LossOutput(_mean_ce(logits, wanted, counts), batch.attention_mask.to(logits.dtype))


def loss_columns(losses: Sequence[float] | np.ndarray) -> np.ndarray:
    """``(n, 2)`` float32 rows ``[loss, perplexity]`` of per-example mean losses (nats); the
    perplexity is capped at ``exp(80)`` so an absurd loss stays a finite number."""
    import numpy as np

    values = np.asarray(losses, dtype=np.float64).reshape(-1)
    return np.stack([values, np.exp(np.minimum(values, 80.0))], axis=1).astype(np.float32)


def target_positions(labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(positions, valid)``, both ``(B, L)``: the positions whose next token is labelled.

    Row ``b`` lists its ``n_b`` positions first, then zeros; ``valid`` marks the first ``n_b``.
    ``L`` is the largest ``n_b``. These are the rows the output head sees when gathering.
    """
    import torch

    target = labels[:, 1:] != IGNORE
    counts = target.sum(dim=1)
    width = max(int(counts.max()), 1)
    ranks = torch.cumsum(target, dim=1) - 1
    rows, cols = target.nonzero(as_tuple=True)
    positions = torch.zeros((labels.shape[0], width), dtype=torch.long, device=labels.device)
    positions[rows, ranks[rows, cols]] = cols
    valid = torch.arange(width, device=labels.device)[None, :] < counts[:, None]
    return positions, valid


def _logits(model: Any, batch: Batch) -> torch.Tensor:
    out = model(input_ids=batch.input_ids, use_cache=False)  # right padding: see the docstring
    return out.logits


def _mean_ce(logits: torch.Tensor, wanted: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    import torch

    flat = torch.nn.functional.cross_entropy(
        logits.float().reshape(-1, logits.shape[-1]),
        wanted.reshape(-1),
        ignore_index=IGNORE,
        reduction="none",
    )
    return flat.reshape(wanted.shape).sum(dim=1) / counts.to(flat.dtype)


@contextlib.contextmanager
def _gather_head_input(head: Any, positions: torch.Tensor, valid: torch.Tensor) -> Iterator[None]:
    """While active, the head's first call sees only the labelled positions' hidden states."""
    done = False

    def swap(module: Any, args: tuple) -> tuple | None:
        nonlocal done
        if done or not args or args[0].dim() != 3:
            return None
        done = True
        hidden = args[0]
        index = positions[:, :, None].expand(-1, -1, hidden.shape[-1])
        gathered = hidden.gather(1, index) * valid[:, :, None].to(hidden.dtype)
        return (gathered, *args[1:])

    handle = head.register_forward_pre_hook(swap)
    try:
        yield
    finally:
        handle.remove()
