"""Each operation's defaults are written once in ``vendiscope/``; the CLI, the Python API and
the app's forms read them from the core's options (a copy drifts: the study dialog once
proposed 4 duplicate-heavy controls where ``StudyOptions`` said 0)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from vendiscope.core.clusters.options import FilterOptions
from vendiscope.core.maps.options import MapOptions
from vendiscope.core.metrics.options import ScoreOptions
from vendiscope.core.neighbors.options import CoverageOptions, NearDuplicateOptions
from vendiscope.core.report.options import ReportOptions
from vendiscope.core.selection.options import DEFAULT_METHOD, selector_params
from vendiscope.core.studies.algorithms.spec import PlanSpec
from vendiscope.core.studies.options import DEFAULT_SIZE, DEFAULT_TRAINER, StudyOptions

PACKAGE = Path(__file__).resolve().parents[1] / "vendiscope"
ANNOTATED = r"(?::\s*Annotated\[(?:(?!\n\s*\w+\s*:\s)[\s\S])*?\]\s*)"
"""A multi-line ``Annotated[...]`` annotation (a typer option), never past the next parameter."""


def _value(value: object) -> str:
    """``value`` as a literal may be written: ``50_000`` or ``50000``; ``0.1``, never ``0.15``."""
    if isinstance(value, str):
        return f"[\"']{re.escape(value)}[\"']"
    text = "_?".join(repr(value)) if isinstance(value, int) else re.escape(repr(value))
    return rf"{text}(?![\w.])"


def default_positions(names: str, value: object, *, keywords: bool = True) -> re.Pattern[str]:
    """Where ``value`` is written as the default of a parameter or field named ``names``: a
    signature or dataclass field (``name: T = V``, a typer option's ``Annotated[...] = V``), a
    keyword argument or assignment (``name=V``; with ``keywords=False`` only a module's
    ``NAME = V``), a dict entry (``"name": V``) or a Qt form (``self.name.setValue(V)``,
    ``self.name = spin_box(lo, hi, V)``)."""
    name = rf"\b(?:{names})\b"
    written = _value(value)
    bare = rf"{name}\s*=\s*{written}" if keywords else rf"^(?:{names})\s*=\s*{written}"
    return re.compile(
        rf"{name}\s*(?::[^=\n]*|{ANNOTATED})=\s*{written}"
        rf"|{bare}"
        rf"|[\"'](?:{names})[\"']\s*:\s*{written}"
        rf"|{name}\.setValue\(\s*{written}\s*\)"
        rf"|{name}\s*=\s*spin_box\([^()\n]*,\s*{written}\s*\)",
        re.MULTILINE,
    )


DEFAULTS = {
    # the operation's default: (names it is written under, its value, where it is declared)
    "UMAP n_neighbors": (r"n_neighbors|neighbours", MapOptions.n_neighbors, "core/maps/options.py"),
    "UMAP min_dist": ("min_dist", MapOptions.min_dist, "core/maps/options.py"),
    "map fit_sample": (r"fit_sample|FIT_SAMPLE", MapOptions.fit_sample, "core/maps/options.py"),
    "near-duplicate threshold": (
        r"\w*threshold\w*|\w*THRESHOLD\w*|dedupe\w*",
        NearDuplicateOptions.threshold,
        "core/neighbors/options.py",
    ),
    "near-duplicate k": (
        r"k|NearDuplicateOptions.k",
        NearDuplicateOptions.k,
        "core/neighbors/options.py",
    ),
    "coverage radius (minimum similarity)": (
        r"radius|min_similarity|\w*MIN_SIMILARITY\w*",
        CoverageOptions.min_similarity,
        "core/neighbors/options.py",
    ),
    # a selector names itself (``method="greedy-vendi"``): only signatures count here
    "selection method": (r"method|DEFAULT_METHOD", DEFAULT_METHOD, "core/selection/options.py"),
    # a study: the CLI's --subsets is the random subsets when no other kind is asked for
    "study random subsets": (
        r"random|subsets",
        StudyOptions.random,
        "core/studies/algorithms/spec.py",
    ),
    "study duplicate-heavy controls": (
        "duplicates",
        StudyOptions.duplicates,
        "core/studies/algorithms/spec.py",
    ),
    "study selector draws": (
        "selector_draws",
        StudyOptions.selector_draws,
        "core/studies/algorithms/spec.py",
    ),
    "study seeds": ("seeds", StudyOptions.seeds, "core/studies/options.py"),
    "study pilot": ("pilot", StudyOptions.pilot, "core/studies/options.py"),
    "study subset size": (r"size|DEFAULT_SIZE", DEFAULT_SIZE, "core/studies/options.py"),
    "study trainer": (r"trainer|DEFAULT_TRAINER", DEFAULT_TRAINER, "core/studies/options.py"),
    "map points drawn": (
        r"max_points|MAX_\w*POINTS",
        ReportOptions.max_points,
        "core/view_data/constants.py",
    ),
    "score random draws": (
        r"random_draws|DEFAULT_DRAWS|draws",
        ScoreOptions.random_draws,
        "core/metrics/options.py",
    ),
    "filter random trials": (
        r"random_trials|trials",
        FilterOptions.random_trials,
        "core/clusters/options.py",
    ),
}
KEYWORDS = {"selection method": False}


def _files_writing(pattern: re.Pattern[str]) -> list[str]:
    return sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    )


@pytest.mark.parametrize("operation", sorted(DEFAULTS))
def test_each_default_is_written_in_one_file(operation: str) -> None:
    names, value, home = DEFAULTS[operation]
    pattern = default_positions(names, value, keywords=KEYWORDS.get(operation, True))
    assert _files_writing(pattern) == [home]


def test_the_study_plan_defaults_are_the_plans_and_no_form_writes_its_own() -> None:
    assert StudyOptions.duplicates == PlanSpec.duplicates == 0
    assert StudyOptions.random == PlanSpec.random
    assert StudyOptions.sources == PlanSpec.sources  # (a pool without sources sets 0)
    drifted = default_positions("duplicates", 4)  # the study dialog's old default
    assert _files_writing(drifted) == []


def test_the_study_defaults_load_without_numpy() -> None:
    """The CLI and the Python API read them at start-up, which must not load numpy."""
    probe = (
        "import sys\n"
        "import vendiscope.core.studies.options, vendiscope.scripting, vendiscope.cli._study\n"
        "print('NUMPY', 'numpy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert "NUMPY False" in out.stdout


@pytest.mark.parametrize(
    "line",
    [
        "    n_neighbors: int = 15,",
        "    n_neighbors: Annotated[\n        int, typer.Option(min=2, help='x')\n    ] = 15,",
        "        self.neighbours.setValue(15)",
        "    umap_map(matrix, n_neighbors=15)",
        "    min_dist: float = 0.1,",
        "    fit_sample: int = 50_000,",
        "    threshold: float = 0.9,",
        "    dedupe_threshold.setValue(0.9)",
        "    radius: Annotated[float, Range(-1, 1)] = 0.8,",
        '    method: str = "greedy-vendi",',
        "    k: int = 20,",
        "    subsets: Annotated[int, typer.Option(min=1)] = 20,",
        "    random: int = 20,",
        "    seeds: Annotated[int, typer.Option(min=1, help='x')] = 3,",
        "    duplicates: int = 0,",
        "    size: int = 500,",
        '    trainer: str = "causal-lm",',
    ],
)
def test_the_patterns_find_a_copy(line: str) -> None:
    found = [
        operation
        for operation, (names, value, _) in DEFAULTS.items()
        if default_positions(names, value, keywords=KEYWORDS.get(operation, True)).search(line)
    ]
    assert len(found) == 1, found


@pytest.mark.parametrize(
    "line",
    [
        "    n_neighbors: int = MapOptions.n_neighbors,",
        "    min_dist: float = 0.15,",
        "    power: float = 0.8,",
        "    level: float = 0.95,",
        "    k: int = 200,",
        "    kind: str = 'umap',",
    ],
)
def test_the_patterns_leave_other_numbers_alone(line: str) -> None:
    assert not any(default_positions(n, v).search(line) for n, v, _ in DEFAULTS.values())


def test_the_dialog_proposes_what_study_options_say() -> None:
    source = (PACKAGE / "gui" / "study" / "dialog.py").read_text(encoding="utf-8")
    for field in ("random", "duplicates", "sources", "seeds"):
        assert f"StudyOptions.{field}" in source


def test_a_seed_given_on_its_own_joins_the_selector_params() -> None:
    given = {"seed": 1, "q": 2}
    assert selector_params(given, None) == {"seed": 1, "q": 2}
    assert selector_params(given, 7) == {"seed": 7, "q": 2}
    assert given == {"seed": 1, "q": 2}
    assert selector_params(None, 3) == {"seed": 3}
