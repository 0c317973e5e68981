"""The synthesis curve: G-Vendi as accepted generations grow, against the unfiltered baseline.

Pure functions of a synthesis run's ``result`` (the dict the job rewrites after every round,
see :mod:`vendiscope.core.synthesis.job`): no project, no store, no Qt. The view
``synthesis-curve``, the audit report, the command line and the app draw the same curve and
the same table from them.

- :func:`synthesis_chart` — a line-chart description (:mod:`vendiscope.core.plugin_host.charts`):
  x = accepted generations (``accepted_total`` after each round, starting at 0 with the
  pool's G-Vendi), one line for the filtered generations, one for as many unfiltered
  generations (the baseline; rounds where the stream was shorter are skipped), and the
  pool's G-Vendi as a flat grey reference;
- :func:`curve_rows` — the per-round table (round, accepted, generated, G-Vendi, baseline,
  gain vs the baseline, the most common reasons generations were rejected);
- :func:`curve_note` — one line on the run: accepted of generated, the generator and its
  model, why it stopped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from vendiscope.core.plugin_host.charts import CHART_SCHEMA_VERSION

TITLE = "Synthesis: G-Vendi vs the unfiltered baseline"
X_LABEL = "Accepted generations"
Y_LABEL = "G-Vendi"
BASELINE = "unfiltered generations (baseline)"
POOL = "(pool alone)"
"""In parentheses: a reference, drawn in grey beneath the other lines."""
TOP_REASONS = 3
STOPPED = {
    "budget": "stopped at the budget",
    "rounds": "stopped after the last round",
    "target": "stopped at the target G-Vendi",
}
STATUS = {
    "running": "still running",
    "failed": "failed",
    "cancelled": "cancelled",
    "interrupted": "interrupted",
}


def synthesis_chart(
    result: Mapping[str, Any], *, title: str | None = None, status: str | None = None
) -> dict[str, Any]:
    """The line chart of one synthesis run's ``result``.

    ``title`` replaces :data:`TITLE`; the run's note (:func:`curve_note`) follows it.
    ``status`` (the run's) says why a run without ``stopped`` has not stopped (still
    running, failed, ...). Raises ``ValueError`` for a result without rounds or with a
    malformed round.
    """
    rounds = _rounds(result)
    pool = _number(result.get("pool_gvendi"), "pool_gvendi", optional=True)
    filtered: dict[str, list[Any]] = {"x": [], "y": [], "label": []}
    baseline: dict[str, list[Any]] = {"x": [], "y": [], "label": []}
    if pool is not None:
        start = f"the pool alone: G-Vendi {pool:,.2f}"
        for line in (filtered, baseline):
            _point(line, 0, pool, start)
    for row in rounds:
        x = row["accepted_total"]
        if x == 0 and pool is not None:
            continue  # nothing accepted yet: the pool's own value (a round's is float noise)
        _point(filtered, x, row["gvendi"],
               f"round {row['round']}: {x:,} accepted, G-Vendi {row['gvendi']:,.2f}")  # fmt: skip
        if row["baseline"] is not None:
            _point(baseline, x, row["baseline"],
                   f"round {row['round']}: {x:,} unfiltered, G-Vendi "
                   f"{row['baseline']:,.2f}")  # fmt: skip
    series = [{"name": _filtered_name(result), **filtered}]
    if len(baseline["x"]) > (1 if pool is not None else 0):  # more than the shared start
        series.append({"name": BASELINE, **baseline})
    if pool is not None:
        widest = max(max(filtered["x"]), 1)  # a run that kept nothing: an axis, not a dot
        series.append({"name": POOL, "x": [0, widest], "y": [_round(pool)] * 2,
                       "label": ["the pool alone"] * 2})  # fmt: skip
    heading = TITLE if title is None else title
    return {
        "kind": "line",
        "title": f"{heading} — {curve_note(result, status=status)}",
        "x_label": X_LABEL,
        "y_label": Y_LABEL,
        "series": series,
        "version": CHART_SCHEMA_VERSION,
    }


def curve_rows(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The per-round table of a synthesis run's ``result``, one plain dict per round:
    ``round``, ``accepted`` (this round), ``accepted_total``, ``generated`` (this round),
    ``generated_total`` (the unfiltered stream so far), ``gvendi`` (pool + accepted),
    ``baseline`` (pool + as many unfiltered generations; None when the stream was shorter),
    ``gain`` (``gvendi - baseline``, or None) and ``reasons`` (the most common reasons of
    the round's rejections: ``[{"reason", "count"}]``, most common first).

    Raises ``ValueError`` for a result without rounds or with a malformed round.
    """
    return [
        {
            **row,
            "gain": None if row["baseline"] is None else _round(row["gvendi"] - row["baseline"]),
        }
        for row in _rounds(result)
    ]


