"""Losses of encoded examples, computing the frozen bottom blocks once per distinct example.

When only the last blocks of a model are trained (or carry LoRA adapters), the hidden state
entering the first trained block is a pure function of the token ids. :class:`Forward`
computes it once per example (keyed by its token ids), keeps it in a least-recently-used
cache bounded in megabytes, and runs only the top blocks: the model is called with
``inputs_embeds=<cached state>`` while its list of blocks temporarily holds only the trained
ones. That works for Llama-style models (SmolLM2, Qwen2, Mistral), whose decoder feeds
``inputs_embeds`` to the first block unchanged; a model that scales or mixes its input
embeddings (Gemma, GPT-2's position embeddings) would get a wrong answer, so the equivalence
is checked once, on a probe example, before the cache is used (:meth:`Forward.check`): when
the cached loss differs from the full forward's by more than ``1e-4``, the cache is off.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from vendiscope.api import collate, per_example_loss

if TYPE_CHECKING:
    import torch

    from vendiscope.api import Encoded

TOLERANCE = 1e-4
"""Largest difference (nats, float32) between the cached and the full loss of the probe."""


class _Stop(Exception):
    """Raised by the hook on the first trained block: the bottom blocks are done."""

    def __init__(self, hidden: torch.Tensor) -> None:
        super().__init__()
        self.hidden = hidden


class PrefixCache:
    """Token ids -> hidden state entering the first trained block, least recently used out."""

    def __init__(self, budget_bytes: int) -> None:
        self.budget = int(budget_bytes)
        self.used = 0
        self._items: OrderedDict[tuple[int, ...], torch.Tensor] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[int, ...]) -> torch.Tensor | None:
        value = self._items.get(key)
        if value is None:
            self.misses += 1
            return None
        self.hits += 1
        self._items.move_to_end(key)
        return value

    def put(self, key: tuple[int, ...], value: torch.Tensor) -> None:
        size = value.numel() * value.element_size()
        if size > self.budget or key in self._items:
            return
        self._items[key] = value
        self.used += size
        while self.used > self.budget:
            _, old = self._items.popitem(last=False)
            self.used -= old.numel() * old.element_size()

    def __len__(self) -> int:
        return len(self._items)


class Forward:
    """Per-example mean response losses of a model, through the frozen-prefix cache when on.

    ``first`` is the index of the first trained block; ``autocast`` a context manager factory
    (bfloat16 on CUDA, a no-op otherwise). Call :meth:`check` once before :meth:`losses`.
    """

    def __init__(
        self, model: Any, *, first: int, pad_id: int, cache_mb: float, enabled: bool, autocast: Any
    ) -> None:
        from vendiscope.api import transformer_blocks

        self.model = model
        self.first = int(first)
        self.pad_id = pad_id
        self.autocast = autocast
        self.blocks = transformer_blocks(model)
        self.cache = PrefixCache(int(float(cache_mb) * 2**20))
        self.state = "on" if enabled else "off (cache_frozen=False)"
        if enabled and self.first <= 0:
            self.state = "off (every block is trained: nothing frozen to cache)"

    @property
    def on(self) -> bool:
        return self.state == "on"

    @property
    def device(self) -> Any:
        return next(self.model.parameters()).device

    # ------------------------------------------------------------------ public
    def check(self, probe: Encoded) -> None:
        """Turn the cache off (saying why) unless it reproduces the full forward on ``probe``."""
        if not self.on:
            return
        import torch

        with torch.no_grad():
            full = float(self._full([probe])[0])
            try:
                cached = float(self._cached([probe], store=False)[0])
            except Exception as exc:  # an architecture the top-only call does not fit
                self.state = f"off (the top-only forward failed: {type(exc).__name__}: {exc})"
                return
        if not abs(cached - full) <= TOLERANCE:
            self.state = (
                f"off (cached loss {cached:.6f} differs from the full forward's {full:.6f} "
                "for this architecture)"
            )

    def losses(self, examples: Sequence[Encoded]) -> torch.Tensor:
        """``(B,)`` per-example losses; differentiable in whatever requires a gradient."""
        with self.autocast():
            return self._cached(examples) if self.on else self._full(examples)

    def prefix(self, examples: Sequence[Encoded]) -> None:
        """Compute (and cache) the frozen prefix of ``examples`` not cached yet."""
        if self.on:
            with self.autocast():
                self._hidden(examples)

    def measure_prefix(self, examples: Sequence[Encoded]) -> float:
        """Seconds the frozen prefix of ``examples`` takes to compute (0 with the cache off)."""
        if not self.on:
            return 0.0
        import time

        import torch

        began = time.perf_counter()
        with torch.no_grad(), self.autocast():
            self._hidden(examples, store=False)
        return time.perf_counter() - began

    # ------------------------------------------------------------------ forwards
    def _full(self, examples: Sequence[Encoded]) -> torch.Tensor:
        batch = collate(
            examples, list(range(len(examples))), pad_id=self.pad_id, device=self.device
        )
        return per_example_loss(self.model, batch).losses

    def _cached(self, examples: Sequence[Encoded], *, store: bool = True) -> torch.Tensor:
        import torch

        hidden = self._hidden(examples, store=store)
        batch = collate(
            examples, list(range(len(examples))), pad_id=self.pad_id, device=self.device
        )
        width = batch.input_ids.shape[1]
        embeds = torch.zeros(
            (len(examples), width, hidden[0].shape[-1]), dtype=hidden[0].dtype, device=self.device
        )
        for row, state in enumerate(hidden):
            embeds[row, : state.shape[0]] = state
        with self._top_only():
            return per_example_loss(_Embedded(self.model, embeds), batch).losses

    def _hidden(self, examples: Sequence[Encoded], *, store: bool = True) -> list[torch.Tensor]:
        """The hidden state entering the first trained block, per example (``(T_i, H)``)."""
        import torch

        keys = [tuple(e.input_ids) for e in examples]
        found: dict[tuple[int, ...], torch.Tensor | None] = {}
        for key in keys:
            value = self.cache.get(key) if store else None
            if value is not None:
                found[key] = value
        missing: list[int] = []  # one row per distinct example not cached
        for i, key in enumerate(keys):
            if key not in found:
                found[key] = None  # filled below
                missing.append(i)
        if missing:
            todo = [examples[i] for i in missing]
            batch = collate(todo, missing, pad_id=self.pad_id, device=self.device)
            with torch.no_grad():
                states = self._bottom(batch.input_ids, batch.attention_mask)
            for row, i in enumerate(missing):
                value = states[row, : len(examples[i])].clone()
                found[keys[i]] = value
                if store:
                    self.cache.put(keys[i], value)
        # mypy, on the next line: every key filled above, none left None
        return [found[key] for key in keys]  # type: ignore[misc]

    def _bottom(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Run the model up to the first trained block and return what enters it."""

        def stop(module: Any, args: tuple, kwargs: dict) -> None:
            raise _Stop(args[0] if args else kwargs["hidden_states"])

        handle = self.blocks[self.first].register_forward_pre_hook(stop, with_kwargs=True)
        try:
            self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False)
        except _Stop as done:
            return done.hidden.detach()
        finally:
            handle.remove()
        raise RuntimeError("the model never reached its first trained block")  # pragma: no cover

    @contextlib.contextmanager
    def _top_only(self) -> Iterator[None]:
        """While active, the model's block list holds only the trained blocks."""
        import torch

        parent, name = _owner(self.model, self.blocks)
        setattr(parent, name, torch.nn.ModuleList(list(self.blocks)[self.first :]))
        try:
            yield
        finally:
            setattr(parent, name, self.blocks)


class _Embedded:
    """The model as :func:`per_example_loss` calls it, fed cached states instead of ids."""

    def __init__(self, model: Any, embeds: torch.Tensor) -> None:
        self.model = model
        self.embeds = embeds

    def get_output_embeddings(self) -> Any:
        return self.model.get_output_embeddings()

    def __call__(self, *, input_ids: Any = None, attention_mask: Any = None, **_: Any) -> Any:
        return self.model(inputs_embeds=self.embeds, attention_mask=attention_mask, use_cache=False)


def _owner(model: Any, blocks: Any) -> tuple[Any, str]:
    """The module holding ``blocks`` as an attribute, and that attribute's name."""
    for name, module in model.named_modules():
        if module is blocks:
            parent, _, attribute = name.rpartition(".")
            return (model.get_submodule(parent) if parent else model), attribute
    raise RuntimeError("the block list is not part of the model")  # pragma: no cover
