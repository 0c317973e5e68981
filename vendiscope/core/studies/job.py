"""The study job: train a model on many subsets of a pool, score each on a target, and read
which diversity score predicts the outcome.

Before any training the job makes the plan (:mod:`.plan`), scores every subset by each metric
(:mod:`.scores`), measures the trainer on a few examples and records what the whole study will
cost (:mod:`.feasibility`). It then scores the untrained model on the target (the baseline),
trains the pilot — a few ordinary subsets, two seeds each — and reads the seed noise: a study
whose subsets cannot be told apart from seed noise with the planned seeds is refused, with the
numbers, unless forced. Then every remaining (subset, seed) run, seeds in the outer loop, so
that a study stopped early has one run of every subset. Each run's outcome is the
improvement of the target loss over the baseline (and of accuracy, where the target has
checkable answers); it is committed to the run's result at once, with the analysis
(:mod:`.analysis`) of everything so far. A killed or cancelled study resumes at its next run:
the same command again. Pool rows whose content is also in the target never enter a subset.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import Cancelled, CancelToken, NullProgress, Progress
from vendiscope.core.base.text import check_name
from vendiscope.core.metrics.subset_scoring import subset_positions
from vendiscope.core.plugin_host.registry import PluginRegistry, default_registry
from vendiscope.core.store.models import RunInfo
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import claim_run, finish_run, start_run, update_result
from vendiscope.core.store.runs import describe as describe_run
from vendiscope.core.studies.algorithms.analysis import analyse
from vendiscope.core.studies.algorithms.chart import outcome_table
from vendiscope.core.studies.algorithms.feasibility import (
    CheaperPlan,
    StudyCost,
    cheaper_plan,
    read_pilot,
    study_cost,
)
from vendiscope.core.studies.algorithms.plan import PlannedSubset, make_plan, plan_summary
from vendiscope.core.studies.examples import Examples, load_examples
from vendiscope.core.studies.options import RUN_KIND, StudyOptions, comparable
from vendiscope.core.studies.scores import score_subsets

if TYPE_CHECKING:
    from vendiscope.core.plugin_host.interfaces import Trainer

RunCallback = Callable[[dict[str, Any]], None]
NoteCallback = Callable[[str], None]
PLUGIN = "core:study"
SAMPLE = 4
"""Pool examples the trainer times itself on before the study starts."""


class StudyRefused(ProjectError):
    """The pilot says the study would rank seed noise (see :func:`read_pilot`)."""


@dataclass(frozen=True)
class StudyEstimate:
    """A study's plan and what it would cost here, before anything is trained."""

    plan: str
    subsets: int
    runs: int
    cost: StudyCost
    trainer: str
    target_rows: int
    checkable: int
    notes: list[str]

    @property
    def cheaper(self) -> CheaperPlan | None:
        """What would bring the study within a day (None: it fits in one)."""
        return cheaper_plan(self.cost, self.target_rows)

    def summary(self) -> dict[str, Any]:
        cheaper = self.cheaper
        return {
            "plan": self.plan,
            "subsets": self.subsets,
            "runs": self.runs,
            "cost": {**self.cost.to_json(), "text": self.cost.text},
            "trainer": self.trainer,
            "target_rows": self.target_rows,
            "checkable": self.checkable,
            "notes": list(self.notes),
            "longer_than_a_day": cheaper.to_json() if cheaper is not None else None,
        }


