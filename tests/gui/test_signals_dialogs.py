"""The signal dialogs on real widgets and a copy of the demo project: "Compute signals…" lists
every registered signal and runs them through the window's job manager; "Clean up…" counts
what its rules remove as the core's dry run does, saves exactly the kept records, and writes
nothing for a filter it cannot read."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from tests.conftest import qa_rows, write_jsonl
from tests.gui.conftest import answer_message_box, open_project, screenshot, wait_job
from vendiscope.api import CancelToken, Contribution, PluginManifest, Progress, Signal, SignalColumn
from vendiscope.core.plugin_host import default_registry
from vendiscope.core.plugin_host.registry import PluginRegistry
from vendiscope.core.signals.clean import clean_dataset
from vendiscope.core.signals.reading import where
from vendiscope.core.store import subsets, vectors
from vendiscope.core.store.migrate import copy_project
from vendiscope.core.store.project import Project
from vendiscope.gui.jobs.manager import JobState
from vendiscope.gui.signals import launch
from vendiscope.gui.signals.clean_dialog import CleanUpDialog
from vendiscope.gui.signals.compute_dialog import ComputeSignalsDialog
from vendiscope.gui.signals.data import signal_choices
from vendiscope.gui.windows.document import ProjectDocument

CHEAP = ["text-stats", "pii", "language", "lexical-dups"]


class Shouting(Signal):
    """A third party's signal: flags a record written in capitals."""

    columns = (SignalColumn("shouting", "flag", "written in capitals"),)

    def __init__(self, share: float = 0.5) -> None:
        self.share = share

    def compute(
        self, records: Sequence[dict[str, str | None]], *, progress: Progress, cancel: CancelToken
    ) -> np.ndarray:
        rows = [
            float(sum(c.isupper() for c in text) > self.share * max(len(text), 1))
            for text in ((r.get("prompt") or "") for r in records)
        ]
        return np.asarray(rows, dtype=np.float32).reshape(-1, 1)