def curve_note(result: Mapping[str, Any], *, status: str | None = None) -> str:
    """One line on a run: ``"12 of 40 generations accepted (openai gpt-4o-mini); stopped at
    the budget"`` (the filter names the chart's line)."""
    accepted = _count(result.get("accepted"))
    generated = _count(result.get("generated"))
    rounds = result.get("rounds")
    if isinstance(rounds, Sequence) and rounds and isinstance(rounds[-1], Mapping):
        accepted = accepted if accepted is not None else _count(rounds[-1].get("accepted_total"))
        generated = (
            generated if generated is not None else _count(rounds[-1].get("generated_total"))
        )
    generator, model = result.get("generator"), _model_name(result)
    names = (generator, None if model == generator else model)
    what = " ".join(v for v in names if isinstance(v, str) and v)
    outputs = _outputs(rounds)
    if accepted == 0:
        valid = f", {generated:,} valid" if generated is not None else ""
        counts = "no examples accepted yet" + (
            f" ({outputs:,} outputs{valid})" if outputs is not None else ""
        )
    elif accepted is not None and generated is not None:
        counts = f"{accepted:,} of {generated:,} generations accepted"
    elif accepted is not None:
        counts = f"{accepted:,} generations accepted"
    else:
        counts = "no generations counted yet"
    note = counts + (f" ({what})" if what else "")
    stopped = result.get("stopped")
    if isinstance(stopped, str) and stopped:
        reason = STOPPED.get(stopped, f"stopped: {stopped}")
    else:
        reason = STATUS.get(status or "", "not finished")
    return f"{note}; {reason}"


# ----------------------------------------------------------------------------- helpers
MODEL_SHOWN = 40


def _model_name(result: Mapping[str, Any]) -> str | None:
    """The model, short: a name rather than a generator's whole settings line, a file or
    folder's last part rather than its path."""
    details = result.get("generator_details")
    if isinstance(details, Mapping) and "model" in details:
        model = details.get("model")
        if not isinstance(model, str) or not model:
            return None  # the server's default model
    else:
        model = result.get("model")
        if not isinstance(model, str):
            return None
        found = re.search(r"(?:^|\s)model=(\S+)", model)
        if found:
            model = found.group(1)
    model = model.rstrip("/").rsplit("/", 1)[-1] if model.startswith(("/", "~", ".")) else model
    return model if len(model) <= MODEL_SHOWN else model[: MODEL_SHOWN - 1] + "…"


def _outputs(rounds: Any) -> int | None:
    """Everything the generator returned, valid or not (each round's ``generated``)."""
    if not isinstance(rounds, Sequence) or isinstance(rounds, str):
        return None
    counts = [_count(r.get("generated")) for r in rounds if isinstance(r, Mapping)]
    return sum(c for c in counts if c is not None) if counts else None


def _filtered_name(result: Mapping[str, Any]) -> str:
    rule = result.get("filter")
    if rule == "none":
        return "accepted generations (no filter)"
    return f"with the filter ({rule})" if isinstance(rule, str) and rule else "with the filter"


def _rounds(result: Any) -> list[dict[str, Any]]:
    """The rounds of ``result`` checked and made plain; ValueError naming a bad field."""
    if not isinstance(result, Mapping):
        raise ValueError(f"result must be a synthesis run's result (a dict); got {result!r}")
    rounds = result.get("rounds")
    if not isinstance(rounds, Sequence) or isinstance(rounds, str) or not rounds:
        raise ValueError(
            "the synthesis run has no rounds yet (nothing was committed); there is no curve "
            "to draw until its first round ends"
        )
    out = []
    for number, item in enumerate(rounds):
        where = f"rounds[{number}]"
        if not isinstance(item, Mapping):
            raise ValueError(f"{where}: expected a dict, got {item!r}")
        total = _count(item.get("accepted_total"))
        if total is None:
            got = item.get("accepted_total")
            raise ValueError(f"{where}.accepted_total: expected a whole number >= 0, got {got!r}")
        reasons = item.get("reasons") if isinstance(item.get("reasons"), Mapping) else {}
        counted = [(str(k), c) for k, v in reasons.items() if (c := _count(v))]
        counted.sort(key=lambda pair: (-pair[1], pair[0]))
        label = _count(item.get("round"))
        out.append({
            "round": number if label is None else label,
            "accepted": _count(item.get("accepted")),
            "accepted_total": total,
            "generated": _count(item.get("generated")),
            "generated_total": _count(item.get("generated_total")),
            "gvendi": _number(item.get("gvendi"), f"{where}.gvendi"),
            "baseline": _number(item.get("baseline"), f"{where}.baseline", optional=True),
            "reasons": [{"reason": r, "count": c} for r, c in counted[:TOP_REASONS]],
        })  # fmt: skip
    return out


def _point(line: dict[str, list[Any]], x: int, y: float, label: str) -> None:
    """Add a point; a round that accepted nothing moves the point of its x (no vertical run
    of points whose G-Vendi differs only by float noise)."""
    if line["x"] and line["x"][-1] == int(x):
        for values in line.values():
            values.pop()
    line["x"].append(int(x))
    line["y"].append(_round(y))
    line["label"].append(label)


def _round(value: float) -> float:
    return round(float(value), 6)


def _number(value: Any, where: str, *, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where}: expected a finite number, got {value!r}")
    return float(value)


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


__all__ = ["BASELINE", "POOL", "TITLE", "X_LABEL", "Y_LABEL", "curve_note", "curve_rows",
           "synthesis_chart"]  # fmt: skip
