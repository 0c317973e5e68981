"""What the app and views read of synthesis: its runs, and a prompt previewed without a model."""

from __future__ import annotations

import numpy as np

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.clusters.algorithms.kmeans import default_k, spherical_kmeans
from vendiscope.core.store import record_lookup as stored_records
from vendiscope.core.store.models import RunInfo
from vendiscope.core.store.project import Project
from vendiscope.core.synthesis.algorithms.templates import load_template, render
from vendiscope.core.synthesis.options import RUN_KIND, SynthesisOptions
from vendiscope.core.synthesis.pool import Pool
from vendiscope.core.synthesis.seeds import choose_seeds


def synthesis_runs(project: Project, dataset: str) -> list[RunInfo]:
    """Synthesis runs whose pool is ``dataset`` or which wrote it (oldest first)."""
    dataset_id = project.dataset(dataset).id
    return [
        r
        for r in project.runs()
        if r.kind == RUN_KIND
        and (r.dataset_id == dataset_id or dataset in (r.params.get("name"), r.params.get("all")))
    ]


def preview_prompt(
    project: Project,
    dataset: str,
    options: SynthesisOptions,
    *,
    record: int | None = None,
) -> list[dict[str, str]]:
    """The messages of one prompt as the job would write it, without loading a model.

    ``record`` (a position in ``dataset``) takes the seed examples from that record's
    cluster (the record first); otherwise they are chosen as the job's first round would.
    """
    pool = Pool.load(project, dataset, options.vector_set)
    template = load_template(options.template, pool.keys.names, pool.keys.roles)
    clustering = spherical_kmeans(pool.rows, default_k(len(pool.rows)), seed=options.seed)
    labels = clustering.labels
    unit = pool.rows / np.maximum(np.linalg.norm(pool.rows, axis=1, keepdims=True), 1e-12)
    rng = np.random.default_rng([options.seed, 0])
    if record is not None:
        if not 0 <= record < len(labels):
            raise ProjectError(
                f"record {record} is not a position of '{dataset}' (0 to {len(labels) - 1})"
            )
        members = np.flatnonzero(labels == labels[record])
        others = rng.permutation(members[members != record])
        chosen = np.concatenate([[record], others])[: options.examples_per_prompt]
        missing = options.examples_per_prompt - len(chosen)
        if missing > 0:  # a small cluster: its centroid's nearest rows show the same region
            similarity = unit @ clustering.centroids[labels[record]]
            similarity[chosen] = -np.inf
            chosen = np.concatenate([chosen, np.argsort(-similarity, kind="stable")[:missing]])
    else:
        chosen = choose_seeds(
            labels,
            clustering.sizes,
            clustering.median_size,
            prompts=1,
            per_prompt=options.examples_per_prompt,
            rule=options.seeds,
            rng=rng,
            rows=unit,
            centroids=clustering.centroids,
        )[0]
    positions = [int(c) for c in chosen]
    found = stored_records.records_at(project, dataset, positions)
    examples = [pool.keys.example(found[position]) for position in positions]
    return render(template, examples, pool.keys.names, label_key=pool.keys.roles.get("label"))
