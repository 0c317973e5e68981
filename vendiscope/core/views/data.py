"""Read helpers behind the views, the audit report and the GUI dashboard.

Each helper gathers one piece of a dataset's audit from what is already stored — the latest
complete run of a kind, its per-record vector set, the records it names — as plain,
JSON-serialisable data. Nothing here recomputes a job's result; the two exceptions are
named: :func:`source_contributions` (one streaming pass over a stored vector set) and
:func:`coverage_data` (a coverage run, recorded like ``vendiscope coverage``).

A piece that has not been computed yet raises :class:`NotComputed`, whose message says which
command computes it (``"... not computed yet; run `vendiscope clusters audit.vscope train`"``).
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.store import vectors
from vendiscope.core.store.models import RunInfo
from vendiscope.core.store.project import Project
from vendiscope.core.store.schema import Record
from vendiscope.core.store.vectors import VectorSetInfo

if TYPE_CHECKING:
    import numpy as np

VENDI_METRICS = {"gvendi": "gradient", "vendi": "embedding"}
"""The headline Vendi scores and the kind of vector set each is computed on."""
METRIC_TITLES = {"gvendi": "G-Vendi", "vendi": "embedding-Vendi"}
NO_SOURCE = "(none)"
"""The source of records that have none (parenthesised: drawn as background by renderers)."""
MAX_CONTRIBUTION_SOURCES = 20
"""Sources (the largest) whose leave-one-out contribution :func:`source_contributions` computes."""
TEXT_WIDTH = 300


class NotComputed(ProjectError):
    """A piece of the audit that has not been computed yet; ``command`` computes it."""

    def __init__(self, what: str, command: str) -> None:
        super().__init__(f"{what} not computed yet; run `{command}`")
        self.what = what
        self.command = command


def command(project: Project, name: str, *args: str) -> str:
    """A ``vendiscope`` command line for this project, quoted for a shell."""
    return " ".join(["vendiscope", name, *(shlex.quote(str(a)) for a in (project.location, *args))])


def shorten(text: str | None, width: int = TEXT_WIDTH) -> str:
    """``text`` on one line, cut to ``width`` characters (with an ellipsis)."""
    if not text:
        return ""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


# ----------------------------------------------------------------------------- runs
def complete_runs(
    project: Project, dataset: str, kind: str, where: Callable[[RunInfo], bool] | None = None
) -> list[RunInfo]:
    """The complete runs of ``kind`` on ``dataset`` that have a result, oldest first."""
    return [
        r
        for r in project.runs(dataset)
        if r.kind == kind and r.status == "complete" and r.result and (where is None or where(r))
    ]


def latest_run(
    project: Project, dataset: str, kind: str, where: Callable[[RunInfo], bool] | None = None
) -> RunInfo | None:
    """The most recent complete run of ``kind`` (optionally matching ``where``), or None."""
    runs = complete_runs(project, dataset, kind, where)
    return runs[-1] if runs else None


complete_sets = vectors.complete_sets


# ----------------------------------------------------------------------------- scores
def score_run(project: Project, dataset: str, metric: str = "gvendi") -> RunInfo | None:
    """The latest headline Vendi run: ``gvendi`` (on gradients) or ``vendi`` (embeddings).

    Only unweighted runs of order q = 1 of the built-in Vendi metric count: other orders
    and quality-weighted scores are different numbers.
    """
    if metric not in VENDI_METRICS:
        raise ProjectError(f"metric must be one of {', '.join(VENDI_METRICS)}; got '{metric}'")
    kinds = {s.name: s.kind for s in vectors.list_sets(project, dataset)}

    def fits(run: RunInfo) -> bool:
        params = run.params or {}
        name = params.get("vector_set")
        kind = kinds.get(name) or VENDI_METRICS.get(params.get("metric", ""))
        q = (params.get("params") or {}).get("q", 1.0)
        return (
            run.plugin == "metric:vendi"
            and kind == VENDI_METRICS[metric]
            and params.get("quality") is None
            and _is_number(q)
            and float(q) == 1.0
            and _is_number((run.result or {}).get("value"))
        )

    return latest_run(project, dataset, "metric", fits)


def score_summary(project: Project, dataset: str, metric: str = "gvendi") -> dict[str, Any]:
    """The headline score: value, n, effective fraction, interval, per source, spectrum.

    Raises :class:`NotComputed` (naming the command) when there is no such score yet.
    """
    run = score_run(project, dataset, metric)
    if run is None:
        raise NotComputed(METRIC_TITLES[metric], missing_score_command(project, dataset, metric))
    result = run.result or {}
    details = result.get("details") or {}
    value = float(result["value"])
    n = int(result.get("n") or details.get("n") or 0)
    return {
        "metric": metric,
        "title": METRIC_TITLES[metric],
        "value": value,
        "n": n,
        "fraction": value / n if n else None,
        "ci": details.get("ci"),
        "ci_level": details.get("ci_level"),
        "vector_set": (run.params or {}).get("vector_set"),
        "per_source": result.get("per_source") or {},
        "spectrum_top": details.get("spectrum_top") or [],
        "per_record_set": result.get("per_record_set"),
        "run_id": run.id,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
    }


def missing_score_command(project: Project, dataset: str, metric: str) -> str:
    """What to run for a missing G-Vendi / embedding-Vendi score."""
    kind = VENDI_METRICS[metric]
    extra = ["--metric", "vendi"] if metric == "vendi" else []
    score = command(project, "score", dataset, *extra)
    if complete_sets(project, dataset, kind):
        return score
    first = command(project, "gradients" if kind == "gradient" else "embed", dataset)
    return f"{first}` then `{score}"


# ----------------------------------------------------------------------------- records
def record_sources(project: Project, dataset: str) -> list[str | None]:
    """The source of each record, in dataset order (None where it has none)."""
    info = project.dataset(dataset)
    query = select(Record.source).where(Record.dataset_id == info.id).order_by(Record.seq)
    with project.engine.connect() as connection:
        return [row[0] for row in connection.execute(query)]


def record_texts(
    project: Project, dataset: str, positions: Sequence[int], width: int = TEXT_WIDTH
) -> dict[int, dict[str, Any]]:
    """Shortened text and source of the records at ``positions``, by position."""
    from vendiscope.core.neighbors.search import records_at

    found = records_at(project, dataset, [int(p) for p in positions])
    return {
        p: {"position": p, "text": shorten(r.display_text(), width), "source": r.source,
            "id": r.ext_id}
        for p, r in found.items()
    }  # fmt: skip


# ----------------------------------------------------------------------------- sources
def source_table(
    project: Project, dataset: str, *, contributions: str | None = "auto"
) -> dict[str, Any]:
    """Per source: records, share, G-Vendi and embedding-Vendi of the source alone, and what
    the source adds to the whole (its leave-one-out contribution, see
    :func:`source_contributions`).

    ``contributions``: ``"gvendi"`` or ``"vendi"`` (on that score's vector set), ``"auto"``
    (G-Vendi's set if scored, else embedding-Vendi's), or None (skip: no vectors are read).
    Missing scores leave their columns None.
    """
    stats = project.stats(dataset)
    total = int(stats["rows"])
    scores: dict[str, dict[str, Any] | None] = {}
    for metric in VENDI_METRICS:
        try:
            scores[metric] = score_summary(project, dataset, metric)
        except NotComputed:
            scores[metric] = None
    basis = None
    if contributions == "auto":
        basis = next((m for m in VENDI_METRICS if scores[m] is not None), None)
    elif contributions is not None:
        if contributions not in VENDI_METRICS:
            raise ProjectError(f"contributions must be gvendi, vendi, auto or None; got "
                               f"'{contributions}'")  # fmt: skip
        basis = contributions if scores[contributions] is not None else None
    added: dict[str, float | None] = {}
    whole = None
    if basis is not None:
        summary = scores[basis]
        assert summary is not None
        found = source_contributions(project, dataset, summary["vector_set"])
        added, whole = found["contributions"], found["whole"]
    rows = []
    for name, count in stats["sources"].items():
        key = None if name == NO_SOURCE else name
        row: dict[str, Any] = {"source": name, "records": int(count),
                               "share": count / total if total else 0.0}  # fmt: skip
        for metric in VENDI_METRICS:
            per_source = (scores[metric] or {}).get("per_source") or {}
            entry = per_source.get(key) if key is not None else None
            row[metric] = float(entry["value"]) if entry else None
        row["contribution"] = added.get(name) if basis is not None else None
        rows.append(row)
    return {
        "dataset": dataset,
        "records": total,
        "sources": rows,
        "contribution_basis": basis,
        "contribution_vector_set": scores[basis]["vector_set"] if basis else None,  # type: ignore[index]
        "whole": whole,
        "scores": {m: (s["run_id"] if s else None) for m, s in scores.items()},
    }


def source_contributions(
    project: Project, dataset: str, vector_set: str, *, max_sources: int = MAX_CONTRIBUTION_SOURCES
) -> dict[str, Any]:
    """What each source adds to the dataset's Vendi score (q = 1) on ``vector_set``.

    ``contribution(s) = VS(all records) - VS(all records except source s)``, in the score's
    unit (effective number of distinct examples). It can be negative: leaving out a large
    source of near-copies can make the rest *more* diverse. One streaming pass over the set
    accumulates each source's ``X_s^T X_s`` (``d x d``); the largest ``max_sources`` sources
    get a value, the others None.
    """
    import numpy as np

    from vendiscope.core.metrics.vendi import vendi_from_gram

    info = vectors.get_set(project, dataset, vector_set)
    sources = [s if s is not None else NO_SOURCE for s in record_sources(project, dataset)]
    names, codes, counts = np.unique(np.asarray(sources, dtype=object), return_inverse=True,
                                     return_counts=True)  # fmt: skip
    kept = np.argsort(-counts, kind="stable")[:max_sources]
    slot = np.full(len(names), len(kept), dtype=np.int64)  # the rest share one Gram
    slot[kept] = np.arange(len(kept))
    row_slot = slot[codes]
    grams = np.zeros((len(kept) + 1, info.dim, info.dim), dtype=np.float64)
    for start, chunk in vectors.iter_chunks(project, dataset, vector_set):
        block = chunk.astype(np.float32)
        block = block / np.maximum(np.linalg.norm(block, axis=1, keepdims=True), 1e-12)
        here = row_slot[start : start + len(block)]
        for s in np.unique(here):
            rows = block[here == s]
            grams[s] += (rows.T @ rows).astype(np.float64)
    total = grams.sum(axis=0)
    n = len(sources)
    whole = vendi_from_gram(total, n)
    out: dict[str, float | None] = {str(name): None for name in names}
    for position, code in enumerate(kept):
        rest = n - int(counts[code])
        out[str(names[code])] = (
            round(whole - vendi_from_gram(total - grams[position], rest), 6) if rest else whole
        )
    return {"vector_set": vector_set, "whole": round(whole, 6), "contributions": out}


# ----------------------------------------------------------------------------- near-dups
def near_duplicate_summary(project: Project, dataset: str) -> dict[str, Any]:
    """The latest near-duplicate run: threshold, groups, redundant records, group sizes."""
    run = latest_run(project, dataset, "near-duplicates")
    if run is None:
        raise NotComputed("near-duplicates", command(project, "near-dups", dataset))
    result = run.result or {}
    return {
        "run_id": run.id,
        "vector_set": result.get("vector_set"),
        "threshold": result.get("threshold"),
        "records": result.get("records"),
        "groups": result.get("groups", 0),
        "records_in_groups": result.get("records_in_groups", 0),
        "redundant": result.get("redundant", 0),
        "largest_group": result.get("largest_group", 0),
        "subset": result.get("subset"),
        "group_sizes": result.get("group_sizes") or [],
        "groups_truncated": bool(result.get("groups_truncated")),
        "group_positions": result.get("group_positions") or [],
    }


def near_duplicate_groups(
    project: Project, dataset: str, *, top: int = 10, members: int = 4, width: int = 160
) -> list[dict[str, Any]]:
    """The ``top`` largest near-duplicate groups with the texts of their first ``members``."""
    summary = near_duplicate_summary(project, dataset)
    groups = summary["group_positions"][:top]
    wanted = [p for g in groups for p in g[:members]]
    texts = record_texts(project, dataset, wanted, width)
    return [
        {"size": len(g), "representative": g[0],
         "records": [texts[p] for p in g[:members] if p in texts]}
        for g in groups
    ]  # fmt: skip


# ----------------------------------------------------------------------------- clusters
def cluster_run(project: Project, dataset: str) -> RunInfo:
    """The latest complete clustering run (raises :class:`NotComputed`)."""
    run = latest_run(project, dataset, "clusters")
    if run is None:
        raise NotComputed("clustering", command(project, "clusters", dataset))
    return run


def cluster_labels(project: Project, dataset: str, run: RunInfo) -> np.ndarray:
    """Each record's cluster from a clustering run (int64)."""
    import numpy as np

    column = vectors.load(project, dataset, run.result["labels"])[:, 0]  # type: ignore[index]
    return column.astype(np.int64)


def cluster_table(project: Project, dataset: str, subset: str | None = None) -> dict[str, Any]:
    """Cluster sizes and sparse clusters of the latest clustering; with ``subset``, how many
    of its members fall in each cluster and how many clusters (and sparse ones) it reaches."""
    import numpy as np

    from vendiscope.core.store import subsets

    run = cluster_run(project, dataset)
    result = run.result or {}
    sizes = [int(s) for s in result["sizes"]]
    sparse = sorted(int(c) for c in result.get("sparse", []))
    table: dict[str, Any] = {
        "run_id": run.id,
        "vector_set": result.get("vector_set"),
        "n_clusters": len(sizes),
        "median_size": float(result.get("median_size", float(np.median(sizes)))),
        "sizes": sizes,
        "sparse": sparse,
        "records_in_sparse": int(sum(sizes[c] for c in sparse)),
        "records": int(sum(sizes)),
        "subset": subset,
    }
    if subset is not None:
        positions = subsets.members(project, dataset, subset).positions
        labels = cluster_labels(project, dataset, run)
        counts = np.bincount(labels[np.asarray(positions, dtype=np.int64)], minlength=len(sizes))
        hit = counts > 0
        table.update(
            subset_size=len(positions),
            subset_counts=[int(c) for c in counts],
            clusters_reached=int(hit.sum()),
            sparse_reached=int(hit[sparse].sum()) if sparse else 0,
            subset_in_sparse=int(counts[sparse].sum()) if sparse else 0,
        )
    return table


def sparse_cluster_examples(
    project: Project, dataset: str, *, limit: int = 10, width: int = 200
) -> list[dict[str, Any]]:
    """The smallest sparse clusters (up to ``limit``) with example records (from the run)."""
    run = cluster_run(project, dataset)
    result = run.result or {}
    sizes = result["sizes"]
    listed = list((result.get("examples") or {}).items())[:limit]
    texts = record_texts(project, dataset, [p for _, ps in listed for p in ps], width)
    return [
        {"cluster": int(c), "size": int(sizes[int(c)]),
         "records": [texts[p] for p in ps if p in texts]}
        for c, ps in listed
    ]  # fmt: skip


# ----------------------------------------------------------------------------- selections
def selection_runs(project: Project, dataset: str) -> list[dict[str, Any]]:
    """Every complete selection run, oldest first: method, k, subset, final Vendi per vector
    set (and of a random order of as many candidates), objective and curves."""
    existing = {s.name for s in project.subsets(dataset)}
    out = []
    for run in complete_runs(project, dataset, "selection"):
        result = run.result or {}
        curve = result.get("curve") or {}
        out.append({
            "run_id": run.id,
            "method": result.get("method", run.plugin.removeprefix("selector:")),
            "k": result.get("k"),
            "candidates": result.get("candidates"),
            "vector_set": result.get("vector_set"),
            "subset": result.get("subset"),
            "subset_exists": result.get("subset") in existing,
            "objective": result.get("objective"),
            "vendi": result.get("vendi") or {},
            "random_vendi": result.get("random_vendi") or {},
            "curve": curve,
            "kinds": curve.get("kinds") or {},
        })  # fmt: skip
    return out


def latest_selection_subset(project: Project, dataset: str) -> str | None:
    """The subset of the latest selection run that still exists, if any."""
    runs = [r for r in selection_runs(project, dataset) if r["subset_exists"]]
    return runs[-1]["subset"] if runs else None


# ----------------------------------------------------------------------------- maps
def map_set(project: Project, dataset: str, name: str | None = None) -> VectorSetInfo:
    """The named projection set, or the latest complete map (raises :class:`NotComputed`)."""
    from vendiscope.core.maps.jobs import latest_map

    if name is not None:
        found = vectors.get_set(project, dataset, name)
        if found.kind != "projection" or found.dim != 2:
            raise ProjectError(f"vector set '{name}' is not a 2-D map (kind {found.kind}, "
                               f"{found.dim} columns)")  # fmt: skip
        return found
    found = latest_map(project, dataset)
    if found is None:
        raise NotComputed("the 2-D map", command(project, "map", dataset))
    return found


def map_method(project: Project, info: VectorSetInfo) -> str:
    """``umap`` or ``pca`` (from the map's parameters, else its name)."""
    method = (info.params or {}).get("method")
    if method:
        return str(method)
    parts = info.name.split("/")
    return parts[1] if len(parts) > 2 else "map"


def sample_positions(n: int, max_points: int, seed: int = 0) -> np.ndarray:
    """All positions, or a seeded random sample of ``max_points`` of them (sorted)."""
    import numpy as np

    if max_points < 1:
        raise ProjectError(f"max_points must be at least 1; got {max_points}")
    if n <= max_points:
        return np.arange(n, dtype=np.int64)
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(n, size=max_points, replace=False)).astype(np.int64)


