"""What a view reads: the :class:`ViewData` protocol of the plugin API, and its constants.

A :class:`~vendiscope.core.plugin_host.interfaces.View` receives ``data["view_data"]``, an object
with the read-only accessors below, instead of a live project. Everything it returns is plain
data (numbers, strings, lists, dicts of them, NumPy arrays); nothing a view does through it
writes to the project, except :meth:`ViewData.coverage`, which records its computation as a
coverage run (as ``vendiscope coverage`` does).

A piece that has not been computed yet raises
:class:`~vendiscope.core.view_data.missing.NotComputed`, whose message names the command that
computes it. This module is cheap to import (it is part of :mod:`vendiscope.api`); the
implementation backed by a project is :class:`vendiscope.core.view_data.reader.ProjectViewData`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from vendiscope.core.neighbors.options import CoverageOptions
from vendiscope.core.view_data.constants import (
    MAX_CONTRIBUTION_SOURCES,
    METRIC_TITLES,
    NO_SOURCE,
    TEXT_WIDTH,
    VENDI_METRICS,
)

if TYPE_CHECKING:
    import numpy as np


@runtime_checkable
class ViewData(Protocol):
    """Read-only access to one dataset of a project, for a view's ``build`` (API 1.3).

    ``build(data)`` finds it as ``data["view_data"]`` (:func:`vendiscope.api.view_data`
    returns it, with a ``ValueError`` when it is missing). Record positions are 0-based, in
    dataset order. Methods raise :class:`~vendiscope.api.NotComputed` (naming the command
    that computes it) for a piece not computed yet, and ``ValueError`` or
    :class:`~vendiscope.api.VendiscopeError` for a name that does not exist.
    """

    @property
    def dataset(self) -> str:
        """The dataset the view shows."""
        ...

    @property
    def target(self) -> str | None:
        """The target dataset (for views with ``needs_target``), else None."""
        ...

    @property
    def n_records(self) -> int:
        """How many records the dataset holds."""
        ...

    def command(self, name: str, *args: str, dataset: str | None = None) -> str:
        """The ``vendiscope NAME PROJECT DATASET ARGS...`` command line, quoted for a shell
        (for a :class:`~vendiscope.api.NotComputed` a view raises itself)."""
        ...

    # records
    def sources(self) -> list[str | None]:
        """Each record's source, in dataset order (None where it has none)."""
        ...

    def texts(
        self, positions: Sequence[int], width: int = TEXT_WIDTH, *, dataset: str | None = None
    ) -> dict[int, dict[str, Any]]:
        """``{position: {"position", "text" (shortened to width), "source", "id"}}``."""
        ...

    def subset_positions(self, name: str) -> np.ndarray:
        """The positions of subset ``name``'s members, in rank order (int64)."""
        ...

    # vectors
    def vectors(self, name: str | None = None) -> np.ndarray:
        """A feature vector set as an ``(n, d)`` float32 array: ``name``, else the latest
        embedding set, else the best gradient or feature set."""
        ...

    def per_record_scores(self, name: str | None = None) -> dict[str, Any]:
        """A one-column score set: ``{"name", "values"}`` (``values``: ``(n,)`` float64);
        ``name``, else the latest."""
        ...

    def map(self, name: str | None = None) -> dict[str, Any]:
        """A stored 2-D map: ``{"name", "method" ("umap", "pca", ...), "coordinates"}``
        (``coordinates``: ``(n, 2)`` float32); ``name``, else the latest."""
        ...

    # runs
    def score(self, metric: str = "gvendi") -> dict[str, Any]:
        """The latest headline Vendi score (``"gvendi"`` or ``"vendi"``, order 1, unweighted):
        ``metric``, ``title``, ``value``, ``n``, ``fraction``, ``ci``, ``vector_set``,
        ``per_source`` and ``spectrum_top`` (the largest eigenvalues of K/n)."""
        ...

    def source_table(self, contributions: str | None = "auto") -> dict[str, Any]:
        """Per source: records, share, each headline score of the source alone and its
        leave-one-out contribution on ``contributions``' vector set (``"gvendi"``,
        ``"vendi"``, ``"auto"``, or None to skip)."""
        ...

    def near_duplicates(self) -> dict[str, Any]:
        """The latest near-duplicate run: threshold, groups, redundant, group_sizes, ..."""
        ...

    def near_duplicate_groups(
        self, *, top: int = 10, members: int = 4, width: int = 160
    ) -> list[dict[str, Any]]:
        """The largest groups: ``{"size", "representative", "records": [texts]}``."""
        ...

    def clusters(self, subset: str | None = None) -> dict[str, Any]:
        """The latest clustering: n_clusters, sizes, sparse, median_size; with ``subset``
        also subset_size, subset_counts, clusters_reached, sparse_reached."""
        ...

    def cluster_labels(self) -> np.ndarray:
        """Each record's cluster in the latest clustering (int64)."""
        ...

    def selections(self) -> list[dict[str, Any]]:
        """Every complete selection run, oldest first: run_id, method, k, subset,
        subset_exists, vendi, random_vendi, curve (budgets, vendi, random) and kinds."""
        ...

    def latest_selection_subset(self) -> str | None:
        """The subset of the latest selection run that still exists, if any."""
        ...

    def synthesis_runs(self) -> list[dict[str, Any]]:
        """The synthesis runs whose pool is the dataset or that wrote it (its ``synth-N``),
        oldest first, each with at least one committed round: ``{"run_id", "status",
        "params", "result"}`` (``result``: the job's, with ``rounds``, ``pool_gvendi``, ...).
        Raises :class:`~vendiscope.api.NotComputed` naming ``vendiscope synthesize`` when
        there are none."""
        ...

    def study_runs(self) -> list[dict[str, Any]]:
        """The study runs whose pool or target is the dataset, oldest first, each with at
        least one training run: ``{"run_id", "status", "params", "result"}`` (``result``: the
        job's, with ``plan``, ``metrics``, ``runs``, ``analysis``, ...). Raises
        :class:`~vendiscope.api.NotComputed` naming ``vendiscope study`` when there are
        none."""
        ...

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
        """How well the dataset covers ``target`` (default :attr:`target`) within a cosine
        ``radius``: fraction, radii and covered_at (the curve), least_covered. Recorded as a
        coverage run."""
        ...


