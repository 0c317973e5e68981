"""The pipeline's options dialogs: no attribute shadows Qt's, and the measured estimate."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.gui.conftest import make_project, tiny_rows
from vendiscope.gui.dialogs.pipeline_dialogs import EmbedDialog, FeaturizeDialog, ScoreDialog


def test_opening_and_closing_the_score_dialog_prints_no_error(qtbot, capfd) -> None:
    """An attribute named ``metric`` used to shadow QWidget.metric(), which Qt calls when it
    paints: "TypeError: 'str' object is not callable" on stderr (or a crash)."""
    for metric in ("gvendi", "vendi"):
        dialog = ScoreDialog("tiny", metric, [])
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        dialog.grab()
        QApplication.processEvents()
        assert dialog.options()["metric"] == metric
        dialog.reject()
        QApplication.processEvents()
    err = capfd.readouterr().err
    assert "TypeError" not in err and "metric()" not in err


def test_without_a_project_the_estimate_says_how_to_get_one(qtbot) -> None:
    dialog = FeaturizeDialog("tiny")
    qtbot.addWidget(dialog)
    assert "Measure times it on 8 of your records" in dialog.estimate.label.text()
    assert not dialog.estimate.button.isEnabled()


@pytest.mark.slow
def test_measure_times_the_model_on_this_machine_in_a_child_process(qtbot, tmp_path: Path) -> None:
    location = make_project(tmp_path / "m.vscope", tiny_rows(120), name="tiny")
    dialog = EmbedDialog("tiny", location=str(location))
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.estimate.button.click()
    assert dialog.estimate.label.text().startswith("Measuring")
    assert not dialog.estimate.button.isEnabled()
    qtbot.waitUntil(lambda: dialog.estimate.job is None, timeout=180_000)
    text = dialog.estimate.label.text()
    assert text.startswith("Estimate: about ") and "on this machine for 120 records (" in text
    assert "measured on " in text
    # another setting is another estimate; back to the measured one shows it again
    dialog.batch.setValue(7)
    assert not dialog.estimate.label.text().startswith("Estimate:")
    dialog.batch.setValue(0)
    assert dialog.estimate.label.text() == text
    again = EmbedDialog("tiny", location=str(location))  # kept for the session
    qtbot.addWidget(again)
    assert again.estimate.label.text() == text


@pytest.mark.slow
def test_closing_the_dialog_cancels_its_measurement(qtbot, tmp_path: Path) -> None:
    location = make_project(tmp_path / "c.vscope", tiny_rows(40), name="tiny")
    dialog = FeaturizeDialog("tiny", location=str(location))
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.estimate.button.click()
    job = dialog.estimate.job
    assert job is not None
    dialog.reject()
    with qtbot.waitSignal(job.finished, timeout=180_000):
        pass
    assert job.state.value == "cancelled"


def test_the_gradient_setting_is_the_paper_unless_light_is_chosen(qtbot) -> None:
    dialog = FeaturizeDialog("tiny")
    qtbot.addWidget(dialog)
    assert dialog.preset.currentText() == "paper"
    paper = dialog.options()
    assert paper["params"]["parameters"] == "all" and "name" not in paper
    dialog.preset.setCurrentIndex(dialog.preset.findData("light"))
    light = dialog.options()
    assert light["params"]["parameters"] == "last-4-blocks-linear"
    assert light["name"] == "gradients/fast-light"
    assert "half the time" in dialog.preset.itemData(1, Qt.ItemDataRole.ToolTipRole)
