"""What a study costs in arithmetic: FLOPs per training run of the built-in trainer.

A dense-matmul count of the bundled SmolLM2-135M-Instruct (read from its config), for a
study of ``subsets x seeds`` runs of ``size`` examples of ``tokens`` tokens each, the last
``blocks`` blocks trained (``last-blocks``: their weight and activation gradients; LoRA:
activation gradients only, the adapters' own cost is negligible at rank 8; the tied output
head is frozen either way), a target of ``target``
examples scored after every run, and the frozen prefix computed once per distinct example.
Attention's own score/value products are counted too (they are small at these lengths).

    python -m tests.benchmarks.study_cost [--size 500 --subsets 40 --seeds 3 --tokens 163]

Divide by a device's sustained FLOP/s for a lower bound on its time; per-step overheads
(kernel launches, the optimizer, Python) come on top and dominate small models on a GPU.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass


@dataclass(frozen=True)
class Shape:
    layers: int
    hidden: int
    intermediate: int
    heads: int
    kv_heads: int
    vocab: int

    @property
    def block_params(self) -> int:
        head = self.hidden // self.heads
        attention = self.hidden * self.hidden * 2 + 2 * self.hidden * head * self.kv_heads
        return attention + 3 * self.hidden * self.intermediate

    def forward_per_token(self, blocks: int, tokens: int) -> float:
        """Forward FLOPs per token through ``blocks`` blocks (matmuls + attention)."""
        return blocks * (2 * self.block_params + 4 * tokens * self.hidden)

    @property
    def head_per_token(self) -> float:
        return 2 * self.hidden * self.vocab


SMOLLM2_135M = Shape(layers=30, hidden=576, intermediate=1536, heads=9, kv_heads=3, vocab=49152)


def study_flops(
    shape: Shape,
    *,
    size: int,
    subsets: int,
    seeds: int,
    tokens: int,
    blocks: int = 4,
    target: int = 100,
    distinct: int | None = None,
    lora: bool = False,
) -> dict[str, float]:
    """FLOPs of one run, of all runs, and of the frozen prefix (once)."""
    trained = shape.forward_per_token(blocks, tokens)
    forward = trained + shape.head_per_token
    # the head is frozen (tied embeddings): its backward is the activation gradient only
    backward = shape.head_per_token + (1 if lora else 2) * trained
    train = size * tokens * (forward + backward)
    score = target * tokens * forward
    per_run = train + score
    frozen = shape.forward_per_token(shape.layers - blocks, tokens)
    prefix = (distinct if distinct is not None else size * subsets) * tokens * frozen
    prefix += target * tokens * frozen
    return {
        "per_run": per_run,
        "runs": per_run * subsets * seeds,
        "prefix": prefix,
        "per_step_of_8": 8 * tokens * (forward + backward),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=500)
    parser.add_argument("--subsets", type=int, default=40)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=163)
    parser.add_argument("--target", type=int, default=100)
    parser.add_argument("--distinct", type=int, default=None)
    args = parser.parse_args()
    for lora in (False, True):
        found = study_flops(
            SMOLLM2_135M, size=args.size, subsets=args.subsets, seeds=args.seeds,
            tokens=args.tokens, target=args.target, distinct=args.distinct, lora=lora,
        )  # fmt: skip
        name = "lora" if lora else "last-blocks"
        print(
            f"{name}: {found['per_step_of_8']:.3g} FLOPs per step of 8, {found['per_run']:.3g} "
            f"per run, {found['runs']:.3g} for all runs, {found['prefix']:.3g} for the prefix"
        )


if __name__ == "__main__":
    main()
