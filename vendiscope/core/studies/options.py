"""What a study is asked to do, checked once, in one place (CLI, API and GUI share it).

Its defaults are declared here and in :class:`~vendiscope.core.studies.algorithms.spec.PlanSpec`
only;
the CLI and the Python API read them at start-up, so this module imports no numpy.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from vendiscope.core.studies.algorithms.spec import PlanSpec

RUN_KIND = "study"
DEFAULT_TRAINER = "causal-lm"
DEFAULT_SIZE = 500
"""Rows per training subset when none is said (the CLI, the Python API; the app proposes a
quarter of the pool, at most this)."""
BUILTIN_METRICS = {
    "g-vendi": "G-Vendi",
    "embedding-vendi": "embedding-Vendi",
    "ngram": "n-gram diversity",
}
"""The metrics a study computes without a plugin: the Vendi score of the subset's gradient
rows, of its embedding rows, and the lexical baseline (distinct 1- to 4-grams)."""
DEFAULT_METRICS = tuple(BUILTIN_METRICS)
DEFAULT_TARGET_ROWS = 500
"""Target records each model is scored on by default: every run scores all of them, so a
large target makes every run slow; 500 rows measure the loss well enough to rank subsets."""
GROWABLE = ("seeds", "random")
"""Settings a resumed study may raise: more seeds per subset, more random subsets (the
earlier random subsets stay the same, so their runs are kept)."""
OPERATIONAL = ("force", "name")
OPERATIONAL_TRAINER_PARAMS = ("device", "cache_mb", "cache_frozen")
"""Trainer settings that change how fast a run is, never its outcome."""


@dataclass(frozen=True)
class StudyOptions:
    """The settings of one study.

    Attributes
    ----------
    size
        Rows in every training subset.
    random, selectors, selector_draws, sources, duplicates, existing
        The plan of subsets (:class:`~vendiscope.core.studies.algorithms.plan.PlanSpec`): random
        draws,
        each selector's picks (``selector_draws`` seeds each), source-restricted subsets,
        duplicate-heavy controls, and the pool's own subsets by name.
    seeds
        Training runs per subset, each with its own seed (data order, initialisation).
    trainer, trainer_params
        The trainer plugin and its parameters.
    metrics
        What is scored per subset: names of :data:`BUILTIN_METRICS` or metric plugins (a
        plugin metric is computed on the gradient rows).
    target_rows
        Score on the first this many target records (default
        :data:`DEFAULT_TARGET_ROWS`; ``None``: all of them).
    pilot
        Subsets trained with two seeds first, to measure seed noise before the rest.
    force
        Go on when the pilot says subsets cannot be told apart from seed noise.
    vector_set, embedding_set
        The pool's gradient and embedding sets (default: the preferred complete ones).
    name
        The study's name (default ``study-N``); the same name resumes it.
    seed
        Seeds the plan and the training runs (run ``i`` of a subset uses ``seed + i``).
    """

    size: int
    random: int = PlanSpec.random  # the plan's defaults are the plan's own
    selectors: tuple[str, ...] = ()
    selector_draws: int = PlanSpec.selector_draws
    sources: int = PlanSpec.sources
    duplicates: int = PlanSpec.duplicates
    existing: tuple[str, ...] = ()
    seeds: int = 3
    trainer: str = DEFAULT_TRAINER
    trainer_params: dict[str, Any] = field(default_factory=dict)
    metrics: tuple[str, ...] = DEFAULT_METRICS
    target_rows: int | None = DEFAULT_TARGET_ROWS
    pilot: int = 4
    force: bool = False
    vector_set: str | None = None
    embedding_set: str | None = None
    name: str | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("selectors", "existing", "metrics"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        self.spec()  # the plan's own checks, naming the field
        _whole("seeds", self.seeds, 1)
        _whole("pilot", self.pilot, 2)
        if self.target_rows is not None:
            _whole("target_rows", self.target_rows, 1)
        if not self.metrics:
            raise ValueError("metrics: name at least one metric to compare")
        if len(set(self.metrics)) != len(self.metrics):
            raise ValueError(f"metrics: {list(self.metrics)} names a metric twice")
        if not isinstance(self.trainer_params, dict):
            raise ValueError("trainer_params must be a dict of parameter names to values")

    def spec(self) -> PlanSpec:
        """The plan's part of the options."""
        return PlanSpec(
            size=self.size,
            random=self.random,
            selectors=self.selectors,
            selector_draws=self.selector_draws,
            sources=self.sources,
            duplicates=self.duplicates,
            existing=self.existing,
            seed=self.seed,
        )

    def to_json(self) -> dict[str, Any]:
        """The options as recorded with the run (a resumed run must match them)."""
        data = asdict(self)
        for name in ("selectors", "existing", "metrics"):
            data[name] = list(data[name])
        return data


def comparable(options: dict[str, Any]) -> dict[str, Any]:
    """What a resumed study must share with the one it continues."""
    kept = {k: v for k, v in options.items() if k not in (*GROWABLE, *OPERATIONAL)}
    params = dict(kept.get("trainer_params") or {})
    kept["trainer_params"] = {
        k: v for k, v in params.items() if k not in OPERATIONAL_TRAINER_PARAMS
    }
    return kept


def _whole(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}; got {value!r}")
