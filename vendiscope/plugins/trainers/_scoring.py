"""Scoring a model on a target set: response losses, then accuracy where it can be checked.

- loss: per example, the mean cross-entropy over its response tokens; the evaluation's loss
  is the mean over examples.
- accuracy by likelihood: an example with ``"choices"`` (and an ``"answer"``) is answered by
  the choice that, rendered as the response, has the lowest mean loss.
- accuracy by generation: an example with an ``"answer"`` and no choices is answered by
  greedy decoding (``max_new_tokens``); :func:`~vendiscope.api.final_answer` of the text is
  compared with :func:`~vendiscope.api.same_answer`.

Everything runs in batches; ``tick()`` is called before each (it checks cancellation and
reports progress).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from vendiscope.api import Evaluation, final_answer, length_buckets, same_answer
from vendiscope.plugins.trainers._examples import encode

if TYPE_CHECKING:
    from vendiscope.api import Encoded
    from vendiscope.plugins.trainers._frozen import Forward


class Scorer:
    """Scores models on target sets, in batches of ``batch_size``."""

    def __init__(
        self,
        forward: Forward,
        tokenizer: Any,
        *,
        batch_size: int,
        max_length: int,
        max_new_tokens: int,
    ) -> None:
        self.forward = forward
        self.tokenizer = tokenizer
        self.batch_size = int(batch_size)
        self.max_length = int(max_length)
        self.max_new_tokens = int(max_new_tokens)

    # ------------------------------------------------------------------ planning
    def plan(self, target: Sequence[dict[str, Any]]) -> SelectionPlan:
        """What scoring ``target`` involves (encoded once; its batch count for progress)."""
        encoded = encode(self.tokenizer, target, self.max_length, "target example")
        by_choice = [i for i, e in enumerate(target) if _checkable(e) and e.get("choices")]
        by_text = [i for i, e in enumerate(target) if _checkable(e) and not e.get("choices")]
        options = [
            {"prompt": target[i]["prompt"], "response": str(choice)}
            for i in by_choice
            for choice in target[i]["choices"]
        ]
        choice_encoded = encode(self.tokenizer, options, self.max_length, "choice of example")
        return SelectionPlan(target, encoded, by_choice, choice_encoded, by_text, self.batch_size)

    # ------------------------------------------------------------------ scoring
    def evaluate(self, plan: SelectionPlan, tick: Callable[[], None]) -> Evaluation:
        import torch

        with torch.no_grad():
            losses = self.losses(plan.encoded, tick)
            right = self._by_choice(plan, tick) + self._by_text(plan, tick)
        checked = len(plan.by_choice) + len(plan.by_text)
        return Evaluation(
            loss=float(sum(losses) / len(losses)),
            n=len(losses),
            accuracy=(sum(right) / checked) if checked else None,
            checked=checked,
            per_example=tuple(losses),
        )

    def losses(self, encoded: Sequence[Encoded], tick: Callable[[], None]) -> list[float]:
        """Each example's mean response loss, in order (length-bucketed batches)."""
        out = [0.0] * len(encoded)
        for batch in length_buckets([len(e) for e in encoded], self.batch_size):
            tick()
            values = self.forward.losses([encoded[i] for i in batch])
            for i, value in zip(batch, values.tolist(), strict=True):
                out[i] = float(value)
        return out

    def _by_choice(self, plan: SelectionPlan, tick: Callable[[], None]) -> list[bool]:
        if not plan.by_choice:
            return []
        losses = self.losses(plan.choice_encoded, tick)
        right, start = [], 0
        for i in plan.by_choice:
            choices = list(plan.target[i]["choices"])
            mine = losses[start : start + len(choices)]
            start += len(choices)
            best = min(range(len(choices)), key=lambda c: (mine[c], c))
            right.append(same_answer(choices[best], plan.target[i]["answer"]))
        return right

    def _by_text(self, plan: SelectionPlan, tick: Callable[[], None]) -> list[bool]:
        right = []
        for start in range(0, len(plan.by_text), self.batch_size):
            tick()
            chunk = plan.by_text[start : start + self.batch_size]
            texts = self.generate([plan.target[i]["prompt"] for i in chunk])
            right += [
                same_answer(final_answer(text), plan.target[i]["answer"])
                for i, text in zip(chunk, texts, strict=True)
            ]
        return right

    def generate(self, prompts: Sequence[str]) -> list[str]:
        """Greedy completions of user turns (left-padded batch, the full model)."""
        import torch

        from vendiscope.api import pad_token_id
        from vendiscope.plugins.generators._common import completion_text, stop_token_ids

        model = self.forward.model
        rows = [self._prompt_ids(p) for p in prompts]
        width = max(len(r) for r in rows)
        pad = pad_token_id(self.tokenizer)
        ids = torch.tensor([[pad] * (width - len(r)) + r for r in rows], device=model.device)
        mask = torch.tensor(
            [[0] * (width - len(r)) + [1] * len(r) for r in rows], device=model.device
        )
        stop = stop_token_ids(model, self.tokenizer)
        with self.forward.autocast():
            output = model.generate(
                input_ids=ids,
                attention_mask=mask,
                max_new_tokens=self.max_new_tokens,
                do_sample=False,
                temperature=None,
                top_p=None,
                top_k=None,
                pad_token_id=pad,
                eos_token_id=sorted(stop) or None,
            )
        return [completion_text(ids, stop, self.tokenizer)[0] for ids in output[:, width:].tolist()]

    def _prompt_ids(self, prompt: str) -> list[int]:
        """The user turn rendered as encode_examples renders it, up to the assistant's turn."""
        from vendiscope.api import has_chat_template

        tokenizer = self.tokenizer
        if has_chat_template(tokenizer):
            text = tokenizer.apply_chat_template(
                [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
            )
            ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        else:
            ids = tokenizer(f"{prompt}\n\n", add_special_tokens=True)["input_ids"]
        room = max(self.max_length - self.max_new_tokens, 1)
        return list(ids)[-room:]


class SelectionPlan:
    """A target set encoded for scoring, and how many batches scoring it takes."""

    def __init__(
        self,
        target: Sequence[dict[str, Any]],
        encoded: list[Encoded],
        by_choice: list[int],
        choice_encoded: list[Encoded],
        by_text: list[int],
        batch_size: int,
    ) -> None:
        self.target = target
        self.encoded = encoded
        self.by_choice = by_choice
        self.choice_encoded = choice_encoded
        self.by_text = by_text
        self.batches = (
            len(length_buckets([len(e) for e in encoded], batch_size))
            + len(length_buckets([len(e) for e in choice_encoded], batch_size))
            + -(-len(by_text) // batch_size)
        )


def _checkable(example: dict[str, Any]) -> bool:
    return example.get("answer") is not None
