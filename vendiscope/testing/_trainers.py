"""Checks of trainers: contributions that fine-tune a model on a subset and score it (API 1.5).

Five checks need no model (``model_id``, ``describe``, no examples or target, a bad example,
a cancelled token). The others call :meth:`~vendiscope.api.Trainer.evaluate`,
:meth:`~vendiscope.api.Trainer.train` and :meth:`~vendiscope.api.Trainer.estimate` on a few
short examples, with a short run (``steps=2``, ``max_new_tokens=8`` when the class takes those
parameters and ``params`` does not set them). When the first call raises
:class:`~vendiscope.api.PluginError` (no weights), those checks are skipped with a warning,
unless the option ``live=True`` asks for them (then they fail); ``live=False`` never runs them.
Options ``examples`` and ``target`` replace the sample data; ``atol`` (``1e-6``) is how close
two runs with the same seed must be.
"""

from __future__ import annotations

import copy
import inspect
import json
import math
from typing import Any

from vendiscope.core.base.errors import PluginError
from vendiscope.core.base.jobs import Cancelled, CancelToken, NullProgress, RecordingProgress
from vendiscope.core.plugin_host.interfaces import TrainingCost
from vendiscope.core.plugin_host.runtime import result_problem
from vendiscope.testing._subject import (
    Subject,
    json_describe,
    live_checks,
    stable_model_id,
    value_error,
)

EXAMPLES = (
    {"prompt": "What is 2 + 2?", "response": "2 + 2 = 4. The final answer is 4", "answer": "4"},
    {"prompt": "Name a colour.", "response": "Blue."},
    {"prompt": "Is the sky green? Answer yes or no.", "response": "no", "answer": "no"},
    {"prompt": "Ünïcödé ✓ 漢字: repeat the last word.", "response": "漢字"},
)
TARGET = (
    {"prompt": "What is 3 + 4?", "response": "3 + 4 = 7. The final answer is 7", "answer": "7"},
    {
        "prompt": "Is water wet? Answer yes or no.",
        "response": "yes",
        "answer": "yes",
        "choices": ["yes", "no"],
    },
    {"prompt": "Name a fruit.", "response": "An apple."},
)
_SHORT = {"steps": 2, "max_new_tokens": 8}


def _examples(subject: Subject) -> list[dict[str, Any]]:
    return copy.deepcopy(list(subject.opts.get("examples") or EXAMPLES))


def _target(subject: Subject) -> list[dict[str, Any]]:
    return copy.deepcopy(list(subject.opts.get("target") or TARGET))


def _calls() -> dict[str, Any]:
    return {"progress": NullProgress(), "cancel": CancelToken()}


def _live_instance(subject: Subject) -> Any:
    """One instance for the calls that train, with a short run."""
    if "trainer" not in subject.cache:
        accepted = inspect.signature(subject.cls.__init__).parameters
        overrides = {
            name: subject.opt(name, value)
            for name, value in _SHORT.items()
            if name in accepted and name not in subject.params
        }
        subject.cache["trainer"] = subject.fresh(**overrides)
    return subject.cache["trainer"]


def _available(subject: Subject) -> bool:
    """Whether the live checks run: the trainer works here, or ``live=True`` says it must."""

    def first_run() -> None:
        examples, target = _examples(subject), _target(subject)
        before = copy.deepcopy((examples, target))
        trainer = _live_instance(subject)
        subject.cache["baseline"] = trainer.evaluate(target, **_calls())
        progress = RecordingProgress()
        subject.cache["first"] = trainer.train(
            examples, target, seed=0, progress=progress, cancel=CancelToken()
        )
        subject.cache["progress"] = progress
        subject.cache["unchanged"] = (examples, target) == before

    return live_checks(subject, first_run, work="training", kind="trainer")


def check_trainer_model_id(subject: Subject) -> None:
    """model_id is a non-empty string, the same on a fresh instance (no model loaded)."""
    stable_model_id(subject)


def check_trainer_describe(subject: Subject) -> None:
    """describe() returns a JSON-serialisable dict."""
    json_describe(subject)


def check_trainer_empty_input(subject: Subject) -> None:
    """No examples or no target raise ValueError (before any model is loaded)."""
    trainer = subject.instance()
    examples, target = _examples(subject), _target(subject)
    value_error(
        lambda: trainer.train([], target, seed=0, **_calls()), f"{subject.name}.train([], target)"
    )
    value_error(
        lambda: trainer.train(examples, [], seed=0, **_calls()),
        f"{subject.name}.train(examples, [])",
    )
    value_error(lambda: trainer.evaluate([], **_calls()), f"{subject.name}.evaluate([])")


