"""The "Study…" dialog: defaults from the pool, the target it needs, and Estimate cost
(its progress, Cancel, and the question before a study of more than a day).

A real project (40 demo rows with tiny-LM gradients, and a held-out dataset), the real
plugin registry, and the estimate timed by the real trainer in a child process.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QDialog, QMessageBox

from tests.gui.conftest import answer_message_box, screenshot
from vendiscope.core.plugin_host.registry import default_registry
from vendiscope.gui.study.dialog import StudyDialog
from vendiscope.gui.windows.document import ProjectDocument

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def location(study_project: Path) -> Path:
    """The 40-row pool with tiny-LM gradients, and a 12-row held-out target."""
    return study_project


@pytest.fixture
def document(location: Path) -> Any:
    opened = ProjectDocument()
    opened.open(str(location))
    yield opened
    opened.close()


@pytest.fixture
def dialog(qtbot: Any, document: ProjectDocument) -> StudyDialog:
    made = StudyDialog(document, "pool")
    qtbot.addWidget(made)
    made.show()
    qtbot.waitExposed(made)
    qtbot.waitUntil(lambda: made.facts is not None, timeout=20_000)
    return made


def quick(dialog: StudyDialog, tiny_lm: Path) -> None:
    """A study that runs in seconds: the tiny LM, 3 steps, 5 subsets of 6 rows, 2 seeds."""
    dialog.target_choice.setCurrentIndex(dialog.target_choice.findData("held-out"))
    form = dialog.current_form()
    assert form is not None
    for name, value in (("model", str(tiny_lm)), ("steps", 3), ("batch_size", 2),
                        ("device", "cpu")):  # fmt: skip
        form.set_value(name, value)
    dialog.subset_size.setValue(6)
    dialog.random.setValue(4)
    dialog.duplicates.setValue(1)
    dialog.seeds.setValue(2)


def test_the_dialog_fills_its_defaults_from_the_pool_and_needs_a_target(
    dialog: StudyDialog,
) -> None:
    assert dialog.subset_size.value() == 10  # a quarter of the pool's 40 rows
    # StudyOptions' defaults, the CLI's and the Python API's too
    assert (dialog.random.value(), dialog.duplicates.value(), dialog.seeds.value()) == (20, 0, 3)
    assert dialog.sources.value() == 0 and dialog.sources.isEnabled()  # 6 sources
    assert dialog.target_rows.value() == 500  # a sample of the target, StudyOptions' default
    assert not dialog.force.isChecked()
    offered = [dialog.target_choice.itemData(i) for i in range(dialog.target_choice.count())]
    assert offered == [None, "held-out"]  # every other dataset, never the pool itself
    registry = default_registry()
    assert dialog.current_trainer() == "causal-lm"
    assert set(dialog.current_form().fields) == {
        s.name for s in registry.describe("trainer", "causal-lm")
    }
    assert set(dialog.selectors) == {c.name for c in registry.contributions("selector")}
    assert all(check.isEnabled() for check in dialog.selectors.values())  # it has gradients
    # no target: no start, and the dialog says why
    assert not dialog.start_button.isEnabled()
    assert dialog.problem.isVisible() and "Choose the dataset to score on" in dialog.problem.text()
    dialog.target_choice.setCurrentIndex(dialog.target_choice.findData("held-out"))
    assert dialog.start_button.isEnabled() and not dialog.problem.isVisible()
    assert dialog.target() == "held-out"
    dialog.selectors["k-center"].setChecked(True)
    options = dialog.options()
    assert options["size"] == 10 and options["random"] == 20 and options["duplicates"] == 0
    assert options["seeds"] == 3 and options["target_rows"] == 500 and not options["force"]
    assert options["selectors"] == ["k-center"] and options["trainer"] == "causal-lm"
    dialog.target_rows.setValue(0)
    assert dialog.target_rows.text() == "all" and dialog.options()["target_rows"] is None
    dialog.subset_size.setValue(41)  # the spin box stops at the pool's rows
    assert dialog.subset_size.value() == 40
    screenshot(dialog, "study-dialog")


def test_a_project_with_one_dataset_has_nothing_to_score_on(qtbot: Any, tmp_path: Path) -> None:
    from tests.gui.conftest import make_project, tiny_rows

    rows = [{k: v for k, v in row.items() if k != "domain"} for row in tiny_rows(24)]
    document = ProjectDocument()
    document.open(str(make_project(tmp_path / "plain.vscope", rows, name="tiny")))
    try:
        dialog = StudyDialog(document, "tiny")
        qtbot.addWidget(dialog)
        assert not dialog.start_button.isEnabled()
        assert "no other dataset" in dialog.problem.text()
        # a 24-row pool: subsets of 6 rows; no sources and no gradients: neither kind
        assert dialog.subset_size.value() == 6
        qtbot.waitUntil(lambda: dialog.facts is not None, timeout=20_000)
        assert not dialog.sources.isEnabled() and "no sources" in dialog.sources.toolTip()
        assert not any(check.isEnabled() for check in dialog.selectors.values())
        assert "gradient features" in dialog.selectors_hint.text()
    finally:
        document.close()


@pytest.mark.slow
def test_estimate_cost_shows_the_plan_and_what_it_costs_here(
    qtbot: Any, dialog: StudyDialog, tiny_lm: Path
) -> None:
    quick(dialog, tiny_lm)
    dialog.estimate_button.click()
    assert dialog.estimate_job is not None and not dialog.estimate_button.isEnabled()
    assert dialog.estimate_result.text().startswith("Estimating")
    assert dialog.estimate_bar.isVisible() and dialog.cancel_estimate.isVisible()
    assert not dialog.start_button.isEnabled()  # not while estimating
    qtbot.waitUntil(lambda: dialog.estimate_job is None, timeout=180_000)
    assert dialog.start_button.isEnabled() and not dialog.estimate_bar.isVisible()
    text = dialog.estimate_result.text()
    assert "5 subsets of 6 rows: 4 random, 1 duplicate-heavy" in text, text
    assert "It would take about " in text and " here: 10 runs of " in text, text
    assert "once" in text and "12 target rows" in text, text
    assert dialog.estimate_button.isEnabled()
    screenshot(dialog, "study-dialog-estimate")
    dialog.seeds.setValue(3)  # an estimate of other settings is out of date
    assert dialog.estimate_result.text() == "The settings changed: Estimate cost again."


@pytest.mark.slow
def test_estimating_shows_its_progress_and_cancel_ends_it(
    qtbot: Any, dialog: StudyDialog, tiny_lm: Path
) -> None:
    from vendiscope.gui.jobs.manager import JobState

    quick(dialog, tiny_lm)
    dialog.estimate_button.click()
    job = dialog.estimate_job
    assert job is not None and not dialog.start_button.isEnabled()
    # the child's own steps show as they come ("Reading 'pool' and 'held-out'", "Timing...")
    qtbot.waitUntil(lambda: bool(job.status.description), timeout=60_000)
    qtbot.waitUntil(lambda: job.status.description[:12] in dialog.estimate_result.text())
    assert " so far" in dialog.estimate_result.text()
    screenshot(dialog, "study-dialog-estimating")
    dialog.cancel_estimate.click()
    assert dialog.estimate_job is None and dialog.estimate_result.text() == "Estimate cancelled."
    assert dialog.start_button.isEnabled() and dialog.estimate_button.isEnabled()
    assert not dialog.cancel_estimate.isVisible() and not dialog.estimate_bar.isVisible()
    qtbot.waitUntil(lambda: job.state.finished, timeout=60_000)  # its process has ended
    assert job.state == JobState.CANCELLED


@pytest.mark.slow
def test_a_study_of_more_than_a_day_starts_only_once_confirmed(
    qtbot: Any, dialog: StudyDialog, tiny_lm: Path
) -> None:
    quick(dialog, tiny_lm)
    form = dialog.current_form()
    assert form is not None
    form.set_value("steps", 50_000)  # long runs...
    dialog.seeds.setValue(100)  # ...and many of them: days
    dialog.estimate_button.click()
    qtbot.waitUntil(lambda: dialog.estimate_job is None, timeout=180_000)
    text = dialog.estimate_result.text()
    assert "That is more than a day. To bring it within one, " in text, text
    assert " days here: " in text, text
    screenshot(dialog, "study-dialog-over-a-day")
    seen: list[str] = []
    answer_message_box(QMessageBox.StandardButton.No, seen)  # "Change the plan"
    dialog.start_button.click()
    assert "would take about " in seen[0] and "Start it anyway?" in seen[0], seen
    assert dialog.isVisible() and dialog.result() != QDialog.DialogCode.Accepted
    answer_message_box(QMessageBox.StandardButton.Yes, seen)  # "Start anyway"
    dialog.start_button.click()
    assert dialog.result() == QDialog.DialogCode.Accepted and len(seen) == 2
