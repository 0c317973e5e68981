"""The synthesis job: rounds of seed, generate, parse, deduplicate, featurize, filter, commit.

Each round: choose seed examples (from sparse clusters by default), render one prompt per
request, generate, parse each output into the dataset's keys, drop exact and near duplicates
(against the pool, earlier generations and the batch), compute the gradients with the pool's
featurizer settings, and let the filter (:mod:`.filters`) accept or reject each generation.
The round is then committed in one transaction (:func:`vendiscope.core.store.synthesis.
commit_round`): the accepted records go to dataset ``NAME`` (default ``synth-N``), every valid
generation to ``NAME-all`` (the unfiltered stream, kept as the baseline), both with their
gradient rows and provenance (``"synthesis"`` in each original row), and the run's result
gains the round: counts, reject reasons, the G-Vendi of pool + accepted rows and of pool + as
many unfiltered generations. Every few rounds the pool and the accepted rows are clustered
afresh. A killed or cancelled job resumes after its last committed round: the same command
again (same generator, server, template, filter and seeds) continues it; without ``name``, a
run against another server is never resumed. A run that ends (complete, failed, cancelled or
interrupted by Ctrl-C, which counts as cancelled) leaves no empty dataset behind: ``NAME`` and
``NAME-all`` are removed when nothing was written to them, and made again if the run is
resumed. See ``docs/synthesis.md``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import Cancelled, CancelToken, NullProgress, Progress
from vendiscope.core.base.text import check_name
from vendiscope.core.metrics.algorithms import vendi
from vendiscope.core.plugin_host.registry import PluginRegistry, default_registry
from vendiscope.core.store import synthesis as store
from vendiscope.core.store.models import RunInfo
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import claim_run, finish_run, start_run, update_result
from vendiscope.core.store.runs import describe as describe_run
from vendiscope.core.synthesis.algorithms.templates import Template, load_template
from vendiscope.core.synthesis.options import RUN_KIND, SynthesisOptions
from vendiscope.core.synthesis.pool import Pool
from vendiscope.core.synthesis.rounds import RoundCallback, Rounds

if TYPE_CHECKING:
    from vendiscope.core.plugin_host.interfaces import Generator


RESUMABLE_CHANGES = ("budget", "rounds", "target", "name")
OPERATIONAL_PARAMS = ("base_url", "concurrency", "timeout", "max_retries", "api_key_env", "device")
SAME_SERVER_PARAMS = ("base_url",)
"""Operational parameters a run resumed without a name must share: another server is another
run, never a silent continuation of an old one."""


@dataclass(frozen=True)
class SynthesisReport:
    """How a synthesis job ended (or how far it got): its datasets, curve and counts."""

    dataset: str
    name: str
    all_name: str
    run_id: int
    rounds: list[dict[str, Any]]
    accepted: int
    generated: int
    stopped: str
    pool_gvendi: float
    gvendi: float
    baseline: float | None
    resumed_from: int
    seconds: float

    def summary(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "name": self.name,
            "all": self.all_name,
            "run_id": self.run_id,
            "rounds": len(self.rounds),
            "accepted": self.accepted,
            "generated": self.generated,
            "stopped": self.stopped,
            "pool_gvendi": round(self.pool_gvendi, 6),
            "gvendi": round(self.gvendi, 6),
            "baseline": None if self.baseline is None else round(self.baseline, 6),
            "resumed_from_round": self.resumed_from,
            "seconds": round(self.seconds, 3),
        }


def synthesize(
    project: Project,
    dataset: str,
    options: SynthesisOptions,
    *,
    registry: PluginRegistry | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
    on_round: RoundCallback | None = None,
    notice: Callable[[str], None] | None = None,
) -> SynthesisReport:
    """Generate examples for ``dataset`` in rounds until the budget, rounds or target.

    See the module docstring for what is written. ``on_round`` is called with each round's
    entry of the run's result once the round is committed (the CLI prints it); ``notice``
    with a line worth telling before the rounds (a resumed run, what the check found).
    """
    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    registry = registry or default_registry()
    pool = Pool.load(project, dataset, options.vector_set)
    previous = _resumable_run(project, dataset, options)
    name = options.name or (previous.params["name"] if previous else _free_name(project))
    options = replace(options, name=name)
    all_name = f"{name}-all"
    generator: Generator = registry.create(
        "generator", options.generator, **options.generator_params
    )
    try:
        template = load_template(options.template, pool.keys.names, pool.keys.roles)
    except ValueError as exc:
        raise ProjectError(str(exc)) from None
    featurizer = pool.make_featurizer(registry)
    progress.start(f"checking the generator '{options.generator}'", total=None)
    description = generator.check()
    progress.finish()
    if previous is None:
        run_id, result = _start(project, pool, options, name, all_name, generator, template)
        resumed_from = 0
    else:
        run_id, result = previous.id, dict(previous.result or {})
        claim_run(project, run_id, describe_run(run_id, RUN_KIND, "core:synthesis"))
        resumed_from = len(result.get("rounds", []))
        _create_datasets(project, pool, name, all_name, run_id)
        if notice is not None:
            notice(
                f"resuming '{name}' (run {run_id}, {previous.status}) after round "
                f"{resumed_from}; give another --name to start afresh"
            )
    result.update(
        generator_check=description,
        budget=options.budget,
        options=options.to_json(),
    )
    job = Rounds(project, pool, options, all_name, run_id, result, generator, featurizer, template)
    try:
        job.restore()
        stopped = job.run(progress, cancel, on_round)
    except BaseException as error:
        interrupted = isinstance(error, KeyboardInterrupt)
        cancelled = interrupted or isinstance(error, Cancelled) or cancel.cancelled
        status = "cancelled" if cancelled else "failed"
        result["stopped"] = status
        with contextlib.suppress(Exception):  # a failing store: closing the run matters more
            _drop_empty(project, (name, all_name), result)
        finish_run(
            project,
            run_id,
            status=status,
            result=result,
            error="interrupted (Ctrl-C)" if interrupted else repr(error),
            seconds=time.perf_counter() - started,
        )
        raise
    result["stopped"] = stopped
    _drop_empty(project, (name, all_name), result)
    finish_run(
        project, run_id, status="complete", result=result, seconds=time.perf_counter() - started
    )
    rounds = result.get("rounds", [])
    return SynthesisReport(
        dataset,
        name,
        all_name,
        run_id,
        rounds,
        result.get("accepted", 0),
        result.get("generated", 0),
        stopped,
        result["pool_gvendi"],
        result.get("gvendi", result["pool_gvendi"]),
        result.get("baseline"),
        resumed_from,
        time.perf_counter() - started,
    )


def _comparable(options: dict[str, Any]) -> dict[str, Any]:
    kept = {k: v for k, v in options.items() if k not in RESUMABLE_CHANGES}
    params = dict(kept.get("generator_params") or {})
    kept["generator_params"] = {k: v for k, v in params.items() if k not in OPERATIONAL_PARAMS}
    return kept


def _resumable_run(project: Project, dataset: str, options: SynthesisOptions) -> RunInfo | None:
    """The run this job continues: the named one, or the newest unfinished one like it."""
    from vendiscope.core.base.jobs import process_state

    pool_id = project.dataset(dataset).id
    runs = [r for r in project.runs() if r.kind == RUN_KIND and r.dataset_id == pool_id]
    if options.name is not None:
        named = [r for r in runs if r.params.get("name") == options.name]
        if not named:
            existing = {d.name for d in project.datasets()}
            for taken in (options.name, f"{options.name}-all"):
                if taken in existing:
                    raise ProjectError(
                        f"a dataset named '{taken}' already exists; choose another --name"
                    )
            check_name(options.name, "dataset")
            return None
        candidates = named[-1:]
    else:
        candidates = [
            r
            for r in reversed(runs)
            if r.status != "complete" and _same_server(r.params.get("options", {}), options)
        ][:1]
    for run in candidates:
        if run.status == "running" and process_state(run.owner).alive is not False:
            raise ProjectError(
                f"synthesis into '{run.params.get('name')}' is running (run {run.id}, "
                f"pid {(run.owner or {}).get('pid')}); wait for it or stop it first"
            )
        wanted = _comparable(replace(options, name=run.params.get("name")).to_json())
        if _comparable(run.params.get("options", {})) != wanted:
            if options.name is not None:
                raise ProjectError(
                    f"'{options.name}' was generated with other settings; resume it with the "
                    "same generator, template, filter and seeds, or choose another --name"
                )
            continue
        return run
    return None


def _same_server(recorded: dict[str, Any], options: SynthesisOptions) -> bool:
    params = recorded.get("generator_params") or {}
    return all(params.get(key) == options.generator_params.get(key) for key in SAME_SERVER_PARAMS)


def _drop_empty(project: Project, names: tuple[str, ...], result: dict[str, Any]) -> None:
    """Remove the run's datasets that hold nothing (a resumed run makes them again)."""
    existing = {d.name: d.row_count for d in project.datasets()}
    dropped = [n for n in names if existing.get(n) == 0]
    for dataset in dropped:
        project.delete_dataset(dataset)
    if dropped:
        result["removed_empty"] = dropped


