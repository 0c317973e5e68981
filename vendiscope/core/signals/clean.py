"""The usual clean-up: a subset of the records that pass every rule, records never deleted.

``drop`` names flags or labels whose raised records go (``pii``, ``contaminated``);
``keep`` gives filter expressions a record must match to stay (``words >= 5``,
``language == en``; :mod:`vendiscope.core.signals.reading`). Each rule says how many records
it removed on its own and how many it removed first (in the order given), and the kept
records are saved as the subset ``name`` in one transaction (an existing one is refused
unless ``overwrite``). Every rule is checked before anything is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.signals.reading import mask, signal_columns
from vendiscope.core.store import subsets
from vendiscope.core.store.models import SubsetInfo
from vendiscope.core.store.project import Project


@dataclass(frozen=True)
class RuleCount:
    """What one rule removed."""

    rule: str
    """``drop pii`` or ``keep words >= 5``."""
    matched: int
    """Records the rule removes on its own."""
    removed: int
    """Records it removed that no earlier rule had (the rules' removals add up)."""


@dataclass(frozen=True)
class CleanReport:
    dataset: str
    records: int
    kept: int
    rules: list[RuleCount]
    subset: SubsetInfo | None
    """The subset saved (None for a dry run)."""

    def summary(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "records": self.records,
            "kept": self.kept,
            "removed": self.records - self.kept,
            "rules": [
                {"rule": r.rule, "matched": r.matched, "removed": r.removed} for r in self.rules
            ],
            "subset": self.subset.name if self.subset is not None else None,
        }


def clean_dataset(
    project: Project,
    dataset: str,
    *,
    drop: Sequence[str] = (),
    keep: Sequence[str] = (),
    name: str | None = None,
    overwrite: bool = False,
    dry_run: bool = False,
) -> CleanReport:
    """Save the records of ``dataset`` that pass every rule as the subset ``name``."""
    import numpy as np

    if not drop and not keep:
        raise ProjectError("nothing to clean by: give --drop FLAG or --keep EXPRESSION")
    if name is None and not dry_run:
        raise ProjectError("name the subset of the records kept (--name)")
    n = project.dataset(dataset).row_count
    columns = signal_columns(project, dataset)
    rules = [(f"drop {flag}", mask(columns, flag)) for flag in drop]
    rules += [(f"keep {expression}", ~mask(columns, expression)) for expression in keep]
    if name is not None and not overwrite and not dry_run:
        subsets.check_name(name)
        subsets.refuse_existing(project, dataset, name)
    removed = np.zeros(n, dtype=bool)
    counts = []
    for rule, hit in rules:
        counts.append(RuleCount(rule, int(hit.sum()), int((hit & ~removed).sum())))
        removed |= hit
    kept = np.flatnonzero(~removed)
    saved = None
    if not dry_run:
        assert name is not None
        what = "; ".join(r for r, _ in rules)
        saved = subsets.from_positions(
            project, dataset, name, kept.tolist(), overwrite=overwrite,
            description=f"records that pass: {what}",
        )  # fmt: skip
    return CleanReport(dataset, n, int(kept.size), counts, saved)


__all__ = ["CleanReport", "RuleCount", "clean_dataset"]
