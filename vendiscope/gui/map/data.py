"""Qt-free reads behind the map view: the stored 2-D map and what can colour it.

Every function takes the project's location and opens its own connection (the map view runs
them on worker threads). Colourings are per record: categorical (a code per record and a
name per code, the largest category first) or a score (a float per record and its range).
A curation signal colours by its kind: a number as a score, a flag as raised / not raised,
a label as categories (the commonest, the rest as '(other)').
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vendiscope.core.clusters.run_result import ClusterResult
from vendiscope.core.maps.jobs import FEATURE_KINDS  # what a map is drawn from, preferred first
from vendiscope.gui.jobs.tasks import opened
from vendiscope.gui.records.signal_data import signal_table

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.store.project import Project

MAX_CATEGORIES = 20
"""Sources (and the like) beyond the largest this many are drawn as one '(other)' colour."""
COLOUR_BY = ("cluster", "sparse", "source", "score", "signal", "subset", "none")
NOT_RAISED = "(not raised)"
NO_LABEL = "(no label)"


@dataclass(frozen=True)
class MapData:
    """A stored map: its coordinates (n x 2, float32, one row per record) and provenance."""

    dataset: str
    name: str
    method: str
    vector_set: str
    run_id: int | None
    coords: np.ndarray
    trustworthiness: float | None = None


@dataclass(frozen=True)
class MapChoices:
    """What the map view offers: the maps, the vector sets to map, what can colour it."""

    maps: list[str] = field(default_factory=list)  # newest first
    feature_sets: list[str] = field(default_factory=list)  # the map job's default first
    cluster_run: int | None = None
    clusters: int = 0
    sparse_clusters: int = 0
    has_sources: bool = False
    scores: list[tuple[str, str]] = field(default_factory=list)  # (vector set, title)
    signals: list[tuple[str, str]] = field(default_factory=list)  # (column, kind)
    subsets: list[tuple[str, int]] = field(default_factory=list)  # (name, size)


@dataclass(frozen=True)
class Colouring:
    """One value per record: ``codes`` into ``names`` (categorical) or ``values`` (a score)."""

    by: str
    key: str | None
    title: str
    codes: np.ndarray | None = None
    names: list[str] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    cycle: bool = False  # the codes are many (clusters): colours repeat
    values: np.ndarray | None = None
    low: float = 0.0
    high: float = 1.0

    @property
    def categorical(self) -> bool:
        return self.codes is not None


def map_choices(location: str, dataset: str) -> MapChoices:
    with opened(location) as project:
        return choices_of(project, dataset)


def choices_of(project: Project, dataset: str) -> MapChoices:
    from vendiscope.core.store import vectors
    from vendiscope.core.vectors.resolve import feature_sets

    complete = vectors.complete_sets(project, dataset)
    runs = [r for r in project.runs(dataset) if r.status == "complete" and r.result]
    clusters = [r for r in runs if r.kind == "clusters"]
    last = clusters[-1] if clusters else None
    latest = ClusterResult.from_json(last.result) if last is not None and last.result else None
    by_id = {r.id: r for r in runs}
    scores = [
        (s.name, _score_title(s, by_id.get(s.run_id) if s.run_id is not None else None))
        for s in reversed(complete)
        if s.kind == "score" and s.dim == 1
    ]
    roles = (project.dataset(dataset).field_mapping or {}).get("roles", {})
    rows = project.dataset(dataset).row_count
    return MapChoices(
        maps=[s.name for s in reversed(complete) if s.kind == "projection" and s.dim == 2],
        feature_sets=[s.name for s in feature_sets(project, dataset, FEATURE_KINDS, min_dim=2)],
        cluster_run=clusters[-1].id if clusters else None,
        clusters=latest.n_clusters if latest is not None else 0,
        sparse_clusters=len(latest.sparse) if latest is not None else 0,
        has_sources="source" in roles,  # the mapping says so: no scan of the records
        scores=scores,
        subsets=[(s.name, s.size) for s in reversed(project.subsets(dataset))],
        signals=[
            (column.key, column.kind)
            for column in signal_table(project, dataset).columns
            if len(column.values) == rows
        ],
    )


def _score_title(info: Any, run: Any) -> str:
    from vendiscope.core.metrics.run_result import ScoreRunResult

    stored = ScoreRunResult.from_json(run.result, run_id=run.id) if run is not None else None
    kind = (stored.details.get("per_record") if stored is not None else None) or "score"
    metric = (run.params or {}).get("metric", "") if run is not None else ""
    label = {"gvendi": "G-Vendi", "vendi": "embedding-Vendi"}.get(metric, metric)
    return f"{kind} ({label}, run #{info.run_id})" if label else f"{kind} ({info.name})"


def load_map(location: str, dataset: str, name: str | None = None) -> MapData | None:
    """The named map, or the latest complete one; ``None`` when the dataset has no map."""
    from vendiscope.core.maps.jobs import latest_map
    from vendiscope.core.maps.run_result import MapResult
    from vendiscope.core.store import vectors

    with opened(location) as project:
        info = vectors.get_set(project, dataset, name) if name else latest_map(project, dataset)
        if info is None:
            return None
        coords = vectors.load(project, dataset, info.name).astype("float32", copy=False)
        run = project.run(info.run_id) if info.run_id is not None else None
        stored = MapResult.from_json(run.result) if run is not None else None
        params = info.params or {}
        parts = info.name.split("/")
        return MapData(
            dataset=dataset,
            name=info.name,
            method=str(params.get("method") or (parts[1] if len(parts) > 2 else "map")),
            vector_set=str(params.get("vector_set", "")),
            run_id=info.run_id,
            coords=coords,
            trustworthiness=stored.trustworthiness if stored is not None else None,
        )


def load_colouring(location: str, dataset: str, by: str, key: str | None = None) -> Colouring:
    """Colour every record by ``by`` (one of :data:`COLOUR_BY`); ``key`` names the score set
    or the subset."""
    with opened(location) as project:
        return colouring_of(project, dataset, by, key)


def colouring_of(project: Project, dataset: str, by: str, key: str | None = None) -> Colouring:
    import numpy as np

    rows = project.dataset(dataset).row_count
    if by in ("cluster", "sparse"):
        return _clusters(project, dataset, by)
    if by == "source":
        from vendiscope.core.view_data.data import record_sources

        return _categories(by, None, "source", record_sources(project, dataset))
    if by == "score":
        from vendiscope.core.store import vectors

        if key is None:
            raise ValueError("colouring by score needs the score set's name")
        values = vectors.load(project, dataset, key)[:, 0].astype(np.float32)
        finite = values[np.isfinite(values)]
        low, high = (
            (float(np.percentile(finite, 1)), float(np.percentile(finite, 99)))
            if len(finite)
            else (0.0, 1.0)
        )
        if high <= low:
            high = low + 1.0
        return Colouring(by, key, key, values=values, low=low, high=high)
    if by == "signal":
        if key is None:
            raise ValueError("colouring by signal needs the signal column's name")
        return _signal(project, dataset, key)
    if by == "subset":
        from vendiscope.core.store import subsets

        if key is None:
            raise ValueError("colouring by subset needs the subset's name")
        codes = np.zeros(rows, dtype=np.int32)
        codes[np.asarray(subsets.members(project, dataset, key).positions, dtype=np.int64)] = 1
        inside = int(codes.sum())
        return Colouring(
            by, key, f"subset {key}", codes=codes, names=["(not in subset)", key],
            counts=[rows - inside, inside],
        )  # fmt: skip
    if by == "none":
        return Colouring(by, None, "records", codes=np.zeros(rows, np.int32), names=["records"],
                         counts=[rows])  # fmt: skip
    raise ValueError(f"colour by must be one of {', '.join(COLOUR_BY)}; got {by!r}")


def _signal(project: Project, dataset: str, key: str) -> Colouring:
    """A signal column's colouring: a number as a scale over its 1-99% range (the title
    says its whole range), a flag as raised over not raised, a label as categories."""
    import numpy as np

    from vendiscope.core.base.errors import ProjectError

    column = signal_table(project, dataset).column(key)
    if column is None:
        raise ProjectError(f"no signal column '{key}' in dataset '{dataset}'")
    values = np.asarray(column.values, dtype=np.float32)
    if column.kind == "flag":
        codes = (values > 0).astype(np.int32)
        raised = int(codes.sum())
        return Colouring(
            "signal", key, f"{key} (flag)", codes=codes, names=[NOT_RAISED, f"{key} raised"],
            counts=[len(codes) - raised, raised],
        )  # fmt: skip
    if column.kind == "label":
        labels = [column.text(position) or NO_LABEL for position in range(len(values))]
        return _categories("signal", key, key, labels)
    finite = values[np.isfinite(values)]
    if not len(finite):
        return Colouring("signal", key, f"{key}: no value applies", values=values)
    low, high = float(np.percentile(finite, 1)), float(np.percentile(finite, 99))
    if high <= low:
        high = low + 1.0
    missing = len(values) - len(finite)
    whole = f"{float(finite.min()):.3g} to {float(finite.max()):.3g}"
    title = f"{key}: {whole}" + (f", {missing:,} not applicable" if missing else "")
    return Colouring("signal", key, title, values=values, low=low, high=high)


def _clusters(project: Project, dataset: str, by: str) -> Colouring:
    import numpy as np

    from vendiscope.core.clusters.jobs import cluster_labels, latest_cluster_run

    run = latest_cluster_run(project, dataset)
    labels = cluster_labels(project, dataset, run).astype(np.int32)
    stored = ClusterResult.from_json(run.result)
    sizes, sparse = stored.sizes, stored.sparse
    if by == "sparse":
        is_sparse = np.zeros(len(sizes), dtype=np.int32)
        is_sparse[np.asarray(sparse, dtype=np.int64)] = 1
        codes = is_sparse[labels]
        inside = int(codes.sum())
        return Colouring(
            by, None, f"sparse clusters (run #{run.id})", codes=codes,
            names=["(other clusters)", f"sparse clusters ({len(sparse)})"],
            counts=[len(labels) - inside, inside],
        )  # fmt: skip
    sparse_set = set(sparse)
    names = [f"cluster {c}{' (sparse)' if c in sparse_set else ''}" for c in range(len(sizes))]
    return Colouring(
        by, None, f"{len(sizes)} clusters (run #{run.id})", codes=labels, names=names,
        counts=sizes, cycle=True,
    )  # fmt: skip


def _categories(by: str, key: str | None, title: str, values: Sequence[str | None]) -> Colouring:
    """Codes for string values: the largest :data:`MAX_CATEGORIES` - 1 categories, then other."""
    import numpy as np

    counts = Counter(v if v is not None else "(none)" for v in values)
    ranked = [name for name, _ in counts.most_common()]
    kept = ranked if len(ranked) <= MAX_CATEGORIES else ranked[: MAX_CATEGORIES - 1]
    code_of = {name: number for number, name in enumerate(kept)}
    other = len(kept)
    codes = np.fromiter(
        (code_of.get(v if v is not None else "(none)", other) for v in values),
        dtype=np.int32,
        count=len(values),
    )
    names = list(kept)
    sizes = [counts[name] for name in kept]
    if len(ranked) > len(kept):
        names.append(f"(other {title}s: {len(ranked) - len(kept)})")
        sizes.append(sum(counts[name] for name in ranked[len(kept) :]))
    return Colouring(by, key, title, codes=codes, names=names, counts=sizes)
