"""Checks of generators: contributions that complete chat prompts (API 1.4).

Four checks need no model or server (``model_id``, ``describe``, no prompts, a cancelled
token). The others call :meth:`~vendiscope.api.Generator.generate` on short prompts with a
small ``max_new_tokens`` (option ``max_new_tokens``, 8 by default, when the class takes that
parameter and ``params`` does not set it). When that first call raises
:class:`~vendiscope.api.PluginError` (no weights, no server), those checks are skipped with a
warning, unless the option ``live=True`` asks for them (then they fail); ``live=False`` never
runs them. ``deterministic`` (default ``True``) asks for the same texts from the same prompts
and seed; pass ``False`` for a server whose seed is best effort.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any

from vendiscope.core.base.errors import PluginError
from vendiscope.core.base.jobs import Cancelled, CancelToken, NullProgress, RecordingProgress
from vendiscope.core.plugin_host.runtime import result_problem
from vendiscope.testing._subject import Subject, json_describe, live_checks, stable_model_id

PROMPTS = (
    ({"role": "user", "content": "Write one short sentence about rivers."},),
    (
        {"role": "system", "content": "You answer in one word."},
        {"role": "user", "content": "Name a colour."},
    ),
    ({"role": "user", "content": "Ünïcödé ✓ 漢字: repeat the last word."},),
)


def _prompts(subject: Subject) -> list[list[dict[str, str]]]:
    return [[dict(m) for m in p] for p in (subject.opts.get("prompts") or PROMPTS)]


def _live_instance(subject: Subject) -> Any:
    """One instance for the calls that generate, with a small ``max_new_tokens``."""
    if "generator" not in subject.cache:
        overrides: dict[str, Any] = {}
        accepted = inspect.signature(subject.cls.__init__).parameters
        if "max_new_tokens" in accepted and "max_new_tokens" not in subject.params:
            overrides["max_new_tokens"] = subject.opt("max_new_tokens", 8)
        subject.cache["generator"] = subject.fresh(**overrides)
    return subject.cache["generator"]


def _generate(subject: Subject, prompts: Any, *, seed: int = 0, **kwargs: Any) -> Any:
    kwargs.setdefault("progress", NullProgress())
    kwargs.setdefault("cancel", CancelToken())
    return _live_instance(subject).generate(prompts, seed=seed, **kwargs)


def _available(subject: Subject) -> bool:
    """Whether the live checks run: the generator works here, or ``live=True`` says it must."""

    def first_run() -> None:
        prompts = _prompts(subject)
        before = copy.deepcopy(prompts)
        subject.cache["first"] = _generate(subject, prompts, progress=RecordingProgress())
        subject.cache["unchanged"] = prompts == before

    return live_checks(subject, first_run, work="generation", kind="generator")


def check_generator_model_id(subject: Subject) -> None:
    """model_id is a non-empty string, the same on a fresh instance (no model or server used)."""
    stable_model_id(subject)


def check_generator_describe(subject: Subject) -> None:
    """describe() returns a JSON-serialisable dict."""
    json_describe(subject)


def check_generator_empty_input(subject: Subject) -> None:
    """No prompts give an empty list (without loading a model or calling a server)."""
    result = subject.instance().generate([], seed=0, progress=NullProgress(), cancel=CancelToken())
    assert result == [], f"{subject.name}.generate([]) returned {result!r}; expected []"


def check_generator_cancel(subject: Subject) -> None:
    """A cancelled token stops the call with Cancelled, before any work."""
    cancel = CancelToken()
    cancel.cancel()
    try:
        subject.instance().generate(
            _prompts(subject), seed=0, progress=NullProgress(), cancel=cancel
        )
    except Cancelled:
        return
    raise AssertionError(
        f"{subject.name}.generate ignored a cancelled token; call cancel.raise_if_cancelled() "
        "before and between requests or batches"
    )


def check_generator_bad_prompt(subject: Subject) -> None:
    """A prompt that is not a list of chat messages raises ValueError naming it."""
    for bad in (["not a list of messages"], [[{"role": "user"}]]):
        try:
            subject.instance().generate(bad, seed=0, progress=NullProgress(), cancel=CancelToken())
        except ValueError as exc:
            assert str(exc).strip(), f"{subject.name}.generate({bad!r}): ValueError without text"
            continue
        except PluginError:
            continue  # it could not even start; the prompt was not the problem it reported
        raise AssertionError(
            f"{subject.name}.generate({bad!r}) did not raise ValueError; check each prompt "
            'is a list of {"role", "content"} messages'
        )


def check_generator_result(subject: Subject) -> None:
    """One Generation per prompt, in order: text (or an error), finish reason, tokens."""
    if not _available(subject):
        return
    prompts = _prompts(subject)
    result = subject.cache["first"]
    problem = result_problem("generator", result, rows=len(prompts))
    assert problem is None, f"{subject.name}.generate {problem}"
    assert any(g.text is not None for g in result), (
        f"{subject.name}.generate returned only errors: {[g.error for g in result]}"
    )


def check_generator_no_mutation(subject: Subject) -> None:
    """The prompts are left unchanged."""
    if not _available(subject):
        return
    assert subject.cache["unchanged"], f"{subject.name}.generate modified its prompts"


def check_generator_seeded(subject: Subject) -> None:
    """The same prompts and seed give the same texts (option ``deterministic``)."""
    if not subject.opt("deterministic", True) or not _available(subject):
        return
    first = [g.text for g in subject.cache["first"]]
    again = [g.text for g in _generate(subject, _prompts(subject), seed=0)]
    assert first == again, (
        f"{subject.name}.generate gave different texts for the same prompts and seed "
        f"({first!r} then {again!r}); seed the sampling from the seed argument, or pass "
        "deterministic=False to the kit for a server whose seed is best effort"
    )


GENERATOR = (
    check_generator_model_id,
    check_generator_describe,
    check_generator_empty_input,
    check_generator_cancel,
    check_generator_bad_prompt,
    check_generator_result,
    check_generator_no_mutation,
    check_generator_seeded,
)
