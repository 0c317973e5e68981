"""Mode "exact": true per-example gradients of a parameter set, projected, unit-normalised.

Two ways to get them, with the same result:

- ``loop``: one forward and one backward per example, on the example alone (no padding),
  with ``torch.autograd.grad`` on the chosen parameters. Memory: one gradient at a time.
- ``vmap``: ``torch.func.vmap(grad(loss))`` over the rows of a right-padded batch (no
  attention mask is needed: with right padding a causal model never lets a real token see a
  pad). Memory: one gradient per row. Faster on GPUs; on CPUs the loop is as fast.

Each parameter tensor is one block of the streaming projection (:mod:`.sketch`), keyed by
its name, so a row does not depend on the method, the batch or the other rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from vendiscope.core.gradients.batches import Batch, per_example_loss
from vendiscope.core.gradients.render import IGNORE

if TYPE_CHECKING:
    import torch

    from vendiscope.core.gradients.sketch import Projector

METHODS = ("loop", "vmap")


def _rows(batch: Batch) -> Iterator[Batch]:
    """Each example of ``batch`` alone, without its padding."""
    for row in range(batch.size):
        n = int(batch.attention_mask[row].sum())
        yield Batch(
            [batch.index[row]],
            batch.input_ids[row : row + 1, :n],
            batch.attention_mask[row : row + 1, :n],
            batch.labels[row : row + 1, :n],
        )


def iter_gradients_loop(
    model: Any, batch: Batch, parameters: dict[str, torch.Tensor]
) -> Iterator[dict[str, torch.Tensor]]:
    """Per-example gradients, one example at a time (``name -> tensor`` of the parameter's shape).

    The chosen parameters must have ``requires_grad`` set (:func:`.proxy.parameter_scope`).
    """
    import torch

    names = list(parameters)
    tensors = [parameters[n] for n in names]
    for single in _rows(batch):
        loss = per_example_loss(model, single).losses.sum()
        grads = torch.autograd.grad(loss, tensors, allow_unused=True)
        yield {
            n: (g if g is not None else torch.zeros_like(t))
            for n, g, t in zip(names, grads, tensors, strict=True)
        }


def gradients_vmap(
    model: Any, batch: Batch, parameters: dict[str, torch.Tensor]
) -> dict[str, torch.Tensor]:
    """Per-example gradients of the whole batch with ``torch.func``: ``name -> (B, *shape)``."""
    import torch
    from torch.func import functional_call, grad, vmap

    chosen = {n: p.detach() for n, p in parameters.items()}
    frozen = {n: p.detach() for n, p in model.named_parameters() if n not in chosen}
    frozen.update(dict(model.named_buffers()))

    def loss(params: dict[str, torch.Tensor], ids: torch.Tensor, labels: torch.Tensor) -> Any:
        out = functional_call(model, {**frozen, **params}, (ids[None],), {"use_cache": False})
        logits = out.logits[0, :-1].float()
        wanted = labels[1:]
        total = torch.nn.functional.cross_entropy(
            logits, wanted, ignore_index=IGNORE, reduction="sum"
        )
        return total / (wanted != IGNORE).sum()

    return vmap(grad(loss), in_dims=(None, 0, 0))(chosen, batch.input_ids, batch.labels)


def per_example_gradients(
    model: Any, batch: Batch, parameters: dict[str, torch.Tensor], *, method: str = "loop"
) -> dict[str, torch.Tensor]:
    """``name -> (B, *shape)`` per-example gradients of ``batch`` (before any projection)."""
    import torch

    if method == "vmap":
        return gradients_vmap(model, batch, parameters)
    rows = list(iter_gradients_loop(model, batch, parameters))
    return {n: torch.stack([r[n] for r in rows]) for n in parameters}


def project_exact(
    model: Any,
    batch: Batch,
    parameters: dict[str, torch.Tensor],
    projector: Projector,
    *,
    method: str = "loop",
) -> torch.Tensor:
    """``(B, d)`` projected per-example gradients (not yet normalised)."""
    import torch

    if method not in METHODS:
        raise ValueError(f"unknown exact method '{method}' (choose one of: {', '.join(METHODS)})")
    if method == "vmap":
        grads = gradients_vmap(model, batch, parameters)
        return projector.project((n, g) for n, g in grads.items())
    rows = [
        projector.project((n, g[None]) for n, g in grads.items())
        for grads in iter_gradients_loop(model, batch, parameters)
    ]
    return torch.cat(rows)
