"""Does a metric, at this size, tell the data's own groups apart? A permutation test at equal n.

The groups are the dataset's sources or, without sources, clusters of its embeddings
(:mod:`.check_groups`). At a size ``n`` (half the rows, at most :data:`MAX_ROWS`):

- **concentrated** draws take ``n`` rows from as few groups as possible (groups in a random
  order, each used up before the next);
- **mixed** draws take ``n`` rows uniformly from every grouped row.

Each side is drawn :data:`DRAWS` times (seeded) and scored with the metric's Vendi order.
If the metric sees the groups, mixed draws score higher. The statistic is the difference of
the two means; its p-value counts the splits of the ``2 * DRAWS`` scores in two halves that
differ as much (under "the metric does not see the groups" the labels are exchangeable):
every split when there are few, else :data:`EXACT_SPLITS` seeded random ones. The
threshold is the metric's own draw-to-draw noise on this data, not a curve measured on
another metric or corpus. The ratio ``mean(mixed) / mean(concentrated)`` and the gap in
pooled draw-sd are reported beside it.

Pure NumPy: rows come from a ``rows_at(positions)`` callable returning unit rows.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from vendiscope.core.metrics.algorithms import vendi

DRAWS = 16
"""Draws per side. On real Debian sections 16 told groups apart at half the size 8 needed
(``tests/benchmarks/bench_group_check.py``); the smallest p-value is about 0.00005."""

MAX_ROWS = 512
"""The largest size checked (the cost of a check is ``2 * DRAWS`` scores of this many rows)."""

MIN_ROWS = 16
"""Below this many rows per draw the check is not run."""

ALPHA = 0.01
"""A p-value at or below this (and mixed draws scoring higher) means the metric tells the
groups apart."""

EXACT_SPLITS = 20_000
"""Label splits enumerated for an exact p-value (8 draws a side: ``C(16, 8) = 12,870``);
beyond this many, this many are sampled."""

LEVELS = ("resolves", "does_not", "unchecked")


def check_size(grouped_rows: int) -> int:
    """The size the check draws at: half the grouped rows, at most :data:`MAX_ROWS`."""
    return min(MAX_ROWS, grouped_rows // 2)


def concentrated_draw(groups: Sequence[np.ndarray], n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` positions from as few groups as the sizes allow (groups in a random order)."""
    taken: list[np.ndarray] = []
    left = n
    for number in rng.permutation(len(groups)):
        members = rng.permutation(groups[number])
        taken.append(members[:left])
        left -= len(taken[-1])
        if left == 0:
            break
    return np.sort(np.concatenate(taken))


def permutation_p(mixed: Sequence[float], concentrated: Sequence[float], *, seed: int = 0) -> float:
    """One-sided p-value of ``mean(mixed) - mean(concentrated)`` over label splits.

    Exact (every split) up to :data:`EXACT_SPLITS` splits, else that many seeded random ones.
    """
    scores = np.asarray([*mixed, *concentrated], dtype=np.float64)
    k, total = len(mixed), float(scores.sum())
    observed = 2 * float(np.sum(mixed)) - total
    slack = 1e-12 * max(1.0, abs(total))
    if math.comb(len(scores), k) <= EXACT_SPLITS:
        chosen = np.array(list(itertools.combinations(range(len(scores)), k)))
    else:
        rng = np.random.default_rng(seed)
        chosen = np.array([rng.permutation(len(scores))[:k] for _ in range(EXACT_SPLITS)])
        chosen = np.vstack([np.arange(k), chosen])  # the observed split counts once
    picked = scores[chosen].sum(axis=1)
    return float(np.mean(2 * picked - total >= observed - slack))