@dataclass(frozen=True)
class StudyReport:
    """How a study ended (or how far it got)."""

    name: str
    run_id: int
    pool: str
    target: str
    plan: str
    runs_done: int
    runs_total: int
    baseline: dict[str, Any]
    cost: dict[str, Any]
    pilot: dict[str, Any] | None
    analysis: dict[str, Any] | None
    analysis_ordinary: dict[str, Any] | None
    notes: list[str]
    stopped: str
    resumed_from: int
    seconds: float

    def summary(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "run_id": self.run_id,
            "pool": self.pool,
            "target": self.target,
            "plan": self.plan,
            "runs_done": self.runs_done,
            "runs_total": self.runs_total,
            "baseline": self.baseline,
            "cost": self.cost,
            "pilot": self.pilot,
            "analysis": self.analysis,
            "analysis_ordinary": self.analysis_ordinary,
            "notes": list(self.notes),
            "stopped": self.stopped,
            "resumed_from_run": self.resumed_from,
            "seconds": round(self.seconds, 3),
        }


# ----------------------------------------------------------------------------- the plan
@dataclass
class _Prepared:
    """What every study step needs: the examples, the plan, its scores, the trainer."""

    pool: Examples
    target: Examples
    plan: list[PlannedSubset]
    excluded: int
    trainer: Trainer


def _prepare(
    project: Project,
    pool: str,
    target: str,
    options: StudyOptions,
    registry: PluginRegistry,
    progress: Progress,
    cancel: CancelToken,
) -> _Prepared:
    if pool == target:
        raise ProjectError(
            f"the target must be held out from the pool; '{pool}' is both (import the held-out "
            "rows as a dataset of their own)"
        )
    progress.start(f"Reading '{pool}' and '{target}'", total=None)
    pool_examples = load_examples(project, pool)
    target_examples = load_examples(project, target, limit=options.target_rows, answers=True)
    progress.finish()
    cancel.raise_if_cancelled()
    in_target = set(target_examples.hashes)
    exclude = [i for i, h in enumerate(pool_examples.hashes) if h in in_target]
    existing = {name: subset_positions(project, pool, name) for name in options.existing}
    select = _selector(project, pool, options, registry, exclude, progress, cancel)
    try:
        plan = make_plan(
            options.spec(),
            n_pool=len(pool_examples.items),
            sources=pool_examples.sources,
            select=select if options.selectors else None,
            existing=existing,
            exclude=exclude,
        )
    except ValueError as exc:
        raise ProjectError(f"the study's plan: {exc}") from None
    trainer: Trainer = registry.create("trainer", options.trainer, **options.trainer_params)
    return _Prepared(pool_examples, target_examples, plan, len(exclude), trainer)


def _selector(
    project: Project,
    pool: str,
    options: StudyOptions,
    registry: PluginRegistry,
    exclude: Sequence[int],
    progress: Progress,
    cancel: CancelToken,
) -> Callable[[str, int, int], list[int]]:
    """``(selector, k, seed) -> positions``: a selector plugin run on the pool's gradients
    (:func:`vendiscope.core.selection.runner.run_selector`, as the selection job runs it;
    ``k`` is the plan's subset size, which :func:`.plan.make_plan` checks)."""
    from vendiscope.core.selection.runner import run_selector
    from vendiscope.core.store import vectors
    from vendiscope.core.vectors import resolve

    loaded: list[np.ndarray] = []  # the gradient rows, read at the first selection only

    def select(name: str, k: int, seed: int) -> list[int]:
        if not loaded:
            info = resolve.resolve(project, pool, options.vector_set, ("gradient", "feature"))
            loaded.append(vectors.load(project, pool, info.name))
        rows = loaded[0]
        allowed = np.setdiff1d(np.arange(len(rows)), np.asarray(exclude, dtype=np.int64))
        takes_seed = any(p.name == "seed" for p in registry.describe("selector", name))
        selector = registry.create("selector", name, **({"seed": seed} if takes_seed else {}))
        chosen = run_selector(registry, name, selector, rows[allowed], k, progress=progress,
                              cancel=cancel)  # fmt: skip
        return [int(allowed[i]) for i in chosen.indices]

    return select


