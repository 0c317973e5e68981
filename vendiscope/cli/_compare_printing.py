"""``vendiscope score --subset``: the dataset and its subsets side by side, and as JSON."""

from __future__ import annotations

from shlex import quote
from typing import Any

from rich import box
from rich.markup import escape
from rich.table import Table

from vendiscope.cli._output import console
from vendiscope.core.metrics.algorithms.equal_n import drawn, figure

TITLES = {"gvendi": "G-Vendi", "vendi": "Vendi"}
DASH = "\u2014"  # an em dash: no value
TO = "\u2013"  # an en dash: a range
WHOLE = "(dataset)"
"""The name of the whole dataset's row."""


def score_json(result: Any, equal_n: dict[str, Any] | None = None) -> dict[str, Any]:
    """One scored set (the dataset or a subset) as ``--json`` prints it.

    ``equal_n``: its score at the smallest compared set's size
    (:func:`vendiscope.core.metrics.compare_sets.scores_at_common_size`); None alone.
    """
    return {
        "metric": result.metric,
        "subset": result.subset,
        "vector_set": result.vector_set.name,
        "computed_on": result.computed_on,
        "value": result.value,
        "n": result.n,
        "fraction": result.fraction,
        "equal_n": equal_n,
        "details": result.details,
        "per_source": result.per_source,
        "per_record_set": result.per_record_set,
        "vs_random": result.vs_random,
        "run_id": result.run_id,
    }


def comparison_rows(
    results: list[Any], equal_n: list[dict[str, Any]] | None = None
) -> tuple[list[str], list[list[str]]]:
    """The table's header and one row of cells per scored set (plain text, for any output).

    ``equal_n`` (one per set, in order) adds the column ``at n = m``: each set's score at the
    smallest set's size.
    """
    title = TITLES.get(results[0].metric, results[0].metric)
    with_ci = any(r.details.get("ci") for r in results)
    with_random = any(r.vs_random for r in results)
    header = ["set", "n", title, "share"]
    if equal_n:
        header.append(f"at n =\n{equal_n[0]['n']:,}")
    if with_ci:
        level = next(r.details.get("ci_level") for r in results if r.details.get("ci"))
        header.append(f"{level or 0.95:.0%} CI")
    if with_random:
        header += ["random\n± sd", "random\n95%", "z", "beats"]
    rows = []
    for number, result in enumerate(results):
        cells = [
            WHOLE if result.subset is None else escape(result.subset),
            f"{result.n:,}",
            f"{result.value:.2f}",
            f"{result.fraction:.3f}",
        ]
        if equal_n:
            cells.append(figure(equal_n[number], sep="±"))
        if with_ci:
            ci = result.details.get("ci")
            cells.append(f"{ci[0]:.2f}{TO}{ci[1]:.2f}" if ci else DASH)
        if with_random:
            cells += _random_cells(result.vs_random)
        rows.append(cells)
    return header, rows


def _random_cells(baseline: dict[str, Any] | None) -> list[str]:
    if not baseline:
        return [DASH] * 4
    z = baseline.get("z")
    return [
        f"{baseline['mean']:.2f}±{baseline['sd']:.2f}",
        f"{baseline['low']:.2f}{TO}{baseline['high']:.2f}",
        DASH if z is None else f"{z:+.1f}",
        f"{baseline['share_below']:.0%}",
    ]


def print_comparison(
    results: list[Any],
    *,
    project: str,
    dataset: str,
    equal_n: list[dict[str, Any]] | None = None,
) -> None:
    """The scored sets in one table: n, score, score per record, the score at the smallest
    set's size (``equal_n``), interval, random baseline."""
    first = results[0]
    title = TITLES.get(first.metric, first.metric)
    q = first.details.get("q")
    order = f" (q={q})" if q not in (None, 1, 1.0) else ""
    console.print(f"[bold]{title}{order}[/] of '{escape(dataset)}' and its subsets")
    from vendiscope.core.vectors.resolve import describe

    console.print(f"computed on {describe(first.vector_set)}")
    header, rows = comparison_rows(results, equal_n)
    # Compact enough for 80 columns: one space between columns, headers broken by hand,
    # numbers never folded, a long subset name folded over lines.
    table = Table(
        *header, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 0, 0, 0)
    )
    for number, column in enumerate(table.columns):
        width = max(len(cells[number]) for cells in rows)
        column.min_width = min(width, 10) if number == 0 else width
        column.justify = "left" if number == 0 else "right"
        column.overflow = "fold"
    for cells in rows:
        table.add_row(*cells)
    console.print(table)
    console.print("[dim]share: the score per record (the effective fraction of distinct ones)[/]")
    larger = [found for found in equal_n or [] if drawn(found)]
    if larger:
        m, draws = larger[0]["n"], max(int(found["draws"]) for found in larger)
        console.print(
            f"[dim]at n = {m:,}: each set scored at the smallest one's size, the mean ± sd of "
            f"{draws} random draws of {m:,} records from each larger set (seed 0); compare "
            "sets by this column, not by their own scores[/]",
            soft_wrap=True,
        )
    baseline = next((r.vs_random for r in results if r.vs_random), None)
    if baseline:
        console.print(
            f"[dim]random: {baseline['draws']} subsets of each size drawn uniformly from all "
            f"records (seed {baseline['seed']}); z: the score minus their mean, in standard "
            "deviations; beats: the share of them it scores above[/]",
            soft_wrap=True,
        )
    runs = ", ".join(f"#{r.run_id}" for r in results)
    console.print(f"[dim]runs {runs}[/]")
    console.print(
        f"[dim]per source and every number: "
        f"`vendiscope score {escape(quote(project))} {escape(quote(dataset))} "
        f"--metric {first.metric} --subset NAME --json`[/]",
        soft_wrap=True,
    )
