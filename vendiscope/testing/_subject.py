"""The contribution under test, the sample data the checks feed it, and assertion helpers."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vendiscope.core.plugin_host.registry import BASE_CLASSES

TEXTS = (
    "What is the capital of France?",
    "Paris is the capital of France.",
    "def add(a, b):\n    return a + b",
    "Ünïcödé, emoji ✓ and 漢字 in one line.",
    "A much longer text. " * 30,
    "ok",
)
RECORDS = (
    {"prompt": "What is 2 + 2?", "response": "2 + 2 = 4."},
    {"prompt": "Name a prime number larger than ten.", "response": "Eleven."},
    {"prompt": "Translate 'bonjour' into English.", "response": "Hello."},
    {"text": "The river floods every spring; the town built a levee."},
)
ROWS = (
    {"prompt": "What is 2 + 2?", "response": "4", "source": "math"},
    {"prompt": 'Quote "this", please', "response": "a, b; c\tTAB", "source": "quotes"},
    {"prompt": "Two\nlines", "response": "Ünïcödé ✓ 漢字", "source": "unicode"},
)


@dataclass
class Subject:
    """What a check needs: the kind, the class, how to make an instance, the options.

    Given a class, instances are made with ``opts["params"]``; given an instance, that
    instance is used (and :meth:`fresh` returns it too).
    """

    kind: str
    cls: type
    given: Any = None
    opts: dict[str, Any] = field(default_factory=dict)
    _instance: Any = None
    cache: dict[str, Any] = field(default_factory=dict)
    """What checks of one kind share beyond the instance (e.g. a generator's first result)."""

    @classmethod
    def of(cls, kind: str, obj: Any, opts: dict[str, Any]) -> Subject:
        if kind not in BASE_CLASSES:
            raise ValueError(f"unknown kind '{kind}'; expected one of {', '.join(BASE_CLASSES)}")
        if isinstance(obj, Subject):
            return obj
        if inspect.isclass(obj):
            return cls(kind, obj, None, dict(opts))
        return cls(kind, type(obj), obj, dict(opts))

    @property
    def name(self) -> str:
        return self.opts.get("name") or self.cls.__name__

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.opts.get("params") or {})

    def instance(self) -> Any:
        """One shared instance (models load once for all checks)."""
        if self.given is not None:
            return self.given
        if self._instance is None:
            self._instance = self.fresh()
        return self._instance

    def fresh(self, **overrides: Any) -> Any:
        """A new instance with the same parameters (the given instance when there is one)."""
        if self.given is not None:
            return self.given
        try:
            return self.cls(**{**self.params, **overrides})
        except Exception as exc:
            raise AssertionError(
                f"{self.name}({_kwargs({**self.params, **overrides})}) raised "
                f"{type(exc).__name__}: {exc}"
            ) from exc

    def opt(self, key: str, default: Any) -> Any:
        return self.opts.get(key, default)

    # sample data ------------------------------------------------------------------
    def vectors(self, n: int | None = None, seed: int = 0) -> Any:
        import numpy as np

        given = self.opts.get("vectors")
        if given is not None and n is None:
            return np.array(given, copy=True)
        n = self.opt("n", 24) if n is None else n
        dim = self.opt("dim", 8)
        rng = np.random.default_rng(seed)
        centres = rng.normal(size=(4, dim))
        rows = centres[rng.integers(0, 4, size=n)] + 0.5 * rng.normal(size=(n, dim))
        return rows.astype(np.float32)

    def texts(self) -> list[str]:
        return list(self.opts.get("texts") or TEXTS)

    def records(self) -> list[dict[str, str | None]]:
        return [dict(r) for r in (self.opts.get("records") or RECORDS)]

    def rows(self) -> list[dict[str, Any]]:
        return copy.deepcopy(list(self.opts.get("rows") or ROWS))


def _kwargs(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items())


