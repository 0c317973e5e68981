"""Scoring a subset of a dataset's rows, and the random baseline it is compared with.

A subset is scored on the rows of the dataset's vector set at its members' positions (in
dataset order), with the same metric and parameters as the whole dataset, so it equals the
score of the same records imported as a dataset of their own with the same vectors. Its
per-source breakdown counts only the subset's records. :func:`score_matrix` is the in-memory
scoring both the whole dataset and a subset use (:mod:`vendiscope.core.metrics.scoring`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import CancelToken
from vendiscope.core.metrics import streaming
from vendiscope.core.metrics.algorithms import equal_n
from vendiscope.core.metrics.options import DEFAULT_DRAWS
from vendiscope.core.store import record_lookup, subsets, vectors

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.plugin_host.interfaces import MetricResult
    from vendiscope.core.plugin_host.registry import PluginRegistry
    from vendiscope.core.store.project import Project
    from vendiscope.core.store.vectors import VectorSetInfo

SUBSET_KIND = "subset-score"
"""The kind of a subset's score run: apart from ``metric`` so that the readers of a
dataset's latest score (the dashboard, the report, views) never take a subset's for it."""
MIN_SOURCE_ROWS = 2


def subset_positions(project: Project, dataset: str, name: str) -> list[int]:
    """The dataset positions of subset ``name``'s members, in dataset order.

    An unknown name is a :class:`ProjectError` naming it and listing the dataset's subsets.
    """
    found = subsets.members(project, dataset, name).positions
    if not found:
        raise ProjectError(f"subset '{name}' of dataset '{dataset}' is empty: nothing to score")
    return sorted(found)


def check_request(
    plugin: str, subset: str | None, vs_random: bool, random_draws: int = DEFAULT_DRAWS
) -> int:
    """Refuse, before any run starts, a random baseline that cannot be drawn.

    ``vs_random`` is a yes/no flag (the CLI's ``--vs-random``), ``random_draws`` the number of
    random subsets drawn for it (``--random-draws``). Returns the number of draws: 0 without a
    baseline.
    """
    if not isinstance(vs_random, bool):
        raise ProjectError(
            f"vs_random is a yes/no flag (True: compare with random subsets of the same size); "
            f"the number of draws is random_draws=N (default {DEFAULT_DRAWS}); got "
            f"vs_random={vs_random!r}"
        )
    draws = check_draws(random_draws)
    if not vs_random:
        return 0
    if subset is None:
        raise ProjectError(
            "the random baseline compares a subset with random subsets of its size; "
            "name a subset (--subset NAME) to compare"
        )
    if plugin != "vendi":
        raise ProjectError(
            f"the random baseline is drawn with the built-in Vendi score; metric '{plugin}' "
            "has none (score without --vs-random)"
        )
    return draws


def check_draws(random_draws: object) -> int:
    """The number of random subsets of a random baseline, refused unless a whole number >= 1."""
    if (
        isinstance(random_draws, bool)
        or not isinstance(random_draws, int | float)
        or int(random_draws) != random_draws
        or random_draws < 1
    ):
        raise ProjectError(
            f"random_draws must be a number of random draws >= 1; got {random_draws!r}"
        )
    return int(random_draws)


def check_fits(
    target: VectorSetInfo, rows: int, draws: int, memory_budget: int | None = None
) -> None:
    """Refuse, before the run, a subset (or, for a baseline, a whole set) above the budget."""
    import numpy as np

    budget = streaming.memory_budget() if memory_budget is None else memory_budget
    needed = (target.n_rows if draws else rows) * target.dim * np.dtype(target.dtype).itemsize
    if needed > budget:
        what = "the random baseline needs the whole vector set" if draws else "the subset"
        raise ProjectError(
            f"{what} in memory ({needed / 2**30:.2f} GiB of vector set '{target.name}'), more "
            f"than the memory budget; raise {streaming.ENV_BUDGET} or score a smaller subset"
        )


def score_matrix(
    matrix: np.ndarray,
    instance: Any,
    plugin: str,
    registry: PluginRegistry,
    *,
    weights: np.ndarray | None,
    sources: dict[str, list[int]] | None,
    cancel: CancelToken,
    projected: bool = False,
) -> tuple[MetricResult, dict[str, dict[str, Any]]]:
    """The metric over ``matrix``, and over each source's rows (``sources``: row indices).

    Each source of at least :data:`MIN_SOURCE_ROWS` rows gets ``{"n", "value"}`` (its own
    score); with the built-in Vendi metric also ``"equal_n"``, its score at the smallest
    scored source's size (:func:`.equal_n.add_to_breakdown`: the mean of
    :data:`.equal_n.DEFAULT_DRAWS` seeded random draws, each quality-weighted by the mean
    weight of its rows as the source's own score is).

    ``projected`` (random projections, e.g. gradients): the built-in Vendi metric's details
    get ``projection_error``, how much the projection moved the score
    (:mod:`vendiscope.core.metrics.algorithms.projection_error`).
    """
    import numpy as np

    from vendiscope.core.metrics.algorithms.projection_error import projection_error

    with registry.running("metric", plugin, "compute"):
        result = instance.compute(matrix, quality=weights)
    registry.check_result("metric", plugin, result, rows=len(matrix))
    cancel.raise_if_cancelled()
    if projected and plugin == "vendi" and len(matrix) >= 2:
        found = projection_error(matrix, q=float(getattr(instance, "q", 1.0)))
        scale = float(result.value) / float(result.details.get("effective_number") or 1.0)
        result.details["projection_error"] = {  # in the result's units (quality-weighted)
            **found,
            "sd": found["sd"] * scale,
            "shift": found["shift"] * scale,
        }
        cancel.raise_if_cancelled()
    breakdown: dict[str, dict[str, Any]] = {}
    for source, positions in (sources or {}).items():
        cancel.raise_if_cancelled()
        if len(positions) >= MIN_SOURCE_ROWS:
            index = np.asarray(positions)
            rows = matrix[index]
            sub_quality = weights[index] if weights is not None else None
            with registry.running("metric", plugin, "compute"):
                part = instance.compute(rows, quality=sub_quality)
            part = registry.check_result("metric", plugin, part, rows=len(rows))
            breakdown[source] = {"n": len(positions), "value": float(part.value)}
    if plugin == "vendi":  # each source also at the smallest one's size (equal_n.py)
        score = equal_n.matrix_score(
            matrix, q=getattr(instance, "q", 1.0), normalize=getattr(instance, "normalize", True)
        )
        equal_n.add_to_breakdown(breakdown, lambda source, m: equal_n.at_size_with(
            score, sources[source], m, quality=weights, check_cancel=cancel.raise_if_cancelled,
        ))  # fmt: skip
    return result, breakdown


def score_subset(
    project: Project,
    dataset: str,
    target: VectorSetInfo,
    instance: Any,
    plugin: str,
    registry: PluginRegistry,
    positions: list[int],
    *,
    weights: np.ndarray | None,
    per_source: bool,
    draws: int = 0,
    seed: int = 0,
    cancel: CancelToken,
) -> tuple[MetricResult, dict[str, dict[str, Any]], dict[str, Any] | None]:
    """Score the rows at ``positions`` (sorted dataset positions) of ``target``.

    Returns the metric's result, the per-source scores of the subset's records and, with
    ``draws`` (> 0), the random baseline (:func:`.subset_baseline.random_baseline`).
    The whole matrix is loaded once when a baseline is drawn (:func:`check_fits` first);
    otherwise only the chunks holding the subset's rows are read.
    """
    import numpy as np

    from vendiscope.core.metrics.subset_baseline import random_baseline

    index = np.asarray(positions, dtype=np.int64)
    full = vectors.load(project, dataset, target.name) if draws else None
    matrix = full[index] if full is not None else vectors.read_rows(project, target, positions)
    sub_weights = weights[index] if weights is not None else None
    sources = _subset_sources(project, dataset, positions) if per_source else None
    result, breakdown = score_matrix(
        matrix, instance, plugin, registry, weights=sub_weights, sources=sources, cancel=cancel,
        projected=target.kind == "gradient",
    )  # fmt: skip
    baseline = None
    if full is not None:
        baseline = random_baseline(
            full, len(positions), float(result.value), draws=draws, seed=seed,
            q=getattr(instance, "q", 1.0), normalize=getattr(instance, "normalize", True),
            quality=weights, check_cancel=cancel.raise_if_cancelled,
        )  # fmt: skip
    return result, breakdown, baseline


def _subset_sources(project: Project, dataset: str, positions: list[int]) -> dict[str, list[int]]:
    """Each source's records in the subset, as row indices of the subset's matrix."""
    slot = {position: row for row, position in enumerate(positions)}
    found: dict[str, list[int]] = {}
    for source, members in record_lookup.source_positions(project, dataset).items():
        inside = [slot[p] for p in members if p in slot]
        if inside:
            found[source] = inside
    return found
