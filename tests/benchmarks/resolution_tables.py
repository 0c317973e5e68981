"""Markdown tables of the resolution benchmarks, for ``docs/gvendi.md``, from their JSON results.

    .venv/bin/python -m tests.benchmarks.resolution_tables [RESULT.json ...]

Without arguments: every ``ablation-*.json``, ``group_check-*.json`` and
``gradient_settings.json`` in ``tests/benchmarks/results``. Numbers are printed as measured,
so the docs can be refreshed whenever a benchmark is re-run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).with_name("results")

SHOWN = (
    "all (paper)",
    "no vocab (all but embedding/head)",
    "all (paper), centred",
    "mlp only",
    "attention only",
    "first 8 blocks",
    "last 8 blocks",
    "last 4 blocks",
    "last 2 blocks",
    "last 4 blocks, centred",
    "all-4096",
    "all-8192",
    "embedding-Vendi",
    "distinct-2-grams",
)


def ablation(found: dict[str, Any]) -> str:
    sizes = list(found["separation"])
    head = " | ".join(f"n = {n}" for n in sizes)
    agree = " / ".join(sizes)
    lines = [
        f"| setting | {head} | Spearman with the paper's setting at n = {agree} |",
        "| --- |" + " --- |" * (len(sizes) + 1),
    ]
    for name in SHOWN:
        if name not in found["separation"][sizes[0]]:
            continue
        cells = [_cell(found["separation"][n][name]) for n in sizes]
        spearman = " / ".join(f"{found['agreement'][n][name]:.2f}" for n in sizes)
        lines.append(f"| {name} | {' | '.join(cells)} | {spearman} |")
    return "\n".join(lines)


def _cell(one: dict[str, float]) -> str:
    return f"{one['ratio']:.3f} ({one['sd']:+.1f} sd)"


def group_check(found: dict[str, Any]) -> str:
    sizes = list(found["checks"])
    names = list(found["checks"][sizes[0]])
    lines = [
        "| score | " + " | ".join(f"n = {n}" for n in sizes) + " |",
        "| --- |" + " --- |" * len(sizes),
    ]
    for name in names:
        cells = []
        for n in sizes:
            one = found["checks"][n][name]
            mark = "**yes**" if one["level"] == "resolves" else "no"
            cells.append(f"{mark} ({one['ratio']:.3f}, p = {one['p_value']:.2g})")
        lines.append(f"| {name} | {' | '.join(cells)} |")
    return "\n".join(lines)


def settings(found: dict[str, Any]) -> str:
    lines = [
        "| parameter set | rows/s | time vs all | peak memory | memory vs all |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, one in found["median"].items():
        lines.append(
            f"| {name} | {one['rows_per_s']:.2f} | {one['time_vs_all']:.2f} | "
            f"{one['peak_rss_mib'] / 1024:.1f} GiB | {one['memory_vs_all']:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    paths = [Path(p) for p in sys.argv[1:]] or sorted(
        [*RESULTS.glob("ablation-*.json"), *RESULTS.glob("group_check-*.json"),
         *RESULTS.glob("gradient_settings.json")]
    )  # fmt: skip
    for path in paths:
        found = json.loads(path.read_text())
        print(f"\n{path.name}\n")
        if "separation" in found:
            print(ablation(found))
        elif "checks" in found:
            print(group_check(found))
        else:
            print(settings(found))


if __name__ == "__main__":
    main()