def value_error(call: Callable[[], Any], what: str) -> None:
    """``call()`` must raise ValueError with a message; ``what`` describes the input."""
    try:
        call()
    except ValueError as exc:
        if not str(exc).strip():
            raise AssertionError(f"{what}: raised ValueError without a message") from exc
        return
    except AssertionError:
        raise
    except Exception as exc:
        raise AssertionError(
            f"{what}: raised {type(exc).__name__} ({exc}); expected ValueError with a message"
        ) from exc
    raise AssertionError(f"{what}: returned normally; expected ValueError with a message")


def result_or_value_error(call: Callable[[], Any], what: str) -> Any:
    """``call()``'s result, or ``None`` when it raised ValueError with a message."""
    try:
        return call()
    except ValueError as exc:
        if not str(exc).strip():
            raise AssertionError(f"{what}: raised ValueError without a message") from exc
        return None
    except AssertionError:
        raise
    except Exception as exc:
        raise AssertionError(
            f"{what}: raised {type(exc).__name__} ({exc}); expected a result or a "
            "ValueError with a message"
        ) from exc


def same_structure(before: Any, after: Any) -> bool:
    """Deep equality that understands NumPy arrays (for the no-mutation checks)."""
    import numpy as np

    if isinstance(before, np.ndarray) or isinstance(after, np.ndarray):
        return (
            isinstance(before, np.ndarray)
            and isinstance(after, np.ndarray)
            and before.shape == after.shape
            and before.dtype == after.dtype
            and bool(np.array_equal(before, after, equal_nan=True))
        )
    if isinstance(before, dict) and isinstance(after, dict):
        return before.keys() == after.keys() and all(
            same_structure(before[k], after[k]) for k in before
        )
    if isinstance(before, (list, tuple)) and isinstance(after, (list, tuple)):
        return (
            type(before) is type(after)
            and len(before) == len(after)
            and all(same_structure(a, b) for a, b in zip(before, after, strict=True))
        )
    return bool(before == after)


def stable_model_id(subject: Subject) -> None:
    """``model_id`` is a non-empty string, the same on a fresh instance with the same params."""
    first = subject.instance().model_id
    assert isinstance(first, str) and first.strip(), (
        f"{subject.name}.model_id is {first!r}; expected a non-empty string"
    )
    other = subject.fresh().model_id
    assert other == first, (
        f"{subject.name}.model_id differs between two instances with the same parameters: "
        f"{first!r} and {other!r}"
    )


def json_describe(subject: Subject) -> None:
    """``describe()`` returns a JSON-serialisable dict."""
    import json

    facts = subject.instance().describe()
    assert isinstance(facts, dict), (
        f"{subject.name}.describe() returned {type(facts).__name__}, not a dict"
    )
    try:
        json.dumps(facts)
    except (TypeError, ValueError) as exc:
        raise AssertionError(f"{subject.name}.describe() is not JSON-serialisable: {exc}") from None


def live_checks(subject: Subject, first_run: Callable[[], None], *, work: str, kind: str) -> bool:
    """Whether a kit's live checks run: ``first_run`` works here, or ``live=True`` says it must.

    ``first_run`` does the first real call and keeps what the checks read in ``subject.cache``;
    it runs once per subject. A :class:`PluginError` from it (no weights, no server) skips the
    live checks with a warning, or fails them when the author passed ``live=True``.
    """
    import warnings

    from vendiscope.core.base.errors import PluginError

    live = subject.opt("live", None)
    if live is False:
        return False
    if "unavailable" not in subject.cache:
        try:
            first_run()
            subject.cache["unavailable"] = None
        except PluginError as exc:
            if live:
                raise AssertionError(
                    f"{subject.name} raised PluginError with live=True: {exc}"
                ) from exc
            subject.cache["unavailable"] = str(exc)
            warnings.warn(
                f"{subject.name}: {work} checks skipped, the {kind} cannot work here: {exc}",
                stacklevel=3,
            )
    return subject.cache["unavailable"] is None
