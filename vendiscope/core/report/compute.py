"""Computing the report's missing cheap steps from existing vector sets, when asked.

:func:`compute_missing` runs, among ``COMPUTE_STEPS``, those whose result is missing: the
G-Vendi and embedding-Vendi scores, near-duplicates, clusters and a map. Each is the job the
matching command runs (``vendiscope score``, ``near-dups``, ``clusters``, ``map``), recorded
as a run of the project in the same way, with the caller's progress and cancel token.
Embeddings and gradients are never computed here.
"""

from __future__ import annotations

from collections.abc import Sequence

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.view_data import data as viewdata

COMPUTE_STEPS = ("scores", "near-duplicates", "clusters", "map")
"""What ``compute=`` may run, all from existing vector sets (never embeddings or gradients)."""


def compute_missing(
    project: Project,
    dataset: str,
    steps: Sequence[str] = COMPUTE_STEPS,
    *,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> list[str]:
    """Run the missing cheap steps (from existing vector sets) among ``steps``; return what
    ran. Scores need a gradient or embedding set, near-duplicates an embedding set,
    clusters and the map any feature set."""
    unknown = [s for s in steps if s not in COMPUTE_STEPS]
    if unknown:
        raise ProjectError(f"unknown step '{unknown[0]}'; steps: {', '.join(COMPUTE_STEPS)}")
    done: list[str] = []
    has = {
        kind: bool(vectors.complete_sets(project, dataset, kind))
        for kind in ("gradient", "embedding")
    }
    jobs = {"progress": progress, "cancel": cancel}
    if "scores" in steps:
        from vendiscope.core.metrics.scoring import score_dataset

        for metric, kind in viewdata.VENDI_METRICS.items():
            if has[kind] and viewdata.score_run(project, dataset, metric) is None:
                score_dataset(project, dataset, metric=metric, **jobs)
                done.append(f"score ({viewdata.METRIC_TITLES[metric]})")
    features = has["gradient"] or has["embedding"]
    if (
        "near-duplicates" in steps
        and has["embedding"]
        and viewdata.latest_run(project, dataset, "near-duplicates") is None
    ):
        from vendiscope.core.neighbors.search import find_near_duplicates

        find_near_duplicates(project, dataset, save=False, **jobs)
        done.append("near-duplicates")
    if (
        "clusters" in steps
        and features
        and viewdata.latest_run(project, dataset, "clusters") is None
    ):
        from vendiscope.core.clusters.jobs import cluster_dataset

        cluster_dataset(project, dataset, **jobs)
        done.append("clusters")
    if "map" in steps and features:
        from vendiscope.core.maps.jobs import latest_map, map_dataset

        if latest_map(project, dataset) is None:
            map_dataset(project, dataset, **jobs)
            done.append("map")
    return done


__all__ = ["COMPUTE_STEPS", "compute_missing"]