def view_data(data: Any) -> ViewData:
    """The :class:`ViewData` in a view's ``data`` (``data["view_data"]``).

    ``data`` from an older caller may hold only ``"project"`` (an open project, deprecated
    since API 1.3) and ``"dataset"``; the view data is then made from them. Anything else
    raises ``ValueError`` naming what is wrong, as ``build`` should for missing data.
    """
    if not isinstance(data, dict):
        raise ValueError(f"data must be a dict with 'view_data' (or 'project' and 'dataset'); "
                         f"got {data!r}")  # fmt: skip
    found = data.get("view_data")
    if found is not None:
        if not isinstance(found, ViewData):
            raise ValueError(f"data['view_data'] must be a ViewData; got {found!r}")
        return found
    from vendiscope.core.store.project import Project

    project, dataset = data.get("project"), data.get("dataset")
    if not isinstance(project, Project):
        raise ValueError(
            f"data['project'] must be an open Project (or data['view_data'] a ViewData); "
            f"got {project!r}"
        )
    if not isinstance(dataset, str):
        raise ValueError(f"data['dataset'] must be a dataset name; got {dataset!r}")
    from vendiscope.core.view_data.reader import ProjectViewData

    target = data.get("target")
    return ProjectViewData(project, dataset, target=target if isinstance(target, str) else None)


__all__ = [
    "MAX_CONTRIBUTION_SOURCES",
    "METRIC_TITLES",
    "NO_SOURCE",
    "TEXT_WIDTH",
    "VENDI_METRICS",
    "ViewData",
    "view_data",
]