def _tasks(plan: Sequence[PlannedSubset], seeds: int, pilot: int) -> list[tuple[int, int]]:
    """Every (subset, seed) run in order: the pilot's two seeds first, then seed by seed."""
    first = [(i, s) for i in _pilot_subsets(plan, pilot) for s in (0, 1)]
    rest = [(i, s) for s in range(seeds) for i in range(len(plan)) if (i, s) not in first]
    return first + rest


def _pilot_subsets(plan: Sequence[PlannedSubset], pilot: int) -> list[int]:
    """Up to ``pilot`` ordinary subsets (no duplicate-heavy control) spread over the plan."""
    ordinary = [i for i, s in enumerate(plan) if s.kind != "duplicates"]
    if len(ordinary) < 2:
        return []
    picks = np.unique(np.rint(np.linspace(0, len(ordinary) - 1, min(pilot, len(ordinary)))))
    return [ordinary[int(p)] for p in picks]


def _cost(prepared: _Prepared, options: StudyOptions, runs: int) -> StudyCost:
    sample = prepared.pool.items[:SAMPLE]
    found = prepared.trainer.estimate(options.size, len(prepared.target.items), sample)
    distinct = len({p for s in prepared.plan for p in s.positions})
    return study_cost(
        runs,
        seconds_per_run=found.seconds_per_run,
        one_time_seconds=found.one_time_seconds,
        n_examples=options.size,
        n_distinct=distinct,
        n_target=len(prepared.target.items),
        measured=found.detail,
    )