@pytest.fixture(scope="module")
def signalled_template(demo_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project with its cheap signals computed (once for the module)."""
    from vendiscope.scripting import open as open_project_api

    path = copy_project(demo_template, tmp_path_factory.mktemp("signalled") / "demo.vscope")
    with open_project_api(str(path), progress=False) as project:
        project.signals("demo", CHEAP)
    return path


@pytest.fixture
def signalled(signalled_template: Path, tmp_path: Path) -> Path:
    return copy_project(signalled_template, tmp_path / "signalled.vscope")


@pytest.fixture
def document(qtbot, signalled: Path):
    opened = ProjectDocument()
    opened.open(str(signalled))
    yield opened
    opened.close()


# ---------------------------------------------------------------------- compute signals
def test_the_dialog_lists_every_registered_signal_cheap_ones_checked(qtbot, document) -> None:
    registry = default_registry()
    dialog = ComputeSignalsDialog(document, "demo", registry=registry)
    qtbot.addWidget(dialog)
    registered = [c.name for c in registry.contributions("signal")]
    assert dialog.names()[: len(registered)] == registered
    assert "lexical-dups" in dialog.names()  # the built-in that is no plugin
    checked = dialog.checked()
    assert {"text-stats", "pii", "language", "lexical-dups"} <= set(checked)
    assert "proxy-loss" not in checked and "contamination" not in checked
    proxy = dialog.list.item(dialog.names().index("proxy-loss"))
    assert proxy.text().endswith("(slow)") and "language model" in proxy.toolTip()
    # no other dataset to compare with: contamination cannot be checked, and says why
    contamination = dialog.list.item(dialog.names().index("contamination"))
    assert not contamination.flags() & Qt.ItemFlag.ItemIsUserCheckable
    page = dialog.page("contamination")
    assert page.target is None
    assert dialog.start_button.isEnabled()
    dialog.resize(780, 500)
    dialog.list.setCurrentRow(dialog.names().index("proxy-loss"))
    screenshot(dialog, "signals-compute-dialog")


def test_a_signal_registered_later_appears_with_its_parameters(qtbot, document) -> None:
    registry = PluginRegistry()
    registry.add_manifest(
        PluginManifest(
            name="third-party",
            contributions=(
                Contribution(
                    "signal", "shouting", f"{__name__}:Shouting", "Shouting",
                    description="Records written in capitals.",
                ),
            ),
        )
    )  # fmt: skip
    choices = {c.name: c for c in signal_choices(registry)}
    assert set(choices) == {"shouting", "lexical-dups"}
    assert choices["shouting"].default and not choices["shouting"].slow
    dialog = ComputeSignalsDialog(document, "demo", registry=registry)
    qtbot.addWidget(dialog)
    form = dialog.page("shouting").form
    assert form is not None and "share" in form.fields
    form.set_value("share", 0.25)
    options = dialog.options()
    assert options["signals"] == ["shouting", "lexical-dups"]
    assert options["params"] == {"shouting": {"share": 0.25}}
    dialog.set_checked("shouting", False)
    dialog.set_checked("lexical-dups", False)
    assert not dialog.start_button.isEnabled()
    assert "at least one signal" in dialog.problem.text()


def test_a_target_is_chosen_among_the_other_datasets(qtbot, document, tmp_path: Path) -> None:
    from vendiscope.core.io.importing import import_dataset

    import_dataset(document.project, write_jsonl(tmp_path / "b.jsonl", qa_rows(6)), name="bench")
    dialog = ComputeSignalsDialog(document, "demo", registry=default_registry())
    qtbot.addWidget(dialog)
    dialog.set_checked("contamination", True)
    page = dialog.page("contamination")
    assert page.target is not None and page.target.currentText() == "bench"
    assert dialog.options()["targets"] == {"contamination": "bench"}


def test_a_run_from_the_dialog_stores_the_signal(qtbot, window, demo_project: Path) -> None:
    open_project(qtbot, window, demo_project)
    dialog = ComputeSignalsDialog(window.document, "demo", registry=window.plugin_registry())
    qtbot.addWidget(dialog)
    for name in dialog.checked():
        dialog.set_checked(name, name == "text-stats")
    options = dialog.options()
    assert options["signals"] == ["text-stats"]
    job = wait_job(qtbot, launch.submit_signals(window, "demo", options))
    assert job.state == JobState.DONE, job.error_details
    assert "text-stats" in job.result.message
    with Project.open(demo_project) as project:
        found = {s.name: s for s in vectors.list_sets(project, "demo")}
        assert found["signals/text-stats"].status == "complete"
        assert found["signals/text-stats"].n_rows == 1245
    again = wait_job(qtbot, launch.submit_signals(window, "demo", options))  # nothing left to do
    assert again.state == JobState.DONE, again.error_details


# ---------------------------------------------------------------------- clean up
def _ready(qtbot, dialog: CleanUpDialog) -> None:
    qtbot.waitUntil(lambda: dialog.facts is not None and not dialog.counting, timeout=20_000)


def test_the_checklist_counts_what_the_core_dry_run_removes(qtbot, document, signalled) -> None:
    dialog = CleanUpDialog(document, "demo")
    qtbot.addWidget(dialog)
    _ready(qtbot, dialog)
    rules = [dialog.table.item(r, 0).data(Qt.ItemDataRole.UserRole) for r in range(11)]
    assert {"low-quality", "lexical-dups", "pii", "truncated"} <= set(rules)
    assert dialog.kept.text() == "1,245 of 1,245 records kept"
    assert not dialog.apply_button.isEnabled()  # no rule yet
    for rule in ("truncated", "low-quality", "lexical-dups"):
        dialog.set_flag(rule, True)
    _ready(qtbot, dialog)
    drop = dialog.drop()
    with Project.open(signalled) as project:
        expected = clean_dataset(project, "demo", drop=drop, dry_run=True)
        flagged = {rule: int(where(project, "demo", rule).sum()) for rule in drop}
    assert dialog.kept.text() == f"{expected.kept:,} of 1,245 records kept"
    assert expected.kept < 1245 - 157
    shown = {
        dialog.table.item(r, 0).data(Qt.ItemDataRole.UserRole): (
            dialog.table.item(r, 1).text(),
            dialog.table.item(r, 2).text(),
        )
        for r in range(dialog.table.rowCount())
    }
    for rule in expected.rules:
        name = rule.rule.removeprefix("drop ")
        assert shown[name][0].startswith(f"{flagged[name]:,} (")
        assert shown[name][1] == f"{rule.removed:,}"
    assert shown["pii"][1] == ""  # not ticked: removes nothing
    dialog.expression.setText("words >= 5")
    _ready(qtbot, dialog)
    with Project.open(signalled) as project:
        kept = clean_dataset(project, "demo", drop=drop, keep=["words >= 5"], dry_run=True).kept
    assert dialog.kept.text() == f"{kept:,} of 1,245 records kept"
    assert not dialog.expression_note.isHidden() and "The filter leaves out" in (
        dialog.expression_note.text()
    )
    assert dialog.apply_button.isEnabled()
    dialog.resize(780, 560)
    screenshot(dialog, "signals-clean-dialog")


def test_apply_saves_exactly_the_kept_records(qtbot, window, signalled: Path) -> None:
    open_project(qtbot, window, signalled)
    dialog = CleanUpDialog(window.document, "demo")
    qtbot.addWidget(dialog)
    _ready(qtbot, dialog)
    dialog.set_flag("low-quality", True)
    dialog.set_flag("lexical-dups", True)
    dialog.expression.setText("language == en")
    _ready(qtbot, dialog)
    dialog.name.setText("curated")
    assert dialog.apply_button.isEnabled()
    dialog.accept()
    assert dialog.result() == dialog.DialogCode.Accepted
    job = wait_job(qtbot, launch.submit_clean(window, "demo", dialog.options()))
    assert job.state == JobState.DONE, job.error_details
    with Project.open(signalled) as project:
        removed = (
            where(project, "demo", "low-quality")
            | where(project, "demo", "lexical-dups")
            | ~where(project, "demo", "language == en")
        )
        members = subsets.members(project, "demo", "curated")
        assert sorted(members.positions) == np.flatnonzero(~removed).tolist()
        assert project.dataset("demo").row_count == 1245  # records never deleted
    model = window.project_panel.model
    qtbot.waitUntil(lambda: any(i.data() == "curated" for i in model.all_indexes()), timeout=10_000)


def test_an_existing_name_asks_before_replacing(qtbot, document, signalled: Path) -> None:
    with Project.open(signalled) as project:
        subsets.from_positions(project, "demo", "clean", [0, 1, 2])
    dialog = CleanUpDialog(document, "demo")
    qtbot.addWidget(dialog)
    _ready(qtbot, dialog)
    dialog.set_flag("low-quality", True)
    _ready(qtbot, dialog)
    assert dialog.name.text() == "clean" and dialog.name_exists()
    assert "saving asks before replacing it" in dialog.name_note.text()
    answer_message_box(QMessageBox.StandardButton.No)
    dialog.accept()
    assert dialog.result() != dialog.DialogCode.Accepted and not dialog.overwrite
    answer_message_box(QMessageBox.StandardButton.Yes)
    dialog.accept()
    assert dialog.result() == dialog.DialogCode.Accepted
    assert dialog.options()["overwrite"] is True
    dialog.name.setText(" leading space")
    assert "not valid" in dialog.name_note.text() and not dialog.apply_button.isEnabled()


def test_a_bad_filter_shows_the_core_message_and_writes_nothing(
    qtbot, window, signalled: Path
) -> None:
    open_project(qtbot, window, signalled)
    with Project.open(signalled) as project:
        before = [s.name for s in project.subsets("demo")]
    dialog = CleanUpDialog(window.document, "demo")
    qtbot.addWidget(dialog)
    _ready(qtbot, dialog)
    dialog.set_flag("low-quality", True)
    dialog.expression.setText("langage == en")
    qtbot.waitUntil(lambda: dialog.filter_problem is not None, timeout=20_000)
    assert "no signal column 'langage'" in dialog.expression_note.text()
    assert not dialog.expression_note.isHidden()
    assert not dialog.apply_button.isEnabled()
    dialog.accept()  # refused: nothing accepted, nothing submitted
    assert dialog.result() != dialog.DialogCode.Accepted
    assert not window.jobs.active()
    with Project.open(signalled) as project:
        assert [s.name for s in project.subsets("demo")] == before
    dialog.resize(780, 560)
    screenshot(dialog, "signals-clean-bad-filter")


def test_an_interrupted_signal_resumes_when_run_again(qtbot, window, demo_project: Path) -> None:
    open_project(qtbot, window, demo_project)
    options = {"signals": ["text-stats"], "params": {}, "targets": {}, "chunk_rows": 5}
    job = launch.submit_signals(window, "demo", options)
    qtbot.waitUntil(lambda: job.status.completed > 0, timeout=60_000)
    job.cancel()
    wait_job(qtbot, job)
    assert job.state == JobState.CANCELLED
    with Project.open(demo_project) as project:
        (found,) = [s for s in vectors.list_sets(project, "demo") if s.name == "signals/text-stats"]
        assert 0 < found.committed_rows < 1245
    again = wait_job(qtbot, launch.submit_signals(window, "demo", options))
    assert again.state == JobState.DONE, again.error_details
    assert "(1 resumed)" in again.result.message
    with Project.open(demo_project) as project:
        (found,) = [s for s in vectors.list_sets(project, "demo") if s.name == "signals/text-stats"]
        assert found.status == vectors.COMPLETE and found.n_rows == 1245
