"""The data a view's ``build`` receives: :class:`ProjectViewData` (the API's
:class:`~vendiscope.core.view_data.protocol.ViewData`, backed by a project) inside the ``data``
mapping :class:`ViewInput`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from vendiscope.core.neighbors.options import CoverageOptions
from vendiscope.core.store import vectors
from vendiscope.core.view_data import records, runs, tables
from vendiscope.core.view_data.constants import TEXT_WIDTH
from vendiscope.core.view_data.missing import command

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.store.project import Project


class ProjectViewData:
    """Read-only view data of ``dataset`` in an open project (see
    :class:`~vendiscope.core.view_data.protocol.ViewData` for what each method returns).

    The project stays private: a view reads plain data through these methods only. Record
    sources are read once and kept; everything else is read when asked.
    """

    def __init__(
        self,
        project: Project,
        dataset: str,
        *,
        target: str | None = None,
        vector_set: str | None = None,
        score_set: str | None = None,
    ) -> None:
        info = project.dataset(dataset)  # a clear error for a dataset that does not exist
        self._project = project
        self._dataset = dataset
        self._target = target
        self._n_records = int(info.row_count)
        self._vector_set = vector_set
        self._score_set = score_set
        self._sources: list[str | None] | None = None

    def __repr__(self) -> str:
        return f"ProjectViewData({str(self._project.location)!r}, {self._dataset!r})"

    @property
    def dataset(self) -> str:
        return self._dataset

    @property
    def target(self) -> str | None:
        return self._target

    @property
    def n_records(self) -> int:
        return self._n_records

    def command(self, name: str, *args: str, dataset: str | None = None) -> str:
        return command(self._project, name, dataset or self._dataset, *args)

    # ------------------------------------------------------------------ records
    def sources(self) -> list[str | None]:
        if self._sources is None:
            self._sources = records.record_sources(self._project, self._dataset)
        return list(self._sources)

    def texts(
        self, positions: Sequence[int], width: int = TEXT_WIDTH, *, dataset: str | None = None
    ) -> dict[int, dict[str, Any]]:
        return records.record_texts(self._project, dataset or self._dataset, positions, width)

    def subset_positions(self, name: str) -> np.ndarray:
        import numpy as np

        from vendiscope.core.store import subsets

        positions = subsets.members(self._project, self._dataset, name).positions
        return np.asarray(positions, dtype=np.int64)

    # ------------------------------------------------------------------ vectors
    def vectors(self, name: str | None = None) -> np.ndarray:
        from vendiscope.core.vectors.resolve import missing_message

        found = records.feature_set(self._project, self._dataset, name or self._vector_set)
        if found is None:
            raise ValueError(missing_message(self._dataset))
        return vectors.load(self._project, self._dataset, found.name)

    def per_record_scores(self, name: str | None = None) -> dict[str, Any]:
        import numpy as np

        info = records.score_set(self._project, self._dataset, name or self._score_set)
        column = vectors.load(self._project, self._dataset, info.name)[:, 0]
        return {"name": info.name, "values": column.astype(np.float64)}

    def map(self, name: str | None = None) -> dict[str, Any]:
        info = records.map_set(self._project, self._dataset, name)
        return {
            "name": info.name,
            "method": records.map_method(self._project, info),
            "coordinates": vectors.load(self._project, self._dataset, info.name),
        }

    # ------------------------------------------------------------------ runs
    def score(self, metric: str = "gvendi") -> dict[str, Any]:
        return runs.score_summary(self._project, self._dataset, metric)

    def source_table(self, contributions: str | None = "auto") -> dict[str, Any]:
        return tables.source_table(self._project, self._dataset, contributions=contributions)

    def near_duplicates(self) -> dict[str, Any]:
        return runs.near_duplicate_summary(self._project, self._dataset)

    def near_duplicate_groups(
        self, *, top: int = 10, members: int = 4, width: int = 160
    ) -> list[dict[str, Any]]:
        return tables.near_duplicate_groups(
            self._project, self._dataset, top=top, members=members, width=width
        )

    def clusters(self, subset: str | None = None) -> dict[str, Any]:
        return tables.cluster_table(self._project, self._dataset, subset)

    def cluster_labels(self) -> np.ndarray:
        run = runs.cluster_run(self._project, self._dataset)
        return runs.cluster_labels(self._project, self._dataset, run)

    def selections(self) -> list[dict[str, Any]]:
        return runs.selection_runs(self._project, self._dataset)

    def latest_selection_subset(self) -> str | None:
        return runs.latest_selection_subset(self._project, self._dataset)

    def synthesis_runs(self) -> list[dict[str, Any]]:
        return runs.synthesis_runs(self._project, self._dataset)

    def study_runs(self) -> list[dict[str, Any]]:
        return runs.study_runs(self._project, self._dataset)

    def coverage(
        self,
        target: str | None = None,
        *,
        radius: float = CoverageOptions.min_similarity,
        vector_set: str | None = None,
        target_vector_set: str | None = None,
        train_subset: str | None = None,
        listed: int = 50,
        width: int = 200,
    ) -> dict[str, Any]:
        target = target or self._target
        if target is None:
            raise ValueError("coverage needs a target dataset; none was given")
        return tables.coverage_data(
            self._project, self._dataset, target, radius=radius, vector_set=vector_set,
            target_vector_set=target_vector_set, train_subset=train_subset, listed=listed,
            width=width,
        )  # fmt: skip


class ViewInput(dict[str, Any]):
    """The ``data`` a view's ``build`` receives, for one dataset of a project.

    ``data["view_data"]`` is a :class:`ProjectViewData` (API 1.3): what views read. Besides
    it, ``"dataset"`` (and ``"target"`` when given) name the datasets, and the plain arrays
    ``"vectors"``, ``"scores"``, ``"labels"``, ``"positions"`` and ``"title"`` are present
    too, loaded from the project only when a view reads them (a 1,000,000-row vector set is
    never read for a view that does not ask for it); a key whose data does not exist (no
    score set yet) is absent. ``"project"`` (the open project) is still passed for views
    written for API 1.0-1.2; it is deprecated and goes in API 2.0.
    """

    _LAZY = object()

    def __init__(
        self,
        project: Project,
        dataset: str,
        *,
        target: str | None = None,
        vector_set: str | None = None,
        score_set: str | None = None,
        **extra: Any,
    ) -> None:
        view_data = ProjectViewData(project, dataset, target=target, vector_set=vector_set,
                                    score_set=score_set)  # fmt: skip
        super().__init__(project=project, dataset=dataset, view_data=view_data, **extra)
        if target is not None:
            self["target"] = target
        self._loaders: dict[str, Callable[[], Any]] = {}
        self._loaders["title"] = lambda: dataset
        self._loaders["positions"] = lambda: _arange(view_data.n_records)
        self._loaders["labels"] = view_data.sources
        features = records.feature_set(project, dataset, vector_set)
        if features is not None:
            self._loaders["vectors"] = lambda: vectors.load(project, dataset, features.name)
        scores = _score_set(project, dataset, score_set)
        if scores is not None:
            self._loaders["scores"] = lambda: vectors.load(project, dataset, scores)[:, 0]
        for key in self._loaders:
            if key not in self:
                dict.__setitem__(self, key, self._LAZY)

    def _resolve(self, key: str, value: Any) -> Any:
        if value is self._LAZY:
            value = self._loaders[key]()
            dict.__setitem__(self, key, value)
        return value

    def __getitem__(self, key: str) -> Any:
        return self._resolve(key, dict.__getitem__(self, key))

    def get(self, key: str, default: Any = None) -> Any:
        if key not in self:
            return default
        return self[key]

    def __iter__(self) -> Any:  # not dict's own: copies ({**data}, dict(data)) go through [] too
        return iter(list(dict.keys(self)))

    def items(self) -> Any:
        return [(key, self[key]) for key in dict.keys(self)]

    def values(self) -> Any:
        return [self[key] for key in dict.keys(self)]

    def copy(self) -> dict[str, Any]:
        return dict(self.items())


def _score_set(project: Project, dataset: str, name: str | None) -> str | None:
    from vendiscope.core.view_data.missing import NotComputed

    try:
        return records.score_set(project, dataset, name).name
    except NotComputed:
        return None


def _arange(n: int) -> np.ndarray:
    import numpy as np

    return np.arange(n, dtype=np.int64)


__all__ = ["ProjectViewData", "ViewInput"]
