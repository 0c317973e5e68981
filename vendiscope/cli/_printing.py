"""How the commands print things: rich tables for people, ``--json`` for scripts."""

from __future__ import annotations

import json as jsonlib
import math
from typing import Any

from rich.table import Table

from vendiscope.cli._output import console, count_range, cut_rows, print_hidden, shorten
from vendiscope.core.io.fields import FieldMapping

DASH = "\u2014"  # an em dash: no value


def print_json(value: Any) -> None:
    """Valid JSON always: NaN and infinities (not JSON) are written as null."""
    console.print_json(jsonlib.dumps(_finite(value), default=str, allow_nan=False))


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def print_preview(preview: Any, overrides: list[str]) -> None:
    from vendiscope.core.io.fields import parse_assignments

    console.print(f"format: [bold]{preview.importer}[/]")
    if preview.info.columns:
        console.print(f"columns: {', '.join(preview.info.columns)}")
    mapping = preview.mapping
    if overrides:
        mapping = parse_assignments(overrides, base=mapping)
    if mapping is None:
        console.print(f"[yellow]mapping: {preview.mapping_error}[/]")
    else:
        console.print(f"mapping ({mapping.detected}): {mapping.describe()}")
    for bad in preview.bad_rows[:5]:
        console.print(f"[red]bad row {bad.number}[/]: {bad.message}")
    table = Table("#", "prompt", "response", "text", title=f"first {len(preview.rows)} rows")
    for number, row in enumerate(preview.rows, 1):
        if mapping is None:
            table.add_row(str(number), "", "", shorten(str(row)))
            continue
        try:
            values = mapping.apply(row)
        except ValueError as exc:
            table.add_row(str(number), f"[red]{exc}[/]", "", "")
            continue
        table.add_row(
            str(number),
            shorten(values["prompt"], 50),
            shorten(values["response"], 50),
            shorten(values["text"], 50),
        )
    console.print(table)


def print_import(result: Any) -> None:
    console.print(
        f"imported [bold]{result.rows}[/] records into dataset [bold]{result.dataset.name}[/] "
        f"from {result.importer} in {result.seconds:.1f} s"
    )
    console.print(f"mapping ({result.mapping.detected}): {result.mapping.describe()}")
    if result.duplicates:
        console.print(
            f"[yellow]{result.duplicates} exact duplicates[/] (same prompt/response/text)"
        )
    if result.skipped:
        console.print(
            f"[yellow]skipped {len(result.skipped)} bad rows[/]; report: {result.bad_report}"
        )


def print_datasets(datasets: list[Any], *, as_json: bool) -> None:
    if as_json:
        print_json([d.__dict__ for d in datasets])
        return
    if not datasets:
        console.print("no datasets yet; add one with `vendiscope import PROJECT FILE`")
        return
    table = Table("name", "rows", "duplicates", "skipped", "format", "mapping", "source")
    for d in datasets:
        table.add_row(
            d.name,
            str(d.row_count),
            str(d.duplicate_count),
            str(d.skipped_count),
            d.format,
            FieldMapping.from_json(d.field_mapping).describe(),
            shorten(d.source_uri, 40),
        )
    console.print(table)


def print_records(records: list[Any], *, raw: bool, as_json: bool) -> None:
    if as_json:
        print_json(
            [
                {
                    "position": r.seq,
                    "source_row": r.row_index,
                    **({"row": r.original()} if raw else r.roles()),
                }
                for r in records
            ]
        )
        return
    table = Table(
        "pos", "row", "prompt" if not raw else "original row", "response", show_lines=True
    )
    for r in records:
        if raw:
            table.add_row(
                str(r.seq),
                str(r.row_index),
                shorten(jsonlib.dumps(r.original(), ensure_ascii=False, default=str), 160),
                "",
            )
        else:
            table.add_row(
                str(r.seq),
                str(r.row_index),
                shorten(r.prompt or r.text, 80),
                shorten(r.response, 80),
            )
    console.print(table)


def print_stats(stats: dict[str, Any], *, as_json: bool, show_all: bool = False) -> None:
    """The counts, then the sources largest first: the 20 largest unless ``show_all``."""
    if as_json:
        print_json(stats)
        return
    console.print(
        f"[bold]{stats['dataset']}[/]: {stats['rows']} records, "
        f"{stats['unique']} unique, {stats['exact_duplicates']} exact duplicates, "
        f"{stats['skipped_rows']} skipped at import"
    )
    roles = Table("role", "records with it", "mean characters")
    for role, count in stats["filled"].items():
        mean = stats["mean_chars"].get(role)
        roles.add_row(role, str(count), "" if mean is None else f"{mean:.0f}")
    console.print(roles)
    rows = sorted(stats["sources"].items(), key=lambda item: (-item[1], item[0]))
    shown, hidden = cut_rows(rows, show_all)
    title = f"the {len(shown)} largest of {len(rows)} sources" if hidden else None
    sources = Table("source", "records", "share", title=title)
    for name, count in shown:
        sources.add_row(name, str(count), f"{count / max(stats['rows'], 1):.1%}")
    console.print(sources)
    print_hidden(
        len(hidden), "source", "sources", count_range([c for _, c in hidden]) if hidden else ""
    )


