"""The trainer checks of the conformance kit fail for trainers that break the contract."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from vendiscope.api import Evaluation, PluginError, Trainer, TrainingCost, TrainingOutcome
from vendiscope.core.plugin_host.runtime import result_problem
from vendiscope.testing import check_trainer


class Counting(Trainer):
    """A valid model-free trainer: the loss is the share of target words unseen in training."""

    def __init__(self, steps: int = 3) -> None:
        self.steps = steps

    @property
    def model_id(self) -> str:
        return f"counting steps={self.steps}"

    def _check(self, examples: Sequence[dict[str, Any]], what: str) -> None:
        if not examples:
            raise ValueError(f"no {what}s")
        for number, example in enumerate(examples):
            if not isinstance(example, dict) or not isinstance(example.get("response"), str):
                raise ValueError(f"{what} {number}: no 'response'")

    def _score(self, seen: set[str], target: Sequence[dict[str, Any]]) -> Evaluation:
        losses = []
        for example in target:
            words = example["response"].split() or [""]
            losses.append(sum(w not in seen for w in words) / len(words))
        return Evaluation(sum(losses) / len(losses), len(losses), per_example=tuple(losses))

    def evaluate(self, target, *, progress, cancel):
        self._check(target, "target example")
        cancel.raise_if_cancelled()
        return self._score(set(), target)

    def train(self, examples, target, *, seed, progress, cancel):
        self._check(examples, "example")
        self._check(target, "target example")
        cancel.raise_if_cancelled()
        seen: set[str] = set()
        for step in range(self.steps):
            cancel.raise_if_cancelled()
            seen.update(examples[step % len(examples)]["response"].split())
            progress.update(step + 1, self.steps)
        outcome = self._score(seen, target)
        return TrainingOutcome(outcome, self.steps, self.steps, 0.5, 0.0)

    def estimate(self, n_examples, n_target, sample):
        return TrainingCost(1e-6 * (n_examples + n_target), 0.0, "1 us per example")


class CarriesState(Counting):
    """Remembers what earlier runs saw: the second run differs from the first."""

    def train(self, examples, target, *, seed, progress, cancel):
        outcome = super().train(examples, target, seed=seed, progress=progress, cancel=cancel)
        self.__dict__["runs"] = self.__dict__.get("runs", 0) + 1
        return TrainingOutcome(
            outcome.evaluation, outcome.steps, outcome.examples_seen, 1 / self.runs, 0.0
        )


class IgnoresCancel(Counting):
    def evaluate(self, target, *, progress, cancel):
        return self._score(set(), target)


class NoWeights(Counting):
    def evaluate(self, target, *, progress, cancel):
        self._check(target, "target example")
        raise PluginError("trainer model 'nowhere' could not be loaded")


def test_a_valid_trainer_passes() -> None:
    check_trainer(Counting, live=True)


@pytest.mark.parametrize(
    ("cls", "failing"),
    [(CarriesState, "check_trainer_seeded"), (IgnoresCancel, "check_trainer_cancel")],
)
def test_a_broken_trainer_fails_the_check_it_breaks(cls: type, failing: str) -> None:
    with pytest.raises(AssertionError, match=failing):
        check_trainer(cls)


def test_no_weights_skips_the_live_checks_with_a_warning_unless_live() -> None:
    with pytest.warns(UserWarning, match="training checks skipped"):
        check_trainer(NoWeights)
    with pytest.raises(AssertionError, match="PluginError with live=True"):
        check_trainer(NoWeights, live=True)


@pytest.mark.parametrize(
    ("result", "problem"),
    [
        (Evaluation(1.0, 2, accuracy=0.5, checked=0), "accuracy is None exactly when"),
        (Evaluation(1.0, 2, accuracy=None, checked=1), "accuracy is None exactly when"),
        (Evaluation(float("nan"), 2), "loss = nan"),
        (Evaluation(1.0, 3), "3 examples for 2 target examples"),
        (Evaluation(1.0, 2, per_example=(1.0,)), "per_example of length 1"),
        (Evaluation(1.0, 2, accuracy=1.5, checked=2), "a share in [0, 1]"),
        (TrainingOutcome(Evaluation(1.0, 2), 0, 1, 1.0, 0.0), "steps = 0"),
        (TrainingOutcome(Evaluation(1.0, 2), 1, 1, float("inf"), 0.0), "train_loss = inf"),
        ("text", "not an Evaluation or a TrainingOutcome"),
    ],
)
def test_result_problems_name_what_is_wrong(result: Any, problem: str) -> None:
    found = result_problem("trainer", result, rows=2)
    assert found is not None and problem in found
    assert result_problem("trainer", Evaluation(1.0, 2, per_example=(1.0, 1.0)), rows=2) is None
