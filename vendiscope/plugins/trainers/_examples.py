"""Examples in, token ids out: checking the dicts, encoding them, the seeded training order."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vendiscope.api import Encoded


def check_examples(examples: Sequence[dict[str, Any]], what: str = "example") -> None:
    """Raise ``ValueError`` naming the first bad example and field (``"example 3: no 'response'"``).

    ``what`` is how an example is called in the message ("example", "target example").
    """
    if isinstance(examples, (str, bytes, dict)) or not isinstance(examples, Sequence):
        raise ValueError(f"{what}s must be a list of dicts, not {type(examples).__name__}")
    if not examples:
        raise ValueError(f"no {what}s: give at least one")
    for index, example in enumerate(examples):
        if not isinstance(example, dict):
            raise ValueError(f"{what} {index}: a {type(example).__name__}, not a dict")
        for name in ("prompt", "response"):
            value = example.get(name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{what} {index}: no '{name}' (expected non-empty text)")
        answer = example.get("answer")
        if answer is not None and (
            isinstance(answer, bool) or not isinstance(answer, str | int | float)
        ):
            raise ValueError(f"{what} {index}: 'answer' must be text or a number")
        choices = example.get("choices")
        if choices is not None and (
            isinstance(choices, str)
            or not isinstance(choices, Sequence)
            or not choices
            or not all(isinstance(c, str) and c.strip() for c in choices)
        ):
            raise ValueError(f"{what} {index}: 'choices' must be a non-empty list of labels")


def encode(
    tokenizer: Any, examples: Sequence[dict[str, Any]], max_length: int, what: str = "example"
) -> list[Encoded]:
    """Token ids and response-token labels of each example (chat template when there is one)."""
    from vendiscope.api import encode_examples

    records = [{"prompt": e["prompt"], "response": e["response"]} for e in examples]
    encoded = encode_examples(tokenizer, records, max_length=max_length, chat_template=True)
    for index, item in enumerate(encoded):
        if item.empty:
            raise ValueError(
                f"{what} {index}: no 'response' token left within max_length={max_length}"
            )
    return encoded


def run_length(n_examples: int, *, epochs: float, steps: int | None, batch_size: int) -> int:
    """How many examples a run feeds the optimizer (in batches of ``batch_size``)."""
    if steps is not None:
        return int(steps) * int(batch_size)
    return max(1, math.ceil(float(epochs) * n_examples))


def training_batches(
    n_examples: int, *, epochs: float, steps: int | None, batch_size: int, seed: int
) -> list[list[int]]:
    """The run's batches of example indices: whole shuffled passes, then a part of one.

    Each pass is a fresh permutation from a NumPy generator seeded by ``seed``; the stream is
    cut into batches of ``batch_size`` (the last one may be smaller when ``steps`` is None).
    """
    import numpy as np

    rng = np.random.default_rng(int(seed))
    wanted = run_length(n_examples, epochs=epochs, steps=steps, batch_size=batch_size)
    stream: list[int] = []
    while len(stream) < wanted:
        stream.extend(int(i) for i in rng.permutation(n_examples))
    stream = stream[:wanted]
    return [stream[i : i + batch_size] for i in range(0, wanted, batch_size)]