def print_plugins(registry: Any, *, as_json: bool) -> None:
    """Contributions with their state, a warning for plugin files, then every failure."""
    if as_json:
        statuses = {(s.contribution.kind, s.contribution.name): s for s in registry.statuses()}
        print_json(
            {
                "plugins": [
                    {
                        "name": p.name,
                        "version": p.version,
                        "api_version": p.api_version,
                        "origin": p.origin,
                        "source": p.source,
                        "contributions": [
                            {
                                "kind": c.kind,
                                "name": c.name,
                                "target": c.target,
                                "state": statuses[(c.kind, c.name)].state,
                            }
                            for c in p.contributions
                        ],
                    }
                    for p in registry.plugins
                ],
                "failures": [f.__dict__ for f in registry.failures],
            }
        )
        return
    table = Table("kind", "name", "title", "plugin", "state")
    for status in registry.statuses():
        c = status.contribution
        state = status.state if status.ok else f"[red]{status.state}[/]"
        table.add_row(c.kind, c.name, c.title, c.plugin, state)
    console.print(table)
    files = registry.file_plugins
    if files:
        names = ", ".join(f"{p.name} ({p.origin.removeprefix('file ')})" for p in files)
        console.print(
            f"[yellow]warning:[/] {len(files)} plugin(s) loaded from .py files: {names}. "
            "Plugin files run as code with your permissions; keep only files you trust there.",
            soft_wrap=True,
        )
    for failure in registry.failures:
        what = f" {failure.kind} '{failure.contribution}'" if failure.contribution else ""
        console.print(f"[red]failed:[/] {failure.plugin}{what}: {failure.message}", soft_wrap=True)