def estimate_study(
    project: Project,
    pool: str,
    target: str,
    options: StudyOptions,
    *,
    registry: PluginRegistry | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> StudyEstimate:
    """The plan and its cost on this machine (the trainer times itself); nothing is written."""
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    registry = registry or default_registry()
    prepared = _prepare(project, pool, target, options, registry, progress, cancel)
    runs = len(_tasks(prepared.plan, options.seeds, options.pilot))
    cancel.raise_if_cancelled()
    progress.start("Timing the trainer on a few examples (its model loads first)", total=None)
    cost = _cost(prepared, options, runs)
    progress.finish()
    cancel.raise_if_cancelled()
    return StudyEstimate(
        plan_summary(prepared.plan),
        len(prepared.plan),
        runs,
        cost,
        prepared.trainer.model_id,
        len(prepared.target.items),
        prepared.target.checkable,
        _plan_notes(prepared),
    )


def _plan_notes(prepared: _Prepared) -> list[str]:
    notes = []
    if prepared.excluded:
        notes.append(
            f"{prepared.excluded} pool rows are also in the target and never enter a subset"
        )
    return notes


# ----------------------------------------------------------------------------- the job
def run_study(
    project: Project,
    pool: str,
    target: str,
    options: StudyOptions,
    *,
    registry: PluginRegistry | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
    on_run: RunCallback | None = None,
    on_note: NoteCallback | None = None,
) -> StudyReport:
    """Run (or resume) the study; see the module docstring for what it does and writes.

    ``on_run`` is called with each training run's entry once it is committed, ``on_note``
    with each line worth telling the user: the plan, its cost, skipped metrics, the pilot's
    reading (the CLI prints them). Raises :class:`StudyRefused` when the pilot shows seed
    noise would swamp the study.
    """
    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    registry = registry or default_registry()
    previous = _resumable_run(project, pool, target, options)
    name = options.name or (previous.params["name"] if previous else _free_name(project, pool))
    options = replace(options, name=name)
    prepared = _prepare(project, pool, target, options, registry, progress, cancel)
    tasks = _tasks(prepared.plan, options.seeds, options.pilot)
    if previous is None:
        run_id = _start(project, pool, target, options)
        result: dict[str, Any] = {"name": name, "pool": pool, "target": target, "runs": []}
    else:
        run_id, result = previous.id, dict(previous.result or {})
        claim_run(project, run_id, describe_run(run_id, RUN_KIND, PLUGIN))
        _check_kept(result, prepared.plan)
    resumed_from = len(result.get("runs", []))
    try:
        study = _Study(project, run_id, result, options, prepared, tasks, registry, on_note)
        study.describe(progress, cancel)
        study.baseline(progress, cancel)
        stopped = study.train(progress, cancel, on_run)
    except BaseException as error:
        refused = isinstance(error, StudyRefused)
        cancelled = isinstance(error, Cancelled) or cancel.cancelled
        result["stopped"] = "refused" if refused else "cancelled" if cancelled else "failed"
        status = "cancelled" if cancelled else "failed"
        finish_run(project, run_id, status=status, result=result, error=str(error) or repr(error),
                   seconds=time.perf_counter() - started)  # fmt: skip
        raise
    result["stopped"] = stopped
    finish_run(
        project, run_id, status="complete", result=result, seconds=time.perf_counter() - started
    )
    return StudyReport(
        name,
        run_id,
        pool,
        target,
        result["plan"]["summary"],
        len(result["runs"]),
        len(tasks),
        result["baseline"],
        result["cost"],
        result.get("pilot"),
        result.get("analysis"),
        result.get("analysis_ordinary"),
        list(result.get("notes", [])),
        stopped,
        resumed_from,
        time.perf_counter() - started,
    )


class _Study:
    """One study's steps over its run result, each committed before the next begins."""

    def __init__(
        self,
        project: Project,
        run_id: int,
        result: dict[str, Any],
        options: StudyOptions,
        prepared: _Prepared,
        tasks: list[tuple[int, int]],
        registry: PluginRegistry,
        on_note: NoteCallback | None = None,
    ) -> None:
        self.project, self.run_id, self.result = project, run_id, result
        self.options, self.prepared, self.tasks = options, prepared, tasks
        self.registry = registry
        self.note = on_note or (lambda text: None)
        self.plan = prepared.plan
        self.trainer = prepared.trainer

    def commit(self) -> None:
        update_result(self.project, self.run_id, self.result)

    def describe(self, progress: Progress, cancel: CancelToken) -> None:
        """Plan, scores and cost: recomputed when the plan grew, else kept from before."""
        names = [s.name for s in self.plan]
        known = self.result.get("plan", {}).get("names")
        if known != names or "metrics" not in self.result:
            metrics, notes = score_subsets(
                self.project, self.options, self.plan, self.prepared.pool, self.registry,
                progress=progress, cancel=cancel,
            )  # fmt: skip
            self.result.update(metrics=metrics, notes=[*_plan_notes(self.prepared), *notes])
            self.result["plan"] = {
                "spec": self.options.spec().to_json(),
                "summary": plan_summary(self.plan),
                "names": names,
                "subsets": [s.to_json() for s in self.plan],
            }
        self.result.update(
            seeds=self.options.seeds,
            trainer=self.options.trainer,
            model=self.trainer.model_id,
            target_rows=len(self.prepared.target.items),
            checkable=self.prepared.target.checkable,
            runs_total=len(self.tasks),
        )
        if "cost" not in self.result or self.result["cost"].get("runs") != len(self.tasks):
            progress.start("Timing the trainer on a few examples", total=None)
            cost = _cost(self.prepared, self.options, len(self.tasks))
            progress.finish()
            self.result["cost"] = {**cost.to_json(), "text": cost.text}
        self.commit()
        done = len(self.result.get("runs", []))
        self.note(f"plan: {self.result['plan']['summary']}, {self.options.seeds} seeds each")
        self.note(f"cost: {self.result['cost']['text']} ({self.result['cost']['measured']})")
        if done:
            self.note(f"resuming: {done} of {len(self.tasks)} runs are done")
        for line in self.result.get("notes", []):
            self.note(line)

    def baseline(self, progress: Progress, cancel: CancelToken) -> None:
        if "baseline" in self.result:
            return
        found = self.trainer.evaluate(self.prepared.target.items, progress=progress, cancel=cancel)
        self.result["baseline"] = {
            "loss": float(found.loss),
            "accuracy": None if found.accuracy is None else float(found.accuracy),
            "n": int(found.n),
            "checked": int(found.checked),
        }
        self.result["trainer_details"] = self.trainer.describe()
        self.commit()

    def train(self, progress: Progress, cancel: CancelToken, on_run: RunCallback | None) -> str:
        done = {(r["subset"], r["seed"]) for r in self.result["runs"]}
        pilot = _pilot_subsets(self.plan, self.options.pilot)
        for number, (index, seed) in enumerate(self.tasks, 1):
            subset = self.plan[index]
            if (subset.name, seed) not in done:
                cancel.raise_if_cancelled()
                label = f"run {number}/{len(self.tasks)} ({subset.name}, seed {seed + 1})"
                entry = self._train_one(subset, seed, _Labelled(progress, label), cancel)
                entry["run"] = number
                self.result["runs"].append(entry)
                done.add((subset.name, seed))
                self._analyse()
                self.commit()
                if on_run is not None:
                    on_run(entry)
            if pilot and number == 2 * len(pilot):  # the pilot's runs are the first ones
                self._check_pilot(pilot)
        return "done"

    def _train_one(
        self, subset: PlannedSubset, seed: int, progress: Progress, cancel: CancelToken
    ) -> dict[str, Any]:
        examples = [self.prepared.pool.items[p] for p in subset.positions]
        train_seed = self.options.seed + seed
        outcome = self.trainer.train(
            examples, self.prepared.target.items, seed=train_seed, progress=progress,
            cancel=cancel,
        )  # fmt: skip
        base = self.result["baseline"]
        evaluation = outcome.evaluation
        accuracy = None if evaluation.accuracy is None else float(evaluation.accuracy)
        gain = None
        if accuracy is not None and base.get("accuracy") is not None:
            gain = accuracy - base["accuracy"]
        return {
            "subset": subset.name,
            "kind": subset.kind,
            "seed": seed,
            "train_seed": train_seed,
            "loss": float(evaluation.loss),
            "improvement": base["loss"] - float(evaluation.loss),
            "accuracy": accuracy,
            "accuracy_gain": gain,
            "train_loss": float(outcome.train_loss),
            "steps": int(outcome.steps),
            "examples_seen": int(outcome.examples_seen),
            "seconds": round(float(outcome.seconds), 3),
        }

    def _analyse(self) -> None:
        """The analysis of every run so far, per outcome; none before 3 subsets have one.

        With duplicate-heavy controls in the plan, ``analysis_ordinary`` reads the other
        subsets alone: the controls are low by construction and lift every metric's
        correlation, so this is the reading that matters inside ordinary data.
        """
        everything = list(range(len(self.plan)))
        self.result["analysis"] = self._analysis_of(everything)
        ordinary = [i for i, s in enumerate(self.plan) if s.kind != "duplicates"]
        controls = len(ordinary) < len(self.plan)
        self.result["analysis_ordinary"] = self._analysis_of(ordinary) if controls else None

    def _analysis_of(self, chosen: list[int]) -> dict[str, Any] | None:
        found: dict[str, Any] = {}
        names = [self.plan[i].name for i in chosen]
        metrics = self.result["metrics"].items()
        values = {m: np.asarray(e["values"])[chosen] for m, e in metrics}
        for outcome in ("improvement", "accuracy_gain"):
            table = outcome_table(self.result["runs"], names, outcome)
            if np.isfinite(table).any(axis=1).sum() >= 3:
                found[outcome] = analyse(values, table, seed=self.options.seed).to_json()
        return found or None

    def _check_pilot(self, pilot: list[int]) -> None:
        """Refuse to go on when the pilot says the planned seeds cannot beat seed noise."""
        names = [self.plan[i].name for i in pilot]
        table = outcome_table(self.result["runs"], names, "improvement")[:, :2]
        reading = read_pilot(table, self.options.seeds)
        forced = self.options.force or bool((self.result.get("pilot") or {}).get("forced"))
        self.result["pilot"] = {**reading.to_json(), "forced": forced}
        self.commit()
        anyway = forced and not reading.separable
        self.note(f"pilot: {reading.detail}" + (" (going on anyway: forced)" if anyway else ""))
        if not reading.separable and not forced:
            raise StudyRefused(
                f"the study stops after its pilot: {reading.detail}. Change the plan, or force "
                "it to go on (the pilot's runs are kept)"
            )


class _Labelled:
    """A progress that prefixes each stage with the run it belongs to."""

    def __init__(self, inner: Progress, label: str) -> None:
        self.inner, self.label = inner, label

    def start(self, description: str, total: float | None = None, unit: str = "it") -> None:
        self.inner.start(f"{self.label}: {description}", total, unit)

    def update(self, completed: float, total: float | None = None) -> None:
        self.inner.update(completed, total)

    def finish(self) -> None:
        self.inner.finish()


# ----------------------------------------------------------------------------- runs
def _check_kept(result: dict[str, Any], plan: Sequence[PlannedSubset]) -> None:
    """A resumed study keeps the runs of subsets still in its plan with the same rows."""
    now = {s.name: list(s.positions) for s in plan}
    before = {s["name"]: s["positions"] for s in result.get("plan", {}).get("subsets", [])}
    changed = sorted(
        {
            r["subset"]
            for r in result.get("runs", [])
            if now.get(r["subset"]) != before.get(r["subset"])
        }
    )
    if changed:
        raise ProjectError(
            f"the plan now gives other rows for subsets already trained "
            f"({', '.join(changed[:5])}); the pool or its subsets changed since the study "
            "began: start a new study (--name)"
        )


def _resumable_run(
    project: Project, pool: str, target: str, options: StudyOptions
) -> RunInfo | None:
    """The study this one continues: the named one, or the newest one like it (the same
    target and settings, but for more seeds or random subsets)."""
    from vendiscope.core.base.jobs import process_state

    pool_id = project.dataset(pool).id
    project.dataset(target)  # a clear error when the target does not exist
    runs = [r for r in project.runs() if r.kind == RUN_KIND and r.dataset_id == pool_id]
    if options.name is not None:
        named = [r for r in runs if r.params.get("name") == options.name]
        if not named:
            check_name(options.name, "study")
            return None
        candidates = named[-1:]
    else:  # the newest study like this one: finished, the same command shows it again
        candidates = list(reversed(runs))
    wanted = comparable(options.to_json())
    for run in candidates:
        same = comparable(run.params.get("options", {})) == wanted
        if run.params.get("target") != target or not same:
            if options.name is not None:
                raise ProjectError(
                    f"study '{options.name}' was run with other settings or another target; "
                    "resume it with the same ones (more --seeds or --subsets may be added), "
                    "or choose another --name"
                )
            continue
        if run.status == "running" and process_state(run.owner).alive is not False:
            raise ProjectError(
                f"study '{run.params.get('name')}' is running (run {run.id}, pid "
                f"{(run.owner or {}).get('pid')}); wait for it or stop it first"
            )
        return run
    return None


def _free_name(project: Project, pool: str) -> str:
    taken = {r.params.get("name") for r in project.runs() if r.kind == RUN_KIND}
    number = 1
    while f"study-{number}" in taken:
        number += 1
    return f"study-{number}"


def _start(project: Project, pool: str, target: str, options: StudyOptions) -> int:
    return start_run(
        project,
        key=f"study:{pool}:{options.name}",
        kind=RUN_KIND,
        plugin=PLUGIN,
        dataset_id=project.dataset(pool).id,
        params={"pool": pool, "target": target, "name": options.name, "options": options.to_json()},
        seed=options.seed,
        packages=("torch", "transformers", "peft"),
    )
