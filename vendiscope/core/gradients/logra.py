"""Mode "fast": LoGra-style projected per-example gradients (Choe et al. 2024).

For a linear layer ``y = W a (+ b)`` with ``W`` of shape ``(out, in)``, the gradient of one
example's loss is ``G = sum_t g_t a_t^T`` over its positions ``t``, where ``a_t`` is the
layer's input and ``g_t = dloss/dy_t`` its output gradient. With seeded random matrices
``P_in`` (``in x k_in``) and ``P_out`` (``out x k_out``), the Kronecker projection of ``G`` is

    P_out^T G P_in = sum_t (P_out^T g_t) (P_in^T a_t)^T        (k_out x k_in)

so it needs only the projected activations and output gradients: a forward hook projects
``a`` (``(B, T, in) -> (B, T, k_in)``), a hook on the layer's output projects ``g`` during
the backward pass, and one batched matrix product per layer sums over positions. No
per-example ``out x in`` gradient is ever formed, and no weight gradient is computed at all
(the weights stay frozen; the backward pass computes activation gradients only). A bias is
handled by appending a constant 1 to ``a`` (one more row of ``P_in``). Padding positions
(and, at the output head, the zero rows that pad the gathered targets) are masked to zero
on both sides.

Each side of a weight gets its own seeded matrix (:class:`Side`):

- a side of at most ``k`` (``rank``, default 64) entries is kept whole (the identity):
  projecting it could only lose information;
- a side of up to ``wide`` (default 8192) entries: Gaussian ``N(0, 1/k)``, ``k`` columns;
- a wider side gets a count-sketch into ``wide_rank`` (default 2048) buckets: each row
  hashed to one bucket with a random sign.
- the vocabulary side (the output head's rows and the input embedding's) is kept whole up
  to ``wide_rank`` entries and count-sketched beyond, whatever its size: its gradient is
  nearly one-hot per target token, and a few dozen Gaussian columns would make the target
  tokens of different examples look alike (measured: a Vendi score 3-6% too low), while
  many buckets keep them nearly orthogonal, as in the exact gradient. The count-sketch
  costs one pass over the logits' gradient instead of a matrix product with it.

The input embedding (parameter set "all") gets the same treatment: its weight gradient is
``sum_t e_{id_t} g_t^T``, so its projection is ``sum_t P_out[id_t] (P_in^T g_t)^T``, where
``g_t`` is the gradient of the embedding output. When the embedding is tied to the output
head, both share one parameter key and one pair of matrices, and their blocks add up — as
the two parts of the tied weight's gradient do.

The remaining small modules with parameters of their own (normalisation weights and biases:
a few thousand numbers each, but their gradients weigh as much in inner products as a big
matrix's) get their exact per-example gradients, unprojected: a forward hook keeps the
module's input, and the hook on its output gradient runs ``torch.func.vmap`` of a
vector-Jacobian product of the module alone (a norm is recomputed, nothing else). A module
the hooks cannot handle this way (its input is not ``(batch, sequence, ...)``) is listed in
:attr:`LoGra.uncovered` and reported.

Each weight gives ``k_out * k_in`` numbers; they are concatenated (``width``, hundreds of
times ``d`` for a 135M model) and reduced to ``d`` with the seeded projection of
:mod:`.sketch`. Since ``E[P P^T] = I`` for every matrix involved, inner products of the
features are unbiased estimates of inner products of the gradients of the covered weights.

Each example's loss is its own mean over its labelled tokens and the batch backpropagates
their sum (see :mod:`.batches`), so every row equals what the example gives alone.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import PluginError
from vendiscope.core.gradients.batches import Batch, per_example_loss, target_positions
from vendiscope.core.gradients.proxy import first_selected_block, selected_modules
from vendiscope.core.gradients.sketch import generator

if TYPE_CHECKING:
    import torch

    from vendiscope.core.gradients.sketch import Projector

RANK = 64
WIDE = 8192
WIDE_RANK = 2048
SMALL = 1 << 20  # modules with at most this many parameters of their own get exact gradients


@dataclass(frozen=True)
class Side:
    """The seeded projection of one side of a weight: ``size`` entries -> ``width``.

    ``matrix`` (``size x width``, identity or Gaussian), or a count-sketch given by
    ``buckets`` and ``signs`` (one per entry).
    """

    size: int
    width: int
    matrix: torch.Tensor | None = None
    buckets: torch.Tensor | None = None
    signs: torch.Tensor | None = None

    @property
    def kind(self) -> str:
        if self.matrix is None:
            return "count-sketch"
        return "identity" if self.width == self.size else "gaussian"

    def apply(self, x: torch.Tensor) -> torch.Tensor:
        """``(..., n) -> (..., width)`` for ``n <= size`` (the first ``n`` entries)."""
        n = x.shape[-1]
        if self.matrix is not None:
            return x @ self.matrix[:n]
        out = x.new_zeros((*x.shape[:-1], self.width))
        return out.index_add_(x.dim() - 1, self.buckets[:n], x * self.signs[:n])

    def rows(self, ids: torch.Tensor, weights: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        """``sum_t weights_t * P[ids_t] (x) values_t`` per example: ``(B, width, v)``.

        ``ids`` and ``weights`` are ``(B, T)``, ``values`` is ``(B, T, v)``.
        """
        import torch

        if self.matrix is not None:
            rows = self.matrix[ids] * weights[..., None]
            return rows.transpose(1, 2) @ values
        batch, _, v = values.shape
        out = values.new_zeros((batch * self.width, v))
        base = torch.arange(batch, device=ids.device)[:, None] * self.width
        index = (base + self.buckets[ids]).reshape(-1)
        scaled = values * (self.signs[ids] * weights)[..., None]
        out.index_add_(0, index, scaled.reshape(-1, v))
        return out.reshape(batch, self.width, v)

    def dense(self) -> torch.Tensor:
        """The matrix as a dense ``size x width`` tensor (for tests and small sides)."""
        import torch

        if self.matrix is not None:
            return self.matrix
        out = torch.zeros((self.size, self.width), device=self.buckets.device)
        out[torch.arange(self.size, device=self.buckets.device), self.buckets] = self.signs
        return out

    def to(self, device: Any) -> Side:
        def move(t: Any) -> Any:
            return None if t is None else t.to(device)

        return Side(self.size, self.width, move(self.matrix), move(self.buckets), move(self.signs))


@dataclass(frozen=True)
class LayerProjection:
    """The seeded sides of one weight: ``out`` (its rows), ``in`` (its columns, + bias)."""

    key: str
    out: Side
    inp: Side


@dataclass(frozen=True)
class _Site:
    """A module the hooks watch: a linear layer or the input embedding."""

    key: str
    kind: str  # "linear", "conv1d" or "embedding"
    bias: bool


def make_side(
    seed: int,
    key: str,
    side: str,
    size: int,
    *,
    rank: int,
    wide: int,
    wide_rank: int,
    vocabulary: bool = False,
) -> Side:
    """The seeded projection of one side (see the module docstring for the kinds).

    A ``vocabulary`` side (token-indexed: the head's outputs, the embedding's rows) is kept
    whole up to ``wide_rank`` entries and count-sketched beyond.
    """
    import torch

    if vocabulary:
        rank, wide = wide_rank, wide_rank
    if size <= rank:
        return Side(size, size, matrix=torch.eye(size))
    if size <= wide:
        gen = generator(seed, "logra", key, side, rank)
        return Side(size, rank, matrix=torch.randn((size, rank), generator=gen) / math.sqrt(rank))
    gen = generator(seed, "logra-sketch", key, side, wide_rank)
    codes = torch.randint(0, 2 * wide_rank, (size,), generator=gen)
    signs = 1.0 - 2.0 * (codes // wide_rank).to(torch.float32)
    return Side(size, wide_rank, buckets=codes % wide_rank, signs=signs)


class LoGra:
    """Hooks and seeded projections for one model and parameter set (see the module docstring)."""

    def __init__(
        self,
        model: Any,
        parameters: str = "all",
        *,
        seed: int = 0,
        rank: int | None = None,
        wide: int = WIDE,
        wide_rank: int = WIDE_RANK,
    ) -> None:
        import torch

        self.model = model
        self.parameters = parameters
        self.rank = rank or RANK
        self.wide_rank = wide_rank
        modules = selected_modules(model, parameters)
        keys = {id(p): n for n, p in model.named_parameters()}
        self._sites: dict[int, tuple[Any, _Site]] = {}
        shapes: dict[str, tuple[int, int]] = {}
        for name, module in modules.items():
            weight = module.weight
            key = keys.get(id(weight), f"{name}.weight")
            if isinstance(module, torch.nn.Embedding):
                kind, rows, cols = "embedding", weight.shape[0], weight.shape[1]
            elif type(module).__name__ == "Conv1D":
                kind, rows, cols = "conv1d", weight.shape[1], weight.shape[0]
            else:
                kind, rows, cols = "linear", weight.shape[0], weight.shape[1]
            bias = getattr(module, "bias", None) is not None
            self._sites[id(module)] = (module, _Site(key, kind, bias))
            rows_seen, cols_seen = shapes.get(key, (rows, cols))
            shapes[key] = (max(rows, rows_seen), max(cols + bias, cols_seen))
        if not shapes:
            raise PluginError(f"parameter set '{parameters}' holds no linear layer")
        device = next(model.parameters()).device
        sizes = {"rank": self.rank, "wide": wide, "wide_rank": wide_rank}
        self.projections: dict[str, LayerProjection] = {}
        vocabulary = {
            keys.get(id(getattr(m, "weight", None)))
            for m in (model.get_input_embeddings(), model.get_output_embeddings())
            if m is not None
        }
        for key in sorted(shapes):
            rows, cols = shapes[key]
            out = make_side(seed, key, "out", rows, **sizes, vocabulary=key in vocabulary)
            self.projections[key] = LayerProjection(
                key, out.to(device), make_side(seed, key, "in", cols, **sizes).to(device)
            )
        covered = {id(p): p for m, _ in self._sites.values() for p in m.parameters(recurse=False)}
        # "all": every other parameter too — small modules (norms, biases) exactly
        self._small: dict[int, tuple[Any, str, list[tuple[str, str]]]] = {}
        self.uncovered: set[str] = set()
        if parameters == "all":
            for name, module in model.named_modules():
                own = [
                    (attr, p)
                    for attr, p in module.named_parameters(recurse=False)
                    if id(p) not in covered
                ]
                if not own:
                    continue
                too_big = sum(p.numel() for _, p in own) > SMALL
                if id(module) in self._sites or too_big or next(module.children(), None):
                    self.uncovered.update(f"{name}.{attr}" for attr, _ in own)
                    continue
                self._small[id(module)] = (module, name, [(a, keys[id(p)]) for a, p in own])
                covered.update({id(p): p for _, p in own})
        self.n_parameters = sum(p.numel() for p in covered.values())
        self._small_keys = {key: None for _, _, pairs in self._small.values() for _, key in pairs}
        self._blocks: dict[str, torch.Tensor] = {}
        self._mask: torch.Tensor | None = None
        self._head_mask: torch.Tensor | None = None
        self._recomputing = False
        self.last_losses: torch.Tensor | None = None
        """The per-example losses of the last batch :meth:`layer_blocks` went through."""

    @property
    def width(self) -> int:
        """Numbers per example before the final projection."""
        return sum(p.out.width * p.inp.width for p in self.projections.values())

    def describe(self) -> str:
        kinds: dict[str, int] = {}
        for projection in self.projections.values():
            for side in (projection.out, projection.inp):
                kinds[side.kind] = kinds.get(side.kind, 0) + 1
        parts = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
        small = f"; {len(self._small_keys)} small parameters exact" if self._small_keys else ""
        return (
            f"LoGra Kronecker per weight ({len(self.projections)} weights; sides: {parts}; "
            f"k = {self.rank}, count-sketch sides {self.wide_rank} buckets; "
            f"{self.width:,} numbers per example{small})"
        )

    # ------------------------------------------------------------------ per batch
    def layer_blocks(self, batch: Batch) -> dict[str, torch.Tensor]:
        """``key -> (B, k_out, k_in)`` Kronecker-projected per-example gradient of each weight."""
        import torch

        _, valid = target_positions(batch.labels)
        self._blocks = {}
        self._mask = batch.attention_mask
        self._head_mask = valid
        try:
            with self._hooks():
                losses = per_example_loss(self.model, batch).losses
                losses.sum().backward()
            self.last_losses = losses.detach()
        finally:
            self._mask = self._head_mask = None
        blocks, self._blocks = self._blocks, {}
        out = {}
        for key, projection in self.projections.items():
            found = blocks.get(key)
            if found is None:
                shape = (batch.size, projection.out.width, projection.inp.width)
                found = torch.zeros(shape, device=batch.input_ids.device)
            out[key] = found
        parameters = dict(self.model.named_parameters())
        for key in self._small_keys:
            found = blocks.get(key)
            if found is None:
                found = torch.zeros(
                    (batch.size, parameters[key].numel()), device=batch.input_ids.device
                )
            out[key] = found
        return out

    def project(self, batch: Batch, projector: Projector) -> torch.Tensor:
        """``(B, d)`` features of ``batch`` (not yet normalised)."""
        blocks = self.layer_blocks(batch)
        return projector.project(
            (f"logra/{key}", block.reshape(block.shape[0], -1)) for key, block in blocks.items()
        )

    # ------------------------------------------------------------------ hooks
    @contextlib.contextmanager
    def _hooks(self) -> Iterator[None]:
        handles = []
        head = self.model.get_output_embeddings()
        entry_block = first_selected_block(self.model, self.parameters)
        embeddings = self.model.get_input_embeddings()
        for module, site in self._sites.values():
            hook = functools.partial(self._forward, site=site, is_head=module is head)
            handles.append(module.register_forward_hook(hook))
        for module, name, pairs in self._small.values():
            hook = functools.partial(self._small_forward, name=name, pairs=pairs)
            handles.append(module.register_forward_hook(hook))
        if entry_block is not None:
            handles.append(entry_block.register_forward_pre_hook(_detach_entry, with_kwargs=True))
        elif id(embeddings) not in self._sites:
            handles.append(embeddings.register_forward_hook(_detach_output))
        try:
            yield
        finally:
            for handle in handles:
                handle.remove()

    def _mask_for(self, shape: tuple[int, ...], is_head: bool) -> torch.Tensor:
        for mask in (self._head_mask if is_head else None, self._mask):
            if mask is not None and tuple(mask.shape) == tuple(shape):
                return mask
        raise PluginError(
            "mode 'fast' needs every covered linear layer to see (batch, sequence, features) "
            f"inputs; a layer saw {tuple(shape)} (mixture-of-experts models route tokens); "
            "use mode 'exact'"
        )

    def _forward(self, module: Any, args: tuple, output: Any, *, site: _Site, is_head: bool) -> Any:
        import torch

        if self._recomputing:
            return None
        projection = self.projections[site.key]
        if site.kind == "embedding":
            return self._embedding(module, args[0], output, site, projection)
        if not isinstance(output, torch.Tensor) or not output.requires_grad:
            return None
        a = args[0]
        mask = self._mask_for(a.shape[:2], is_head)
        with _no_autocast(a):
            a = a.float()
            if site.bias:
                a = torch.cat([a, a.new_ones((*a.shape[:-1], 1))], dim=-1)
            pa = projection.inp.apply(a) * mask[..., None].to(torch.float32)
        output.register_hook(functools.partial(self._backward, site.key, pa, mask))
        return None

    def _backward(self, key: str, pa: torch.Tensor, mask: torch.Tensor, g: torch.Tensor) -> None:
        projection = self.projections[key]
        with _no_autocast(g):
            pg = projection.out.apply(g.float()) * mask[..., None].to(pa.dtype)
            self._add(key, pg.transpose(1, 2) @ pa)

    def _embedding(
        self, module: Any, ids: torch.Tensor, output: torch.Tensor, site: _Site, projection: Any
    ) -> torch.Tensor:
        leaf = output.detach().requires_grad_(True)
        mask = self._mask_for(ids.shape, False).float()
        padding = getattr(module, "padding_idx", None)
        if padding is not None:
            mask = mask * (ids != padding).to(mask.dtype)
        scale = getattr(module, "embed_scale", None)

        def backward(g: torch.Tensor) -> None:
            with _no_autocast(g):
                pg = projection.inp.apply(g.float())
                if scale is not None:
                    pg = pg * scale
                self._add(site.key, projection.out.rows(ids, mask, pg))

        leaf.register_hook(backward)
        return leaf

    def _small_forward(
        self, module: Any, args: tuple, output: Any, *, name: str, pairs: list[tuple[str, str]]
    ) -> Any:
        """Keep the input for the exact VJP; returns a replacement output when one is needed.

        An output shared by the batch (a position embedding of ``(1, T)`` ids) is expanded to
        ``(B, T, ...)``, and one that needs no gradient (its input is token ids) becomes a
        leaf that does, so that its gradient arrives per example.
        """
        import torch

        if self._recomputing or not isinstance(output, torch.Tensor):
            return None
        x = args[0] if args else None
        mask = self._mask
        if mask is None or not isinstance(x, torch.Tensor) or x.dim() < 2 or output.dim() < 2:
            self.uncovered.update(f"{name}.{attr}" for attr, _ in pairs)
            return None
        batch, length = mask.shape
        shapes_ok = True
        for tensor in (x, output):
            shapes_ok &= tensor.shape[0] in (1, batch) and tensor.shape[1] == length
        if not shapes_ok:  # tokens routed or reshaped: reported, not covered
            self.uncovered.update(f"{name}.{attr}" for attr, _ in pairs)
            return None
        replaced = None
        if output.shape[0] != batch:
            output = replaced = output.expand(batch, *output.shape[1:])
        if not output.requires_grad:
            output = replaced = output.detach().requires_grad_(True)
        x = x.detach().expand(batch, *x.shape[1:])
        output.register_hook(functools.partial(self._small_backward, module, x, mask, pairs))
        return replaced

    def _small_backward(
        self,
        module: Any,
        x: torch.Tensor,
        mask: torch.Tensor,
        pairs: list[tuple[str, str]],
        g: torch.Tensor,
    ) -> None:
        """Exact per-example gradients of a small module's own parameters (vmap of a VJP)."""
        import torch
        from torch.func import functional_call, vjp, vmap

        params = {attr: getattr(module, attr).detach().float() for attr, _ in pairs}
        with _no_autocast(g):
            g = g.float() * mask.reshape(*mask.shape, *([1] * (g.dim() - 2))).to(torch.float32)

            def one(xb: torch.Tensor, gb: torch.Tensor) -> Any:
                _, pullback = vjp(lambda p: functional_call(module, p, (xb[None],)), params)
                return pullback(gb[None])[0]

            self._recomputing = True
            try:
                grads = vmap(one)(x.float() if x.is_floating_point() else x, g)
            finally:
                self._recomputing = False
        for attr, key in pairs:
            self._add(key, grads[attr].reshape(g.shape[0], -1))

    def _add(self, key: str, block: torch.Tensor) -> None:
        found = self._blocks.get(key)
        self._blocks[key] = block if found is None else found + block


def _no_autocast(tensor: Any) -> Any:
    """Projections run in float32 even inside an autocast region."""
    import torch

    return torch.autocast(tensor.device.type, enabled=False)


def _detach_output(module: Any, args: tuple, output: Any) -> Any:
    """The gradient's entry point: the embedding output becomes a leaf that needs a gradient."""
    return output.detach().requires_grad_(True)


def _detach_entry(module: Any, args: tuple, kwargs: dict) -> Any:
    """The entry point for "last-N-blocks-linear": the first chosen block's input."""
    if args:
        return (args[0].detach().requires_grad_(True), *args[1:]), kwargs
    kwargs = dict(kwargs)
    kwargs["hidden_states"] = kwargs["hidden_states"].detach().requires_grad_(True)
    return args, kwargs