def check(
    rows_at: Callable[[np.ndarray], np.ndarray],
    groups: Mapping[str, Sequence[int]],
    *,
    metric: str,
    groups_from: str,
    q: float | str = 1.0,
    draws: int = DRAWS,
    seed: int = 0,
    check_cancel: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Run the check (module docstring); returns the JSON-ready fields and the sentence.

    ``groups``: dataset positions of each group; ``groups_from``: ``"sources"`` or
    ``"embedding clusters"``; ``metric``: its name in the sentence ("G-Vendi").
    """
    order = vendi.check_order(q)
    members = [np.asarray(p, dtype=np.int64) for p in groups.values() if len(p)]
    grouped = int(sum(len(p) for p in members))
    n = check_size(grouped)
    base: dict[str, Any] = {
        "metric": metric, "groups_from": groups_from, "groups": len(members), "n": n,
        "draws": int(draws), "alpha": ALPHA,
    }  # fmt: skip
    if len(members) < 2:
        return _unchecked(base, f"the data has fewer than two {groups_from} to tell apart")
    if n < MIN_ROWS:
        return _unchecked(base, f"{grouped:,} rows in {groups_from} are too few (a check "
                          f"draws {MIN_ROWS} rows or more, from twice as many)")  # fmt: skip
    everything = np.sort(np.concatenate(members))
    rng = np.random.default_rng(seed)
    mixed, concentrated = [], []
    for _ in range(int(draws)):
        for side, picks in ((mixed, None), (concentrated, members)):
            if check_cancel is not None:
                check_cancel()
            chosen = (
                np.sort(rng.choice(everything, size=n, replace=False))
                if picks is None
                else concentrated_draw(picks, n, rng)
            )
            side.append(vendi.vendi_score(rows_at(chosen), q=order, normalize=False))
    mixed_mean, concentrated_mean = float(np.mean(mixed)), float(np.mean(concentrated))
    pooled = math.sqrt((np.var(mixed, ddof=1) + np.var(concentrated, ddof=1)) / 2)
    p = permutation_p(mixed, concentrated)
    found = base | {
        "mixed": {"mean": mixed_mean, "sd": float(np.std(mixed, ddof=1))},
        "concentrated": {"mean": concentrated_mean, "sd": float(np.std(concentrated, ddof=1))},
        "ratio": mixed_mean / concentrated_mean,
        "separation_sd": (mixed_mean - concentrated_mean) / pooled if pooled > 0 else None,
        "p_value": p,
        "level": "resolves" if p <= ALPHA and mixed_mean > concentrated_mean else "does_not",
    }
    found["text"] = sentence(found)
    return found


def _unchecked(base: dict[str, Any], reason: str) -> dict[str, Any]:
    found = base | {"level": "unchecked", "reason": reason}
    found["text"] = sentence(found)
    return found


def _groups_phrase(found: Mapping[str, Any]) -> str:
    return f"your {int(found['groups']):,} {found['groups_from']}"


def sentence(found: Mapping[str, Any]) -> str:
    """The check in words a curator acts on."""
    metric, n = found["metric"], int(found["n"])
    if found["level"] == "unchecked":
        return f"Not checked whether {metric} sees your data's groups: {found['reason']}."
    numbers = f"ratio {found['ratio']:.2f}, p = {found['p_value']:.2g}"
    if found["level"] == "resolves":
        return (
            f"At {n:,} rows {metric} tells {_groups_phrase(found)} apart from a random mix "
            f"({numbers}): at this size it reflects how varied the data is."
        )
    return (
        f"At {n:,} rows {metric} does not tell {_groups_phrase(found)} apart from a random mix "
        f"({numbers}, within noise): a difference in {metric} between datasets of this size "
        "may not mean a difference in variety."
    )


def verdict(found: Mapping[str, Any]) -> dict[str, str]:
    """``{"level", "text"}`` for a result's ``details["verdict"]``."""
    return {"level": str(found["level"]), "text": str(found["text"])}


def advice(checks: Mapping[str, Mapping[str, Any]]) -> str:
    """One sentence over the checks of several metrics (name -> check), or ``""``.

    Says which metric to compare datasets by at this size when they disagree.
    """
    done = {name: c for name, c in checks.items() if c.get("level") in ("resolves", "does_not")}
    if len(done) < 2:
        return ""
    sees = [name for name, c in done.items() if c["level"] == "resolves"]
    blind = [name for name, c in done.items() if c["level"] == "does_not"]
    first = next(iter(done.values()))
    groups = _groups_phrase(first)
    if not sees:
        return (
            f"Neither {' nor '.join(blind)} tells {groups} apart at this size: differences "
            "between datasets in these scores may be noise; score more rows."
        )
    if not blind:
        return f"{' and '.join(sees)} both tell {groups} apart at this size."
    seeing = ", ".join(f"{name} does (ratio {done[name]['ratio']:.2f})" for name in sees)
    missed = ", ".join(
        f"{name} does not (ratio {done[name]['ratio']:.2f}, within noise)" for name in blind
    )
    n = int(done[blind[0]]["n"])
    more = (
        "or compute gradients for more rows and score again"
        if "G-Vendi" in blind
        else "or score more rows"
    )
    return f"At {n:,} rows {missed}; {seeing}. Compare datasets by {sees[0]} at this size, {more}."
