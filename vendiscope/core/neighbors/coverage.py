"""The coverage job: how well one dataset (or a subset of it) covers another, by cosine."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.neighbors.algorithms.index import build_index
from vendiscope.core.neighbors.cache import METRIC, get_index, query_batches, resolve_vector_set
from vendiscope.core.neighbors.options import CoverageOptions, check_min_similarity
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import recorded_run
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.vectors import resolve

if TYPE_CHECKING:
    import numpy as np

MAX_POSITIONS_IN_RUN = 10_000
RUN_PACKAGES = ("faiss-cpu", "faiss-gpu-cu12", "scipy")


@dataclass(frozen=True)
class CoverageReport:
    """How well ``train`` covers ``target``: each target record's nearest train record.

    ``nearest[i]`` is the train position nearest to target position ``i`` and
    ``similarities[i]`` its cosine similarity; a target record is covered when that is
    ``>= radius`` (the minimum similarity: ``--min-similarity``, a cosine, not a distance).
    """

    train_dataset: str
    train_vector_set: str
    target_dataset: str
    target_vector_set: str
    radius: float
    nearest: np.ndarray
    similarities: np.ndarray
    run_id: int
    index: dict[str, Any]
    seconds: float
    train_subset: str | None = None
    computed_on: str = ""
    """Both datasets' vectors, as :func:`vendiscope.core.vectors.resolve.describe` says."""

    @property
    def min_similarity(self) -> float:
        """The least cosine similarity that covers a target record (``radius``, its old name)."""
        return self.radius

    @property
    def n_targets(self) -> int:
        return len(self.similarities)

    @property
    def covered(self) -> int:
        return int((self.similarities >= self.radius).sum())

    @property
    def fraction(self) -> float:
        return self.covered / self.n_targets if self.n_targets else 1.0

    @property
    def uncovered(self) -> list[int]:
        """Target positions without a train record within the radius, in position order."""
        import numpy as np

        return [int(p) for p in np.flatnonzero(self.similarities < self.radius)]

    def quantiles(self) -> dict[str, float]:
        import numpy as np

        if not self.n_targets:
            return {}
        levels = {"min": 0.0, "p10": 0.1, "p25": 0.25, "median": 0.5, "p75": 0.75, "max": 1.0}
        values = np.quantile(self.similarities.astype(np.float64), list(levels.values()))
        return {name: round(float(v), 4) for name, v in zip(levels, values, strict=True)}

    def summary(self) -> dict[str, Any]:
        return {
            "train_dataset": self.train_dataset,
            "train_vector_set": self.train_vector_set,
            "train_subset": self.train_subset,
            "target_dataset": self.target_dataset,
            "target_vector_set": self.target_vector_set,
            "computed_on": self.computed_on,
            "min_similarity": self.radius,
            "radius": self.radius,  # its old name, kept for readers of earlier output
            "targets": self.n_targets,
            "covered": self.covered,
            "fraction": round(self.fraction, 6),
            "similarity_quantiles": self.quantiles(),
            "run_id": self.run_id,
            "seconds": round(self.seconds, 3),
        }


