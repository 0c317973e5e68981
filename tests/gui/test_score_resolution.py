"""The dashboard's score cards say where the score sits (fraction, mean cosine) and whether
it can separate datasets (the verdict); older runs without these fields still show."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from tests.gui.conftest import make_project, open_project, screenshot, tiny_rows
from vendiscope.core.store.models import RunInfo
from vendiscope.gui.dashboard import data
from vendiscope.gui.dashboard.page import _score_context, _score_note, _score_tooltip
from vendiscope.gui.windows.main_window import MainWindow


def _run(details: dict) -> RunInfo:
    return RunInfo(
        id=7, key="score:d:gvendi:g", kind="metric", plugin="metric:vendi", dataset_id=1,
        params={"metric": "gvendi", "vector_set": "gradients/x"}, versions={}, seed=None,
        status="complete", result={"value": 159.9, "n": 1245, "details": details,
                                   "per_source": {}},
        error=None, started_at=datetime(2026, 1, 1), finished_at=datetime(2026, 1, 1, 0, 5),
    )  # fmt: skip


def test_old_runs_show_without_the_new_fields() -> None:
    score = data._score([_run({"q": 1.0, "n": 1245, "spectrum_top": [0.5]})], "gvendi")
    assert score is not None
    assert score.mean_cosine is None and score.verdict is None and score.projection_sd is None
    assert score.share == 159.9 / 1245
    assert _score_context(score) == "of n = 1,245 records (12.8% distinct)"
    assert "projection" not in _score_tooltip(score) and _score_note(score) == ""


def test_new_fields_and_the_projection_error() -> None:
    verdict = {"level": "saturated", "text": "A plain sentence."}
    details = {
        "q": 1.0, "effective_fraction": 0.1284, "mean_cosine": 0.0912, "verdict": verdict,
        "projection_error": {"sd": 2.345, "shift": -0.4, "draws": 5},
    }  # fmt: skip
    score = data._score([_run(details)], "gvendi")
    assert _score_context(score) == "of n = 1,245 records (12.8% distinct)"
    tip = _score_tooltip(score)
    assert "159.90 ± 2.35 (projection) of 1,245 records" in tip and "0.09" in tip
    assert tip.endswith("A plain sentence.")
    assert _score_note(score) == "Mean cosine 0.09 · no groups beyond the average"
    broken = data._score([_run({**details, "verdict": "?", "projection_error": {}})], "gvendi")
    assert broken.verdict is None and broken.projection_sd is None


def test_the_score_cards_show_fraction_cosine_and_verdict(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    from tests.core._planted import planted_vectors, write_set
    from vendiscope.core.metrics.scoring import score_dataset
    from vendiscope.core.store.project import Project

    path = make_project(tmp_path / "scored.vscope", tiny_rows(240), name="scored")
    with Project.open(path) as project:
        write_set(project, "scored", "gradients/x", planted_vectors((80, 60, 40, 30, 30))[0])
        scored = score_dataset(project, "scored", metric="gvendi", params={"bootstrap": 20})
    open_project(qtbot, window, path)
    dashboard = window.open_view("dashboard", "scored")
    qtbot.waitUntil(lambda: dashboard.summary is not None, timeout=20_000)
    card = dashboard.cards["gvendi"]
    assert "%" in card.context.text() and "interval" in card.context.text()
    assert card.note.isVisible() and card.note.text().startswith("Mean cosine")
    assert card.note.toolTip() == scored.details["verdict"]["text"]
    assert scored.details["verdict"]["text"] in card.toolTip()
    # nothing clipped: every line of the card fits in it
    bottom = 0
    for label in (card.caption, card.value, card.context, card.note):
        needed = (
            label.heightForWidth(label.width()) if label.wordWrap() else label.sizeHint().height()
        )
        assert label.geometry().top() >= bottom and needed <= label.height() + 1, label.text()
        bottom = label.geometry().bottom()
    assert bottom <= card.contentsRect().bottom()
    screenshot(dashboard, "dashboard-score-resolution")


def test_the_dashboard_says_which_score_sees_the_sources(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    from tests.core._planted import disagreeing_scores
    from vendiscope.core.store.project import Project

    path = tmp_path / "advice.vscope"
    with Project.create(path) as project:
        disagreeing_scores(project, tmp_path)
    open_project(qtbot, window, path)
    dashboard = window.open_view("dashboard", "advice")
    qtbot.waitUntil(lambda: dashboard.summary is not None, timeout=20_000)
    assert dashboard.advice.isVisible()
    assert dashboard.advice.text().startswith("At 120 rows G-Vendi does not")
    assert "Compare datasets by embedding-Vendi at this size" in dashboard.advice.text()
    assert dashboard.cards["gvendi"].note.text().endswith("does not tell your groups apart")
    assert dashboard.cards["evendi"].note.text().endswith("tells your groups apart")
    screenshot(dashboard, "dashboard-score-advice")