def check_trainer_bad_example(subject: Subject) -> None:
    """An example without a response raises ValueError naming its index and the field."""
    trainer = subject.instance()
    examples, target = _examples(subject), _target(subject)
    bad = [*examples[:1], {"prompt": "Where is the answer?"}]
    try:
        trainer.train(bad, target, seed=0, **_calls())
    except ValueError as exc:
        message = str(exc)
        assert "1" in message and "response" in message, (
            f"{subject.name}.train: ValueError {message!r} does not name example 1 and its "
            "missing field 'response' (e.g. \"example 1: no 'response'\")"
        )
        return
    except PluginError:
        return  # it could not even start; the example was not the problem it reported
    raise AssertionError(f"{subject.name}.train accepted an example without a 'response'")


def check_trainer_cancel(subject: Subject) -> None:
    """A cancelled token stops train() and evaluate() with Cancelled."""
    trainer = subject.instance()
    for name, call in (
        ("train", lambda c: trainer.train(_examples(subject), _target(subject), seed=0, **c)),
        ("evaluate", lambda c: trainer.evaluate(_target(subject), **c)),
    ):
        cancel = CancelToken()
        cancel.cancel()
        try:
            call({"progress": NullProgress(), "cancel": cancel})
        except Cancelled:
            continue
        except PluginError:
            continue  # no model here; cancellation cannot be observed
        raise AssertionError(
            f"{subject.name}.{name} ignored a cancelled token; call cancel.raise_if_cancelled() "
            "before and between batches"
        )


def check_trainer_evaluation(subject: Subject) -> None:
    """evaluate() gives a valid Evaluation of every target example."""
    if not _available(subject):
        return
    problem = result_problem("trainer", subject.cache["baseline"], rows=len(_target(subject)))
    assert problem is None, f"{subject.name}.evaluate {problem}"


def check_trainer_outcome(subject: Subject) -> None:
    """train() gives a valid TrainingOutcome (JSON details), reporting progress."""
    if not _available(subject):
        return
    outcome = subject.cache["first"]
    problem = result_problem("trainer", outcome, rows=len(_target(subject)))
    assert problem is None, f"{subject.name}.train {problem}"
    try:
        json.dumps(outcome.details)
    except (TypeError, ValueError) as exc:
        raise AssertionError(
            f"{subject.name}.train: details not JSON-serialisable: {exc}"
        ) from None
    assert subject.cache["progress"].updates, f"{subject.name}.train never reported progress"


def check_trainer_no_mutation(subject: Subject) -> None:
    """The examples and target are left unchanged."""
    if not _available(subject):
        return
    assert subject.cache["unchanged"], f"{subject.name}.train modified its examples or target"


def check_trainer_seeded(subject: Subject) -> None:
    """A second run with the same seed gives the same outcome: no state carries over."""
    if not _available(subject):
        return
    first = subject.cache["first"]
    again = _live_instance(subject).train(_examples(subject), _target(subject), seed=0, **_calls())
    atol = subject.opt("atol", 1e-6)
    pairs = [
        ("train_loss", first.train_loss, again.train_loss),
        ("evaluation.loss", first.evaluation.loss, again.evaluation.loss),
        *(
            (f"evaluation.per_example[{i}]", a, b)
            for i, (a, b) in enumerate(
                zip(first.evaluation.per_example, again.evaluation.per_example, strict=False)
            )
        ),
    ]
    for name, a, b in pairs:
        assert math.isclose(a, b, rel_tol=0, abs_tol=atol), (
            f"{subject.name}.train gave {name} = {a!r} then {b!r} for the same examples and "
            "seed; start every run from the same untrained model and seed its order"
        )
    assert first.evaluation.accuracy == again.evaluation.accuracy, (
        f"{subject.name}.train: accuracy {first.evaluation.accuracy} then "
        f"{again.evaluation.accuracy} for the same examples and seed"
    )


def check_trainer_estimate(subject: Subject) -> None:
    """estimate() gives a TrainingCost with a positive time per run and a one-line detail."""
    if not _available(subject):
        return
    cost = _live_instance(subject).estimate(100, 20, _examples(subject))
    assert isinstance(cost, TrainingCost), (
        f"{subject.name}.estimate returned {type(cost).__name__}, not a TrainingCost"
    )
    for name in ("seconds_per_run", "one_time_seconds"):
        value = getattr(cost, name)
        assert isinstance(value, int | float) and math.isfinite(value) and value >= 0, (
            f"{subject.name}.estimate: {name} = {value!r}; expected a finite number >= 0"
        )
    assert cost.seconds_per_run > 0, f"{subject.name}.estimate: seconds_per_run is 0"
    assert isinstance(cost.detail, str) and cost.detail.strip() and "\n" not in cost.detail, (
        f"{subject.name}.estimate: detail {cost.detail!r} is not one line of text"
    )


TRAINER = (
    check_trainer_model_id,
    check_trainer_describe,
    check_trainer_empty_input,
    check_trainer_bad_example,
    check_trainer_cancel,
    check_trainer_evaluation,
    check_trainer_outcome,
    check_trainer_no_mutation,
    check_trainer_seeded,
    check_trainer_estimate,
)
