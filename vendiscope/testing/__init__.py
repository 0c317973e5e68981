"""The conformance kit: check that a contribution follows the plugin conventions.

Like scikit-learn's ``check_estimator``: run it on your plugin in its own tests. Each check is
a function that raises ``AssertionError`` with a readable message. ::

    from vendiscope.testing import check_contribution, parametrize_with_checks
    from my_plugin.metric import Coherence

    def test_conforms():                      # all checks in one test
        check_contribution("metric", Coherence)

    @parametrize_with_checks("metric", Coherence)   # one test per check
    def test_check(check):
        check()

Pass a class (instances are made with ``params=``) or a ready instance. What is checked:

every kind
    subclasses its interface; ``__init__`` parameters have defaults and are kept as
    attributes of the same name; methods take the keywords jobs pass (``progress``,
    ``cancel``, ``quality``, ``schema``); :func:`~vendiscope.api.describe_params` reads the
    parameters and each default fits its declared type, range and choices.
metric
    a :class:`~vendiscope.api.MetricResult` with a finite value and ``(n,)`` per-record
    scores, on float32 and float64; deterministic; inputs unchanged; invariant under a
    permutation of the rows (per-record scores move with their rows); no rows, a 1-D array
    or wrong-length quality raise ``ValueError``; one or two rows and quality weights give a
    result or ``ValueError``.
selector
    ``k`` unique valid indices; ``k = n`` works, ``k > n`` and ``k < 0`` raise ``ValueError``;
    deterministic under its seed; inputs unchanged; no rows raise ``ValueError``; a cancelled
    token raises ``Cancelled``.
embedder, featurizer
    an ``(n, dim)`` float32 array of finite values; ``model_id`` stable; deterministic and a
    row independent of the other inputs; inputs unchanged; no inputs give ``(0, dim)`` or
    ``ValueError``; a cancelled token raises ``Cancelled``.
importer (give ``sample=PATH``, optionally ``expected=ROWS``, or ``exporter=CLASS``)
    ``inspect`` gives a ``SourceInfo``; ``read`` streams numbered rows (the expected ones);
    deterministic; a missing path raises ``InputError``; an empty file gives no rows or
    ``InputError``; with ``exporter=`` rows round-trip.
exporter (optionally ``importer=CLASS``, ``rows=[...]``)
    ``write`` consumes an iterator and returns the count; the destination is a file or a
    folder as declared; rows unchanged; no rows give 0 or an error; with ``importer=`` the
    rows read back unchanged.
generator (optionally ``prompts=[...]``, ``max_new_tokens``, ``live``, ``deterministic``)
    ``model_id`` a stable non-empty string and ``describe()`` JSON-serialisable, without
    loading a model or calling a server; no prompts give ``[]``; a cancelled token raises
    ``Cancelled``; a malformed prompt raises ``ValueError``. Then, with a small
    ``max_new_tokens`` (8): one :class:`~vendiscope.api.Generation` per prompt (text or
    error, finish reason, tokens); prompts unchanged; the same prompts and seed give the
    same texts (``deterministic=False`` skips this, for servers whose seed is best effort).
    A generator that raises :class:`~vendiscope.api.PluginError` on its first call (no
    weights, no server) has these generation checks skipped with a warning, unless
    ``live=True`` (then they fail); ``live=False`` never runs them.
trainer (optionally ``examples=[...]``, ``target=[...]``, ``steps``, ``max_new_tokens``, ``live``,
``atol``)
    ``model_id`` a stable non-empty string and ``describe()`` JSON-serialisable, without
    loading a model; no examples or no target raise ``ValueError``, and so does an example
    without a ``"response"`` (naming its index and the field); a cancelled token raises
    ``Cancelled`` from ``train`` and ``evaluate``. Then, with a short run (``steps=2``,
    ``max_new_tokens=8``): ``evaluate`` and ``train`` give a valid
    :class:`~vendiscope.api.Evaluation` / :class:`~vendiscope.api.TrainingOutcome` of every
    target example (JSON details, progress reported); inputs unchanged; a second run with
    the same seed gives the same losses (within ``atol``, 1e-6) and accuracy;
    ``estimate`` gives a :class:`~vendiscope.api.TrainingCost`. A trainer that raises
    :class:`~vendiscope.api.PluginError` on its first call (no weights) has these checks
    skipped with a warning, unless ``live=True``.
view (optionally ``data={...}`` or a function returning it)
    ``build`` returns a valid, JSON-serialisable chart description
    (:func:`~vendiscope.api.validate_chart`) for a small sample project (dataset ``sample``:
    24 records from three sources, an embedding vector set and a Vendi score), the same twice
    and from a fresh instance; the data unchanged; ``build({})`` raises ``ValueError``.

Options (``**opts``): ``params`` (for a class), ``n``/``dim``/``vectors`` (sample matrix),
``k`` (selector budget), ``rtol``/``atol`` (tolerances), ``texts``, ``records``, ``rows``,
``sample``, ``expected``, ``exporter``, ``importer``, ``schema``, ``data``, ``prompts``,
``max_new_tokens``, ``live``, ``deterministic``, ``examples``, ``target``, ``steps``, ``name``
(shown in messages).

:func:`sample_project` makes the small project the view checks use, for your own view tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from vendiscope.testing._common import (
    COMMON,
    check_interface,
    check_params_describable,
    check_params_kept_as_attributes,
    check_signatures,
)
from vendiscope.testing._generators import GENERATOR
from vendiscope.testing._io import EXPORTER, IMPORTER
from vendiscope.testing._models import VECTORS
from vendiscope.testing._signals import SIGNAL
from vendiscope.testing._subject import Subject
from vendiscope.testing._trainers import TRAINER
from vendiscope.testing._vectors import METRIC, SELECTOR
from vendiscope.testing._views import VIEW
from vendiscope.testing.sample import sample_project

CHECKS: dict[str, tuple[Callable[[Subject], None], ...]] = {
    "importer": IMPORTER,
    "exporter": EXPORTER,
    "embedder": VECTORS,
    "featurizer": VECTORS,
    "metric": METRIC,
    "selector": SELECTOR,
    "view": VIEW,
    "generator": GENERATOR,
    "trainer": TRAINER,
    "signal": SIGNAL,
}
"""The kind-specific checks (the common ones, :data:`COMMON`, run first)."""


def iter_checks(kind: str, obj: Any, **opts: Any) -> Iterator[tuple[str, Callable[[], None]]]:
    """``(name, check)`` pairs for ``obj``; each ``check()`` raises AssertionError on failure.

    The checks share one instance, so a model is loaded once.
    """
    subject = Subject.of(kind, obj, opts)
    interface_only = not issubclass(subject.cls, _base(kind))
    for check in (*COMMON, *CHECKS[kind]):
        if interface_only and check is not check_interface:
            continue  # nothing else makes sense for a class of the wrong kind
        yield check.__name__, partial(_run, check, subject)


def _run(check: Callable[[Subject], None], subject: Subject) -> None:
    """Run one check; an unexpected exception from the contribution fails it readably."""
    try:
        check(subject)
    except AssertionError:
        raise
    except Exception as exc:
        raise AssertionError(
            f"{subject.name} raised {type(exc).__name__} during {check.__name__}: {exc}"
        ) from exc


def check_contribution(kind: str, obj: Any, **opts: Any) -> None:
    """Run every check of ``kind`` on ``obj`` (a class or an instance).

    Raises one ``AssertionError`` listing each failed check and its message.
    """
    failures: list[tuple[str, AssertionError]] = []
    for name, check in iter_checks(kind, obj, **opts):
        try:
            check()
        except AssertionError as exc:
            failures.append((name, exc))
    if failures:
        lines = "\n".join(f"- {name}: {exc}" for name, exc in failures)
        total = len(COMMON) + len(CHECKS[kind])
        raise AssertionError(
            f"{len(failures)} of {total} conformance checks failed:\n{lines}"
        ) from failures[0][1]


def parametrize_with_checks(kind: str, obj: Any, **opts: Any) -> Any:
    """A ``pytest.mark.parametrize("check", ...)`` with one case per check, named by check.

    ::

        @parametrize_with_checks("selector", MySelector, params={"seed": 0})
        def test_conformance(check):
            check()
    """
    import pytest

    pairs = list(iter_checks(kind, obj, **opts))
    return pytest.mark.parametrize("check", [c for _, c in pairs], ids=[n for n, _ in pairs])


def check_registered(kind: str, name: str, *, registry: Any = None, **opts: Any) -> None:
    """Load contribution ``kind:name`` through the plugin registry (as the app does), check it.

    ``registry`` defaults to the installed plugins (entry points and plugin files).
    """
    from vendiscope.core.plugin_host.registry import default_registry

    registry = registry or default_registry()
    cls = registry.load(kind, name)
    check_contribution(kind, cls, **{"name": f"{kind} '{name}'", **opts})


def check_importer(obj: Any, **opts: Any) -> None:
    """:func:`check_contribution` for an importer (give ``sample=PATH`` or ``exporter=``)."""
    check_contribution("importer", obj, **opts)


def check_exporter(obj: Any, **opts: Any) -> None:
    """:func:`check_contribution` for an exporter (``importer=`` adds the round trip)."""
    check_contribution("exporter", obj, **opts)


def check_embedder(obj: Any, **opts: Any) -> None:
    """:func:`check_contribution` for an embedder."""
    check_contribution("embedder", obj, **opts)


def check_featurizer(obj: Any, **opts: Any) -> None:
    """:func:`check_contribution` for a featurizer."""
    check_contribution("featurizer", obj, **opts)


def check_metric(obj: Any, **opts: Any) -> None:
    """:func:`check_contribution` for a metric."""
    check_contribution("metric", obj, **opts)


def check_selector(obj: Any, **opts: Any) -> None:
    """:func:`check_contribution` for a selector."""
    check_contribution("selector", obj, **opts)


def check_view(obj: Any, **opts: Any) -> None:
    """:func:`check_contribution` for a view."""
    check_contribution("view", obj, **opts)


def check_generator(obj: Any, **opts: Any) -> None:
    """:func:`check_contribution` for a generator (``live=True`` when it must be reachable)."""
    check_contribution("generator", obj, **opts)


def check_signal(obj: Any, **opts: Any) -> None:
    """:func:`check_contribution` for a signal (``target_records=`` for one that compares
    with a target; default: the sample records)."""
    check_contribution("signal", obj, **opts)


def check_trainer(obj: Any, **opts: Any) -> None:
    """:func:`check_contribution` for a trainer (``live=True`` when its model must load)."""
    check_contribution("trainer", obj, **opts)


def _base(kind: str) -> type:
    from vendiscope.core.plugin_host.registry import BASE_CLASSES

    return BASE_CLASSES[kind]


__all__ = [
    "CHECKS",
    "COMMON",
    "check_contribution",
    "check_embedder",
    "check_exporter",
    "check_featurizer",
    "check_generator",
    "check_importer",
    "check_interface",
    "check_metric",
    "check_params_describable",
    "check_params_kept_as_attributes",
    "check_registered",
    "check_selector",
    "check_signal",
    "check_signatures",
    "check_trainer",
    "check_view",
    "iter_checks",
    "parametrize_with_checks",
    "sample_project",
]