def score_set(project: Project, dataset: str, name: str | None = None) -> VectorSetInfo:
    """A one-column per-record score set: ``name`` or the latest (raises :class:`NotComputed`)."""
    if name is not None:
        found = vectors.get_set(project, dataset, name)
        if found.dim != 1:
            raise ProjectError(f"vector set '{name}' has {found.dim} columns; a score has one")
        return found
    found_sets = complete_sets(project, dataset, "score")
    if not found_sets:
        raise NotComputed("per-record scores", command(project, "score", dataset))
    return found_sets[-1]


# ----------------------------------------------------------------------------- coverage
def coverage_data(
    project: Project,
    dataset: str,
    target: str,
    *,
    radius: float = 0.8,
    vector_set: str | None = None,
    target_vector_set: str | None = None,
    train_subset: str | None = None,
    listed: int = 50,
    width: int = 200,
    step: float = 0.01,
) -> dict[str, Any]:
    """How well ``dataset`` covers ``target``: runs
    :func:`vendiscope.core.neighbors.search.coverage`
    (recorded as a coverage run) and returns the fraction within ``radius``, the quantiles,
    the covered fraction at every radius on a grid (``step`` apart, the radius included),
    and the least covered targets (up to ``listed``) beside their nearest training record."""
    import numpy as np

    from vendiscope.core.metrics.scoring import default_vector_set
    from vendiscope.core.neighbors.search import coverage

    for name, given in ((dataset, vector_set), (target, target_vector_set)):
        if given is None:
            try:
                default_vector_set(project, name, "embedding")
            except ProjectError:
                hint = command(project, "embed", name)
                raise NotComputed(f"embeddings of '{name}'", hint) from None
    report = coverage(project, dataset, vector_set, target, target_vector_set, radius=radius,
                      train_subset=train_subset)  # fmt: skip
    sims = report.similarities.astype(np.float64)
    low = math.floor(min(float(sims.min()), radius) * 20) / 20 if len(sims) else 0.0
    low = max(low, -1.0)
    count = round((1.0 - low) / step) + 1
    radii = np.union1d(np.round(np.linspace(low, 1.0, count), 6), [round(radius, 6)])
    ordered = np.sort(sims)
    covered_at = 1.0 - np.searchsorted(ordered, radii, side="left") / max(len(sims), 1)
    worst = [int(i) for i in np.argsort(sims, kind="stable")[:listed] if sims[i] < radius]
    targets = record_texts(project, target, worst, width)
    nearest = [int(report.nearest[i]) for i in worst]
    trains = record_texts(project, dataset, [p for p in nearest if p >= 0], width)
    return {
        **report.summary(),
        "uncovered_count": len(report.uncovered),
        "radii": [round(float(r), 6) for r in radii],
        "covered_at": [round(float(c), 6) for c in covered_at],
        "least_covered": [
            {"target": targets.get(i, {"position": i, "text": ""}),
             "similarity": round(float(sims[i]), 6),
             "nearest": trains.get(p, {"position": p, "text": ""})}
            for i, p in zip(worst, nearest, strict=True)
        ],
    }  # fmt: skip


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


