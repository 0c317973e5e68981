"""What the signal dialogs offer and count, read from the plugins and the project (no Qt).

:func:`signal_choices` lists the signals the app can compute: every registered plugin of kind
``signal`` (a third party's too) and the built-in lexical near-duplicates, each with whether
it is checked by default (cheap, no target), slow (a plugin computed only when asked for,
e.g. one that loads a language model) or compares with a second dataset.
:func:`clean_facts` reads a dataset's flag columns for the clean-up checklist and
:func:`dry_run` counts what a set of rules would remove, by the core's own clean-up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vendiscope.gui.jobs.tasks import opened

if TYPE_CHECKING:
    from vendiscope.core.plugin_host.params import ParamSpec
    from vendiscope.core.plugin_host.registry import PluginRegistry
    from vendiscope.core.signals.clean import CleanReport

LEXICAL_TITLE = "Near-copies (MinHash)"
LEXICAL_HELP = (
    "Records that repeat an earlier one with small edits (MinHash over word 5-shingles); "
    "every copy but the first is flagged."
)


@dataclass(frozen=True)
class SignalChoice:
    """One signal the compute dialog offers."""

    name: str
    title: str
    description: str
    default: bool
    """Checked at first: cheap and comparing with nothing."""
    slow: bool
    """Computed only when asked for (it loads a model, or is otherwise costly)."""
    needs_target: bool
    """Compares each record with a second dataset of the project (a benchmark)."""
    problem: str = ""
    """Why the signal cannot be used (its plugin failed to load); empty when it can."""


def signal_choices(registry: PluginRegistry) -> list[SignalChoice]:
    """The registered signal plugins in the registry's order, then lexical near-duplicates."""
    from vendiscope.core.plugin_host.interfaces import Signal
    from vendiscope.core.vectors.signal_sets import LEXICAL
    from vendiscope.gui.jobs.plugin_choices import plugin_choices

    found = []
    for choice in plugin_choices(registry, "signal"):
        slow = bool(registry.get("signal", choice.name).meta.get("on_demand"))
        try:
            cls = registry.load("signal", choice.name)
        except Exception as error:
            found.append(SignalChoice(choice.name, choice.title, choice.description, False,
                                      slow, False, str(error) or type(error).__name__))  # fmt: skip
            continue
        needs = issubclass(cls, Signal) and bool(cls.needs_target)
        found.append(SignalChoice(choice.name, choice.title, choice.description,
                                  not slow and not needs, slow, needs))  # fmt: skip
    if not any(c.name == LEXICAL for c in found):
        found.append(SignalChoice(LEXICAL, LEXICAL_TITLE, LEXICAL_HELP, True, False, False))
    return found


def parameters(registry: PluginRegistry, name: str) -> list[ParamSpec]:
    """The parameters of signal ``name`` (lexical near-duplicates: its options class's)."""
    from vendiscope.core.vectors.signal_sets import LEXICAL

    if name == LEXICAL:
        from vendiscope.core.signals.lexical import LexicalOptions

        return list(LexicalOptions.specs())
    return list(registry.describe("signal", name))


@dataclass(frozen=True)
class FlagRule:
    """A flag column the clean-up can drop by."""

    rule: str
    """The name ``clean --drop`` takes (``pii``; ``SIGNAL.COLUMN`` when two signals share it)."""
    column: str
    """``SIGNAL.COLUMN``."""
    help: str
    raised: int


@dataclass(frozen=True)
class CleanFacts:
    """What the clean-up checklist of a dataset starts from."""

    dataset: str
    records: int
    flags: list[FlagRule]
    columns: list[str]
    """Every column a filter expression can name."""
    subsets: list[str]


def clean_facts(location: str, dataset: str) -> CleanFacts:
    """``dataset``'s flag columns (with their records raised), columns and subsets."""
    from vendiscope.core.signals.reading import signal_columns
    from vendiscope.core.signals.summary import FlagSummary, column_helps, summarize_column

    with opened(location) as project:
        columns = signal_columns(project, dataset)
        rules = []
        helps = column_helps(project, dataset)
        for key, values in columns.items():
            if "." not in key or values.kind != "flag":
                continue
            rule = values.column if columns.get(values.column) is values else key
            found = summarize_column(key, values)
            assert isinstance(found, FlagSummary)
            help_text = helps.get((values.vector_set, values.column), "")
            rules.append(FlagRule(rule, key, help_text, found.raised))
        return CleanFacts(
            dataset=dataset,
            records=project.dataset(dataset).row_count,
            flags=rules,
            columns=sorted(k for k in columns if "." not in k),
            subsets=[s.name for s in project.subsets(dataset)],
        )


def dry_run(location: str, dataset: str, drop: Sequence[str], keep: Sequence[str]) -> CleanReport:
    """What the clean-up with these rules would keep, rule by rule (nothing written)."""
    from vendiscope.core.signals.clean import clean_dataset

    with opened(location) as project:
        return clean_dataset(project, dataset, drop=list(drop), keep=list(keep), dry_run=True)


def check_subset_name(name: str) -> str | None:
    """Why ``name`` cannot name a subset (the core's words), or None."""
    from vendiscope.core.base.errors import ProjectError
    from vendiscope.core.base.text import check_name

    try:
        check_name(name, "subset")
    except ProjectError as error:
        return str(error)
    return None