def coverage(
    project: Project,
    train_dataset: str,
    train_vector_set: str | None,
    target_dataset: str,
    target_vector_set: str | None,
    *,
    radius: float = CoverageOptions.min_similarity,
    train_subset: str | None = None,
    index: str = CoverageOptions.index,
    device: str = CoverageOptions.device,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> CoverageReport:
    """For each target record, its nearest train record and their cosine similarity.

    A target record is *covered* when that similarity is ``>= radius``, the minimum
    similarity (:mod:`.options`; a cosine similarity, not a distance). Both vector sets must
    come from the same model (``params["model_id"]``) and have the same dimension. With
    ``train_subset``, only that subset of the train dataset counts as training data (e.g.
    how well a selection covers the full data). Records a run (kind ``coverage``).
    """
    import numpy as np

    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    radius = check_min_similarity(radius)
    train = resolve_vector_set(project, train_dataset, train_vector_set)
    target = resolve_vector_set(project, target_dataset, target_vector_set)
    _check_comparable(train_dataset, train, target_dataset, target)
    params = {
        "train_dataset": train_dataset,
        "train_vector_set": train.name,
        "train_subset": train_subset,
        "target_dataset": target_dataset,
        "target_vector_set": target.name,
        "radius": radius,
        "metric": METRIC,
        "index": index,
    }
    with recorded_run(
        project,
        key=f"coverage:{train_dataset}:{target_dataset}",
        kind="coverage",
        plugin="core:coverage",
        dataset_id=project.dataset(train_dataset).id,
        params=params,
        packages=RUN_PACKAGES,
        cancel=cancel,
        started=started,
    ) as run:
        if train_subset is None:
            built = get_index(
                project, train_dataset, train.name, kind=index, device=device,
                n_queries=target.n_rows, progress=progress, cancel=cancel,
            )  # fmt: skip
            mapping = None
        else:
            mapping = np.array(
                [r.seq for r in project.iter_records(train_dataset, subset=train_subset)],
                dtype=np.int64,
            )
            if len(mapping) == 0:
                raise VendiscopeError(f"subset '{train_subset}' of '{train_dataset}' is empty")
            rows = vectors.read_rows(project, train, [int(p) for p in mapping])
            built = build_index(
                rows, kind=index, metric=METRIC, device=device, n_queries=target.n_rows,
                progress=progress, cancel=cancel,
            )  # fmt: skip
        nearest = np.full(target.n_rows, -1, dtype=np.int64)
        sims = np.full(target.n_rows, -np.inf, dtype=np.float32)
        progress.start(f"coverage of {target_dataset} by {train_dataset}", total=target.n_rows,
                       unit="records")  # fmt: skip
        for start, rows in query_batches(project, target_dataset, target, cancel):
            s, p = built.search(rows, 1)
            nearest[start : start + len(rows)] = p[:, 0]
            sims[start : start + len(rows)] = s[:, 0]
            progress.update(start + len(rows))
        progress.finish()
        if mapping is not None:
            nearest = np.where(nearest >= 0, mapping[np.maximum(nearest, 0)], -1)
        computed_on = (
            f"training dataset '{train_dataset}': {resolve.describe(train)}; target dataset "
            f"'{target_dataset}': {resolve.describe(target)}; run {run.id}"
        )
        report = CoverageReport(
            train_dataset, train.name, target_dataset, target.name, radius, nearest, sims,
            run.id, built.describe(), run.seconds, train_subset, computed_on,
        )  # fmt: skip
        uncovered = report.uncovered
        result = {
            **report.summary(),
            "index": report.index,
            "uncovered": uncovered[:MAX_POSITIONS_IN_RUN],
            "uncovered_count": len(uncovered),
            "uncovered_truncated": len(uncovered) > MAX_POSITIONS_IN_RUN,
        }
        run.finish(result, seconds=report.seconds)
    return report


def _check_comparable(
    train_dataset: str, train: VectorSetInfo, target_dataset: str, target: VectorSetInfo
) -> None:
    def name(dataset: str, info: VectorSetInfo) -> str:
        model = info.params.get("model_id") or info.model or "no model recorded"
        return f"'{info.name}' of '{dataset}' ({info.kind}, {info.dim} dims, model {model})"

    problems = []
    if train.dim != target.dim:
        problems.append("dimensions differ")
    if train.params.get("model_id") != target.params.get("model_id"):
        problems.append("models differ")
    elif train.kind != target.kind:
        problems.append("kinds differ")
    if problems:
        raise VendiscopeError(
            f"cannot compare vector set {name(train_dataset, train)} with "
            f"{name(target_dataset, target)}: {' and '.join(problems)}; embed both datasets "
            "with the same model"
        )