__all__ = [
    "NotComputed",
    "cluster_labels",
    "cluster_run",
    "cluster_table",
    "command",
    "complete_runs",
    "complete_sets",
    "coverage_data",
    "latest_run",
    "latest_selection_subset",
    "map_method",
    "map_set",
    "near_duplicate_groups",
    "near_duplicate_summary",
    "record_sources",
    "record_texts",
    "sample_positions",
    "score_run",
    "score_set",
    "score_summary",
    "selection_runs",
    "source_contributions",
    "source_table",
    "sparse_cluster_examples",
]


# ----------------------------------------------------------------------------- view data
class ViewData(dict):  # type: ignore[type-arg]
    """The ``data`` a view's ``build`` receives, for one dataset of a project.

    Built-in views read ``"project"`` and ``"dataset"`` (and ``"target"`` for coverage) and
    find the rest in the stored runs. For views that prefer plain arrays, the keys
    ``"vectors"``, ``"scores"``, ``"labels"``, ``"positions"`` and ``"title"`` are present
    too, and loaded from
    the project only when a view reads them (a 1,000,000-row vector set is never read for a
    view that does not ask for it). A key whose data does not exist (no score set yet) is
    absent.
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
        super().__init__(project=project, dataset=dataset, **extra)
        if target is not None:
            self["target"] = target
        self._loaders: dict[str, Callable[[], Any]] = {}
        info = project.dataset(dataset)
        self._loaders["title"] = lambda: dataset
        self._loaders["positions"] = lambda: _arange(info.row_count)
        self._loaders["labels"] = lambda: record_sources(project, dataset)
        features = self._features(project, dataset, vector_set)
        if features is not None:
            self._loaders["vectors"] = lambda: vectors.load(project, dataset, features)
        scores = self._scores(project, dataset, score_set)
        if scores is not None:
            self._loaders["scores"] = lambda: vectors.load(project, dataset, scores)[:, 0]
        for key in self._loaders:
            if key not in self:
                dict.__setitem__(self, key, self._LAZY)

    @staticmethod
    def _features(project: Project, dataset: str, name: str | None) -> str | None:
        if name is not None:
            return vectors.get_set(project, dataset, name).name
        for kind in ("embedding", "gradient", "feature"):
            found = complete_sets(project, dataset, kind)
            if found:
                return found[-1].name
        return None

    @staticmethod
    def _scores(project: Project, dataset: str, name: str | None) -> str | None:
        if name is not None:
            return score_set(project, dataset, name).name
        found = complete_sets(project, dataset, "score")
        return found[-1].name if found else None

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

    def items(self) -> Any:  # type: ignore[override]
        return [(key, self[key]) for key in dict.keys(self)]

    def values(self) -> Any:  # type: ignore[override]
        return [self[key] for key in dict.keys(self)]

    def copy(self) -> dict[str, Any]:
        return dict(self.items())


def _arange(n: int) -> np.ndarray:
    import numpy as np

    return np.arange(n, dtype=np.int64)
