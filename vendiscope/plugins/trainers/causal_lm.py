"""The ``causal-lm`` trainer: fine-tune a small causal LM on a subset, score it on a target.

The model (the bundled SmolLM2-135M-Instruct by default, or a ``.gguf`` file, a local folder,
a hub id) is loaded once per instance by the loader the gradient featurizer uses
(:func:`vendiscope.api.load_proxy`); examples are rendered with its chat template and
trained on their response tokens only (:func:`vendiscope.api.encode_examples`).

Each :meth:`CausalLMTrainer.train` starts from the untrained model: the last ``blocks``
transformer blocks get back their initial weights (``method="last-blocks"``), or LoRA adapters
on their linear layers are drawn afresh from the run's seed (``method="lora"``). Then AdamW
(no weight decay), gradient norm clipped at 1, a linear warm-up over the first 10% of the
steps and a linear decay, batches in an order shuffled by a NumPy generator seeded by the
seed. Dropout is off (the model stays in eval mode), so a run is a deterministic function of
its examples, target and seed. What the frozen bottom blocks compute is cached per distinct
example (:mod:`._frozen`), across steps, runs and evaluations: it never changes a result.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any

from vendiscope.api import (
    Choices,
    Evaluation,
    Range,
    Trainer,
    TrainingCost,
    TrainingOutcome,
    coerce_params,
)
from vendiscope.plugins.trainers._examples import check_examples, encode, training_batches
from vendiscope.plugins.trainers._methods import METHODS

if TYPE_CHECKING:
    from vendiscope.api import CancelToken, Progress
    from vendiscope.plugins.trainers._frozen import Forward
    from vendiscope.plugins.trainers._methods import Method
    from vendiscope.plugins.trainers._scoring import Scorer

# bump when what a run computes changes (schedule, rendering, scoring), so studies tell them apart
VERSION = "v1"
PRECISIONS = ("auto", "float32", "bfloat16")
DEFAULT_LEARNING_RATE = {"last-blocks": 1e-4, "lora": 1e-3}
WARMUP = 0.1  # share of the steps with a rising learning rate
PROBE = {"prompt": "What is 2 + 2?", "response": "2 + 2 = 4. The final answer is 4"}


class CausalLMTrainer(Trainer):
    """Fine-tunes the last blocks of a causal LM (or LoRA adapters on them) on a subset.

    Parameters
    ----------
    model
        ``None`` for the bundled SmolLM2-135M-Instruct, else a ``.gguf`` file, a local Hugging
        Face causal-LM folder or a hub id.
    method
        ``"last-blocks"`` trains the weights of the last transformer blocks (see ``blocks``);
        ``"lora"`` trains LoRA adapters on their linear layers.
    blocks
        How many of the last transformer blocks are trained (all of them when the model has
        fewer). The blocks below are frozen, and what they compute is cached.
    lora_rank
        The LoRA adapters' rank (``method="lora"``).
    lora_alpha
        The LoRA adapters' scale: their update is multiplied by ``lora_alpha / lora_rank``.
    epochs
        Passes over the examples when ``steps`` is ``None`` (fractions allowed).
    steps
        A fixed number of optimizer steps of ``batch_size`` examples, whatever the subset's
        size; ``None`` = ``epochs`` passes.
    batch_size
        Examples per optimizer step (and per scoring batch).
    learning_rate
        Peak learning rate; ``None`` = 1e-4 for last-blocks, 1e-3 for LoRA.
    max_length
        Longest example in tokens (the prompt is cut from its beginning first).
    device
        ``"auto"`` (CUDA when available), ``"cpu"``, ``"cuda"``, ``"cuda:1"``...
    precision
        ``"auto"``: bfloat16 autocast on a CUDA device that supports it, float32 otherwise.
    cache_frozen
        Cache the hidden state the frozen blocks compute, per distinct example.
    cache_mb
        The cache's bound in megabytes (least recently used examples leave first).
    max_new_tokens
        The most tokens of a greedy answer to a target example with an ``"answer"`` and no
        ``"choices"``.
    """

    def __init__(
        self,
        model: str | None = None,
        method: Annotated[str, Choices(*METHODS)] = "last-blocks",
        blocks: Annotated[int, Range(1)] = 4,
        lora_rank: Annotated[int, Range(1)] = 8,
        lora_alpha: Annotated[float, Range(gt=0)] = 16,
        epochs: Annotated[float, Range(gt=0)] = 1.0,
        steps: Annotated[int | None, Range(1)] = None,
        batch_size: Annotated[int, Range(1)] = 8,
        learning_rate: Annotated[float | None, Range(gt=0)] = None,
        max_length: Annotated[int, Range(2)] = 512,
        device: str = "auto",
        precision: Annotated[str, Choices(*PRECISIONS)] = "auto",
        cache_frozen: bool = True,
        cache_mb: Annotated[float, Range(0)] = 1024,
        max_new_tokens: Annotated[int, Range(1)] = 128,
    ) -> None:
        # the annotations above are the one statement of what is valid; checked here too so a
        # trainer built directly in Python fails at once, naming the parameter
        coerce_params(type(self), {k: v for k, v in locals().items() if k != "self"})
        self.model = model
        self.method = method
        self.blocks = blocks
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha
        self.epochs = epochs
        self.steps = steps
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.max_length = max_length
        self.device = device
        self.precision = precision
        self.cache_frozen = cache_frozen
        self.cache_mb = cache_mb
        self.max_new_tokens = max_new_tokens

    # ------------------------------------------------------------------ identity
    @property
    def lr(self) -> float:
        """The peak learning rate in use."""
        if self.learning_rate is not None:
            return float(self.learning_rate)
        return DEFAULT_LEARNING_RATE[self.method]

    @property
    def model_id(self) -> str:
        from vendiscope.api import model_label

        method = f"method={self.method} blocks={int(self.blocks)}"
        if self.method == "lora":
            method += f" rank={int(self.lora_rank)} alpha={float(self.lora_alpha):g}"
        length = (
            f"steps=auto epochs={float(self.epochs):g}"
            if self.steps is None
            else f"steps={int(self.steps)}"
        )
        return (
            f"causal-lm/{VERSION} model={model_label(self.model)} {method} {length} "
            f"lr={self.lr:g} batch={int(self.batch_size)} max_length={int(self.max_length)}"
        )

    def describe(self) -> dict[str, Any]:
        """The settings and, once loaded, the model, device, precision and frozen cache."""
        from vendiscope.api import model_label

        facts: dict[str, Any] = {
            "model": model_label(self.model),
            "method": self.method,
            "blocks": int(self.blocks),
            "learning_rate": self.lr,
            "batch_size": int(self.batch_size),
            "epochs": float(self.epochs),
            "steps": None if self.steps is None else int(self.steps),
            "max_length": int(self.max_length),
            "optimizer": "AdamW (no weight decay), clip 1.0, 10% linear warm-up, linear decay",
        }
        if self.method == "lora":
            facts.update(lora_rank=int(self.lora_rank), lora_alpha=float(self.lora_alpha))
        loaded = self.__dict__.get("_loaded_")
        if loaded is None:
            facts["frozen_cache"] = (
                "on (checked when the model loads)"
                if self.cache_frozen
                else "off (cache_frozen=False)"
            )
            return facts
        facts.update(loaded.facts())
        return facts

    # ------------------------------------------------------------------ the interface
    def evaluate(
        self, target: Sequence[dict[str, Any]], *, progress: Progress, cancel: CancelToken
    ) -> Evaluation:
        check_examples(target, "target example")
        cancel.raise_if_cancelled()
        loaded = self._load()
        plan = loaded.scorer.plan(target)
        loaded.method.reset(0)  # the untrained model (LoRA: B = 0, the base model)
        progress.start("Scoring the untrained model", total=plan.batches, unit="batches")
        tick = _Ticker(progress, cancel, plan.batches)
        evaluation = loaded.scorer.evaluate(plan, tick)
        tick.finish()
        return evaluation

    def train(
        self,
        examples: Sequence[dict[str, Any]],
        target: Sequence[dict[str, Any]],
        *,
        seed: int,
        progress: Progress,
        cancel: CancelToken,
    ) -> TrainingOutcome:
        check_examples(examples)
        check_examples(target, "target example")
        cancel.raise_if_cancelled()
        began = time.perf_counter()
        loaded = self._load()
        encoded = encode(loaded.tokenizer, examples, int(self.max_length))
        plan = loaded.scorer.plan(target)
        batches = self._batches(len(examples), seed)
        total = len(batches) + plan.batches
        progress.start("Training", total=total, unit="batches")
        tick = _Ticker(progress, cancel, total)
        losses = loaded.run(encoded, batches, seed=seed, lr=self.lr, tick=tick)
        evaluation = loaded.scorer.evaluate(plan, tick)
        tick.finish()
        tail = losses[-max(1, len(losses) // 4) :]
        return TrainingOutcome(
            evaluation=evaluation,
            steps=len(batches),
            examples_seen=sum(len(b) for b in batches),
            train_loss=float(sum(tail) / len(tail)),
            seconds=time.perf_counter() - began,
            details={
                "first_loss": float(losses[0]),
                "frozen_cache": loaded.forward.state,
                "cached_examples": len(loaded.forward.cache),
                "seed": int(seed),
            },
        )

    def estimate(
        self, n_examples: int, n_target: int, sample: Sequence[dict[str, Any]]
    ) -> TrainingCost:
        for name, value in (("n_examples", n_examples), ("n_target", n_target)):
            _check_int(name, value, 1)
        check_examples(sample, "sample example")
        began = time.perf_counter()
        fresh = self.__dict__.get("_loaded_") is None
        loaded = self._load()
        load_seconds = time.perf_counter() - began if fresh else 0.0
        return loaded.estimate(
            sample, n_examples, n_target, load_seconds, steps=len(self._batches(n_examples, 0))
        )

    # ------------------------------------------------------------------ internals
    def _batches(self, n: int, seed: int) -> list[list[int]]:
        return training_batches(
            n,
            epochs=float(self.epochs),
            steps=self.steps,
            batch_size=int(self.batch_size),
            seed=seed,
        )

    def _load(self) -> _Loaded:
        """The model and what serves it, built on first use and kept by this instance."""
        loaded = self.__dict__.get("_loaded_")
        if loaded is None:
            loaded = _Loaded(self)
            self.__dict__["_loaded_"] = loaded
        return loaded


class _Loaded:
    """A loaded model with its trainable parameters, frozen-prefix forward and scorer."""

    def __init__(self, trainer: CausalLMTrainer) -> None:
        import torch

        from vendiscope.api import effective_precision, load_proxy, pad_token_id, resolve_device
        from vendiscope.plugins.trainers._frozen import Forward
        from vendiscope.plugins.trainers._methods import Method
        from vendiscope.plugins.trainers._scoring import Scorer

        device = resolve_device(trainer.device)
        self.precision = effective_precision(trainer.precision, device)
        model, self.tokenizer, self.info = load_proxy(
            trainer.model, device=device, dtype=torch.float32
        )
        self.model = model
        self.method: Method = Method(
            model,
            method=trainer.method,
            blocks=int(trainer.blocks),
            lora_rank=int(trainer.lora_rank),
            lora_alpha=float(trainer.lora_alpha),
        )
        self.forward: Forward = Forward(
            model,
            first=self.method.first,
            pad_id=pad_token_id(self.tokenizer),
            cache_mb=float(trainer.cache_mb),
            enabled=bool(trainer.cache_frozen),
            autocast=self._autocast,
        )
        self.forward.check(encode(self.tokenizer, [PROBE], int(trainer.max_length))[0])
        self.scorer: Scorer = Scorer(
            self.forward,
            self.tokenizer,
            batch_size=int(trainer.batch_size),
            max_length=int(trainer.max_length),
            max_new_tokens=int(trainer.max_new_tokens),
        )
        self.batch_size = int(trainer.batch_size)

    def facts(self) -> dict[str, Any]:
        return {
            "model_type": self.info.get("model_type"),
            "n_parameters": self.info.get("n_parameters"),
            "trained_blocks": self.method.blocks,
            "n_trainable": self.method.n_trainable,
            "device": str(self.forward.device),
            "precision": self.precision,
            "frozen_cache": self.forward.state,
        }

    def _autocast(self) -> Any:
        import torch

        if self.precision == "bfloat16":
            return torch.autocast(device_type=self.forward.device.type, dtype=torch.bfloat16)
        return contextlib.nullcontext()

    # ------------------------------------------------------------------ training
    def run(
        self,
        encoded: Sequence[Any],
        batches: list[list[int]],
        *,
        seed: int,
        lr: float,
        tick: Callable[[], None],
    ) -> list[float]:
        """Train from the untrained state over ``batches``; the loss of each step."""
        import torch

        self.method.reset(seed)
        parameters = list(self.method.parameters.values())
        optimizer = torch.optim.AdamW(parameters, lr=lr, weight_decay=0.0)
        warmup = max(1, math.ceil(WARMUP * len(batches)))
        losses: list[float] = []
        self.method.trainable(True)
        try:
            for step, batch in enumerate(batches):
                tick()
                for group in optimizer.param_groups:
                    group["lr"] = lr * _schedule(step, len(batches), warmup)
                loss = self.forward.losses([encoded[i] for i in batch]).mean()
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(parameters, 1.0)
                optimizer.step()
                losses.append(float(loss.detach()))
        finally:
            self.method.trainable(False)
        return losses

    # ------------------------------------------------------------------ estimating
    def estimate(
        self,
        sample: Sequence[dict[str, Any]],
        n_examples: int,
        n_target: int,
        load_seconds: float,
        *,
        steps: int,
    ) -> TrainingCost:
        """Time the frozen prefix, training steps and scoring on ``sample``; extrapolate."""
        from vendiscope.api import CancelToken, NullProgress

        encoded = encode(self.tokenizer, sample, self.scorer.max_length, "sample example")
        batch = [encoded[i % len(encoded)] for i in range(self.batch_size)]
        prefix_each = self.forward.measure_prefix(encoded) / len(encoded)
        self.forward.prefix(encoded)  # warm, as every run after the first finds it
        timed = 2
        tick = _Ticker(NullProgress(), CancelToken(), timed + 1)
        self.run(batch, [list(range(len(batch)))], seed=0, lr=1e-12, tick=tick)  # warm-up
        began = time.perf_counter()
        self.run(batch, [list(range(len(batch)))] * timed, seed=0, lr=1e-12, tick=tick)
        step_seconds = (time.perf_counter() - began) / timed
        self.method.reset(0)
        plan = self.scorer.plan(sample)
        began = time.perf_counter()
        self.scorer.evaluate(plan, _Ticker(NullProgress(), CancelToken(), plan.batches))
        target_each = (time.perf_counter() - began) / len(sample)
        return TrainingCost(
            seconds_per_run=steps * step_seconds + n_target * target_each,
            one_time_seconds=load_seconds + prefix_each * (n_examples + n_target),
            detail=(
                f"{step_seconds:.3g} s per training step of {self.batch_size} examples "
                f"({steps} steps), {target_each:.3g} s per target example"
                + (f", {prefix_each:.3g} s per example's frozen prefix" if self.forward.on else "")
            ),
        )


class _Ticker:
    """Before each batch: stop if cancelled, then report one more batch done."""

    def __init__(self, progress: Any, cancel: Any, total: int) -> None:
        self.progress = progress
        self.cancel = cancel
        self.total = total
        self.done = 0

    def __call__(self) -> None:
        self.cancel.raise_if_cancelled()
        self.progress.update(self.done, self.total)
        self.done += 1

    def finish(self) -> None:
        self.progress.update(self.total, self.total)
        self.progress.finish()


def _schedule(step: int, total: int, warmup: int) -> float:
    """The learning rate's factor at ``step``: linear warm-up, then linear decay."""
    if step < warmup:
        return (step + 1) / warmup
    return max(total - step, 0) / max(total - warmup, 1)


def _check_int(name: str, value: Any, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, not {value!r}")