def _free_name(project: Project) -> str:
    """``synth-N``: the first N no dataset and no earlier synthesis run has used."""
    taken = {d.name for d in project.datasets()}
    taken |= {str(r.params.get("name")) for r in project.runs() if r.kind == RUN_KIND}
    number = 1
    while f"synth-{number}" in taken or f"synth-{number}-all" in taken:
        number += 1
    return f"synth-{number}"


def _start(
    project: Project,
    pool: Pool,
    options: SynthesisOptions,
    name: str,
    all_name: str,
    generator: Generator,
    template: Template,
) -> tuple[int, dict[str, Any]]:
    """Open the run and create the two empty datasets with their vector sets."""
    params = {
        "dataset": pool.dataset,
        "name": name,
        "all": all_name,
        "options": options.to_json(),
    }
    run_id = start_run(
        project,
        key=f"synthesis:{pool.dataset}:{name}",
        kind=RUN_KIND,
        plugin="core:synthesis",
        dataset_id=project.dataset(pool.dataset).id,
        params=params,
        seed=options.seed,
        packages=("torch", "transformers", "faiss-cpu"),
    )
    _create_datasets(project, pool, name, all_name, run_id)
    pool_gvendi = vendi.vendi_score(pool.rows)
    result = {
        "dataset": pool.dataset,
        "name": name,
        "all": all_name,
        "filter": options.filter,
        "generator": options.generator,
        "model": generator.model_id,
        "generator_details": generator.describe(),
        **template.describe(),
        "pool_rows": len(pool.rows),
        "pool_gvendi": pool_gvendi,
        "budget": options.budget,
        "rounds": [],
        "rejects": [],
        "accepted": 0,
        "generated": 0,
        "gvendi": pool_gvendi,
        "baseline": pool_gvendi,
        "stopped": None,
    }
    update_result(project, run_id, result)
    return run_id, result


def _create_datasets(project: Project, pool: Pool, name: str, all_name: str, run_id: int) -> None:
    """The run's two datasets with their (empty) vector sets, those not there yet."""
    existing = {d.name for d in project.datasets()}
    mapping = {"roles": pool.keys.roles, "detected": "synthesis"}
    source = f"synthesis run {run_id} from dataset '{pool.dataset}'"
    target = pool.vector_set
    for dataset in (name, all_name):
        if dataset in existing:
            continue
        store.create_dataset(
            project,
            dataset,
            source_uri=source,
            field_mapping=mapping,
            vector_set=target.name,
            kind=target.kind,
            model=target.model,
            params=target.params,
            dim=target.dim,
        )