def print_doctor(info: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        print_json(info)
        return
    console.print(
        f"vendiscope {info['vendiscope']} on Python {info['python']} ({info['platform']})"
    )
    table = Table("package", "version")
    for name, found in info["packages"].items():
        table.add_row(name, found or "[dim]not installed[/]")
    console.print(table)
    accel = info.get("accelerator") or {}
    if accel:
        devices = ", ".join(f"{d['name']} ({d['memory_gib']} GiB)" for d in accel["devices"])
        console.print(
            f"torch {accel['torch']}; CUDA: {'yes: ' + devices if accel['cuda'] else 'no'}"
        )
    for model, where in info["models"].items():
        console.print(f"{model}: {where or '[red]not found[/]'}")
    console.print(f"plugins: {', '.join(info['plugins']['loaded']) or 'none'}")
    for failure in info["plugins"]["failures"]:
        console.print(f"[red]plugin failure:[/] {failure}")
    if "project" in info:
        print_project_health(info["project"])


def print_project_health(found: dict[str, Any]) -> None:
    where = found["location"]
    if found["ok"]:
        checks = "integrity ok, foreign keys ok" if "integrity" in found else "opens"
        console.print(f"project {where}: {checks}, {found['datasets']} datasets", markup=False)
        if found.get("read_only"):
            console.print(
                f"  read-only here ({found['read_only']}): read commands work; commands "
                "that change the project will say they cannot",
                markup=False,
            )
        for line in found.get("interrupted_runs", []):
            console.print(f"  {line}", markup=False)
        return
    console.print(f"project {where}: FAILED", markup=False, style="red")
    for problem in found["problems"]:
        console.print(f"  {problem}", markup=False)
    if found.get("advice"):
        console.print(found["advice"], markup=False)


def print_summary(project: Any, dataset: str) -> None:
    console.print(f"project [bold]{project.location}[/]")
    print_datasets(project.datasets(), as_json=False)
    print_stats(project.stats(dataset), as_json=False)
    print_records(project.records(dataset, 0, 3), raw=False, as_json=False)


METRIC_TITLES = {"gvendi": "G-Vendi", "vendi": "Vendi"}


def resolution_line(value: float, n: int, details: dict[str, Any]) -> str:
    """``effective number of distinct examples: 159.9 of 1,245 (12.8%), mean cosine 0.09 — …``

    The effective number (not quality-weighted) with its projection sd when the result has
    one, the effective fraction, the mean cosine and the verdict sentence; older results
    without these fields print the parts they have.
    """
    from vendiscope.core.metrics.algorithms.resolution import projection_text

    effective = details.get("effective_number")
    effective = float(value if effective is None else effective)
    fraction = details.get("effective_fraction")
    fraction = effective / max(n, 1) if fraction is None else float(fraction)
    text = (
        f"effective number of distinct examples: {effective:,.1f}{projection_text(details)} "
        f"of {n:,} ({fraction:.1%})"
    )
    mu = details.get("mean_cosine")
    if mu is not None:
        text += f", mean cosine {float(mu):.2f}"
    verdict = details.get("verdict")
    if isinstance(verdict, dict) and verdict.get("text"):
        text += f" — {verdict['text']}"
    return text


def print_score(
    result: Any,
    *,
    show_all: bool = False,
    source_counts: dict[str, int] | None = None,
    sample: dict[str, Any] | None = None,
) -> None:
    """The score, then one row per source (:func:`_print_sources`), 20 unless ``show_all``.

    ``source_counts`` (records per source, as ``stats`` counts them) adds the sources too
    small to have a score of their own, with a dash, so that no source is left out silently.
    ``sample``: where the dataset was sampled from
    (:func:`vendiscope.core.io.sampling.sample_origin`), said under the score.
    """
    title = METRIC_TITLES.get(result.metric, result.metric)
    q = result.details.get("q")
    order = f" (q={q})" if q not in (None, 1, 1.0) else ""
    ci = result.details.get("ci")
    interval = f"  [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""
    console.print(
        f"[bold]{title}{order}[/] of {result.n} records: [bold]{result.value:.2f}[/]{interval}"
    )
    if sample:
        estimate = f"it estimates {sample['parent']}'s {title} at n = {result.n:,}"
        console.print(f"({sample['describe']}: {estimate})", markup=False)
    console.print(f"computed on {result.computed_on}")
    if result.metric in METRIC_TITLES:
        console.print(resolution_line(result.value, result.n, result.details), soft_wrap=True)
    if isinstance(result.details.get("at_n"), dict):
        from vendiscope.core.metrics.algorithms.equal_n import label

        console.print(f"at equal n: {label(title, result.details['at_n'], 2)}", soft_wrap=True)
    _print_sources(result, title, show_all=show_all, source_counts=source_counts)
    if result.per_record_set:
        console.print(f"per-record scores stored as vector set '{result.per_record_set}'")


def _print_sources(
    result: Any, title: str, *, show_all: bool, source_counts: dict[str, int] | None
) -> None:
    """One row per source: records, its own score, per record and its score at equal n.

    Sorted by the score at equal n (the one to compare sources by), highest first; sources
    without one (too small for a score of their own, or a run from before equal n) follow,
    largest first. Only the first 20 unless ``show_all``.
    """
    from vendiscope.core.metrics.algorithms import equal_n

    rows: list[tuple[str, int, float | None, dict[str, Any] | None]] = [
        (source, int(row["n"]), float(row["value"]), row.get("equal_n"))
        for source, row in result.per_source.items()
    ]
    for source, count in (source_counts or {}).items():
        if source != "(none)" and source not in result.per_source:
            rows.append((source, count, None, None))  # too few records for a score of its own
    if not rows:
        return
    # The highest at equal n first; then the largest: a small source's own score is bounded
    # by its record count, so the rows hidden below are the least informative ones.
    rows.sort(key=lambda r: (r[3] is None, -(r[3] or {}).get("mean", 0.0), r[2] is None,
                             -r[1], -(r[2] if r[2] is not None else -1.0), r[0]))  # fmt: skip
    common = next((r[3]["n"] for r in rows if r[3] is not None), None)
    at = f"at n = {common:,}" if common is not None else "at equal n"
    with_equal = common is not None or result.metric in METRIC_TITLES
    order = f"highest {at}" if common is not None else "largest"
    shown, hidden = cut_rows(rows, show_all)
    table = Table(
        "source",
        "records",
        title,
        "per record",
        *([at] if with_equal else []),
        title=f"the {len(shown)} {order} of {len(rows)} sources" if hidden else None,
    )
    for column in table.columns[1:]:
        column.no_wrap = True  # numbers are never folded; a long source name is
    for source, n, value, equal in shown:
        cells = [source, str(n)]
        cells += [DASH, DASH] if value is None else [f"{value:.2f}", f"{value / n:.3f}"]
        if with_equal:
            cells.append(DASH if equal is None else equal_n.figure(equal))
        table.add_row(*cells)
    console.print(table)
    print_hidden(
        len(hidden), "source", "sources", count_range([r[1] for r in hidden]) if hidden else ""
    )
    drawn = next((r[3] for r in rows if r[3] is not None and equal_n.drawn(r[3])), None)
    if drawn is not None:
        console.print(
            f"[dim]{at}: each source scored at the smallest one's size, the mean ± sd of "
            f"{drawn['draws']} random draws of {common:,} records from each larger source[/]",
            soft_wrap=True,
        )
    elif common is not None:
        console.print(f"[dim]{at}: every source scored has {common:,} records[/]")
    elif with_equal and any(r[2] is not None for r in rows):
        console.print(
            f"[dim]{at} ({DASH}): this run has no scores at one size; a source's own score "
            "grows with its records, so score again to compare sources of different sizes[/]",
            soft_wrap=True,
        )
    unscored = [r for r in rows if r[2] is None]
    if unscored:
        from vendiscope.core.metrics.scoring import MIN_SOURCE_ROWS

        many = len(unscored) > 1
        console.print(
            f"[dim]{len(unscored)} source{'s' if many else ''} with fewer than "
            f"{MIN_SOURCE_ROWS} records: no score of {'their' if many else 'its'} own "
            f"(—), counted in the score of the whole dataset[/]",
            soft_wrap=True,
        )
