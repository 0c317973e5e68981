"""The LLM judge's parts of ``vendiscope signals``: ``--write-rubric``, the estimate printed
before judging (``--estimate`` alone: the estimate, nothing written) and the unreadable
replies counted after."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.markup import escape

from vendiscope.cli._output import console
from vendiscope.core.base.text import shown_path

JUDGE = "llm-judge"


def write_rubric(path: Path) -> None:
    """Write the built-in rubric to ``path`` to edit."""
    from vendiscope.core.base.atomic import atomic_path, check_destination
    from vendiscope.core.signals.algorithms.rubric import builtin_rubric_text

    check_destination(path, force=True)
    with atomic_path(path) as temporary:
        temporary.write_text(builtin_rubric_text(), encoding="utf-8")
    shown = shown_path(path)
    console.print(
        f"wrote the built-in rubric to {shown}; edit it and pass --param rubric={shown}",
        soft_wrap=True,
    )


def estimate(project: Any, dataset: str, params: dict[str, Any], *, quiet: bool) -> Any:
    """The judge's estimate for ``dataset`` (printed unless ``quiet``); writes nothing."""
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.plugin_host import default_registry
    from vendiscope.core.signals.judge import estimate_judge
    from vendiscope.core.vectors.signal_sets import set_name

    judge = default_registry().create("signal", JUDGE, **params)
    found = estimate_judge(
        project, dataset, judge.settings, vector_set=set_name(JUDGE),
        progress=None if quiet else RichProgress(),
    )  # fmt: skip
    if not quiet:
        console.print(f"[bold]Estimate[/] of {JUDGE} on {dataset}:")
        for line in found.lines():
            console.print(f"  {escape(line)}", soft_wrap=True)
    return found


def unreadable(project: Any, dataset: str) -> dict[str, int]:
    """How many records have no rating, by the reason the reply could not be read."""
    from vendiscope.core.signals.algorithms.judgement import failure_of
    from vendiscope.core.signals.reading import signal_texts

    reasons = signal_texts(project, dataset).get(f"{JUDGE}.reason") or []
    counts: dict[str, int] = {}
    for text in reasons:
        failure = failure_of(text)
        if failure is not None:
            counts[failure] = counts.get(failure, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: -item[1]))


def print_unreadable(counts: dict[str, int]) -> None:
    if not counts:
        return
    total = sum(counts.values())
    records = "1 record has" if total == 1 else f"{total:,} records have"
    console.print(f"  {records} no rating: the judge's reply could not be read", soft_wrap=True)
    for failure, count in counts.items():
        console.print(f"    {count:,}: {escape(failure)}", soft_wrap=True)
