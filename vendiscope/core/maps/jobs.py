"""The map job: a 2-D projection of a vector set, stored as a projection vector set.

The coordinates are saved as the two-column vector set ``map/METHOD/run-N`` (kind
``projection``) with the run that made it, so the GUI and the report draw the same map
without recomputing it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.maps.algorithms import projection
from vendiscope.core.maps.options import MapOptions
from vendiscope.core.maps.run_result import MapResult
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import recorded_run
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.vectors import resolve

if TYPE_CHECKING:
    import numpy as np

RUN_KIND = "projection"
FEATURE_KINDS = resolve.PREFERENCE
"""The kinds a map is drawn from by default, preferred first (the one rule of every job)."""


@dataclass(frozen=True)
class MapReport:
    dataset: str
    source: str
    name: str
    method: str
    fitted_rows: int
    placed_rows: int
    trustworthiness: float | None
    details: dict[str, Any]
    run_id: int
    seconds: float
    computed_on: str = ""
    """The vectors it maps, as :func:`vendiscope.core.vectors.resolve.describe` says."""

    def summary(self) -> dict[str, Any]:
        """The headline numbers and the method's details, as the CLI and the API show them."""
        shown = {k: v for k, v in self.details.items() if k != "index"}
        return {k: v for k, v in self.result(shown).to_json().items() if k != "schema"}

    def result(self, details: dict[str, Any] | None = None) -> MapResult:
        """What the run stores (``details``: the method's, default all of them)."""
        return MapResult(
            self.dataset, self.source, self.name, self.method, self.fitted_rows,
            self.placed_rows, self.trustworthiness, self.run_id, self.seconds, self.computed_on,
            self.details if details is None else details,
        )  # fmt: skip


def map_source(project: Project, dataset: str, name: str | None) -> VectorSetInfo:
    """The named complete set, or the preferred feature set (gradients first) of >= 2 columns."""
    if name is not None:
        found = vectors.complete_set(project, dataset, name)
        if found.dim < 2:
            raise ProjectError(f"vector set '{name}' has {found.dim} column; a map needs >= 2")
        return found
    return resolve.resolve(project, dataset, None, FEATURE_KINDS, min_dim=2)


def latest_map(project: Project, dataset: str) -> VectorSetInfo | None:
    """The most recent complete projection set of ``dataset``, if any."""
    maps = vectors.complete_sets(project, dataset, "projection")
    return maps[-1] if maps else None


def map_dataset(
    project: Project,
    dataset: str,
    *,
    vector_set: str | None = None,
    method: str = MapOptions.method,
    n_neighbors: int = MapOptions.n_neighbors,
    min_dist: float = MapOptions.min_dist,
    seed: int = MapOptions.seed,
    fit_sample: int = MapOptions.fit_sample,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> MapReport:
    """Project a vector set to 2-D (UMAP with FAISS neighbours, or PCA) and store it.

    The settings are those of :class:`~vendiscope.core.maps.options.MapOptions` (which
    checks them before any work)."""
    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    chosen = MapOptions(method=method, n_neighbors=n_neighbors, min_dist=min_dist,
                        fit_sample=fit_sample, seed=seed)  # fmt: skip
    method, n_neighbors, min_dist = chosen.method, chosen.n_neighbors, chosen.min_dist
    fit_sample, seed = chosen.fit_sample, chosen.seed  # checked and typed once, here
    source = map_source(project, dataset, vector_set)
    if source.n_rows < 3:
        raise ProjectError(f"dataset '{dataset}' has {source.n_rows} records; a map needs 3")
    params = {"vector_set": source.name, "method": method, "n_neighbors": n_neighbors,
              "min_dist": min_dist, "fit_sample": fit_sample}  # fmt: skip
    with recorded_run(
        project, key=f"map:{dataset}:{source.name}:{method}", kind=RUN_KIND,
        plugin=f"core:{method}", dataset_id=project.dataset(dataset).id, params=params,
        seed=seed, packages=("umap-learn", "scikit-learn", "faiss-cpu", "numba"),
        cancel=cancel, started=started,
    ) as run:  # fmt: skip
        matrix = vectors.load(project, dataset, source.name)
        if method == "umap":
            made = projection.umap_map(
                matrix, n_neighbors=n_neighbors, min_dist=min_dist, seed=seed,
                fit_sample=fit_sample, progress=progress, cancel=cancel,
            )  # fmt: skip
        else:
            made = projection.pca_map(matrix, seed=seed)
        cancel.raise_if_cancelled()
        trust = projection.trustworthiness_sample(matrix, made.coords, seed=seed)
        name = _store(project, dataset, run.id, source, method, made.coords)
        report = MapReport(
            dataset, source.name, name, method, made.fitted_rows, made.placed_rows,
            round(trust, 4), made.details, run.id, run.seconds,
            resolve.describe(source, run.id),
        )  # fmt: skip
        run.finish(report.result().to_json(), seconds=report.seconds)
    return report


def _store(
    project: Project, dataset: str, run_id: int, source: VectorSetInfo, method: str,
    coords: np.ndarray,
) -> str:  # fmt: skip
    name = f"map/{method}/run-{run_id}"
    params = {"run_id": run_id, "vector_set": source.name, "method": method}
    vectors.write_matrix(project, dataset, name, coords, kind="projection", model=source.model,
                         params=params, run_id=run_id)  # fmt: skip
    return name
