"""Signals in the selection workbench: leaving flagged records out, signal columns as quality,
and the "Quality vs diversity" chart — real widgets on a copy of the demo with signals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.conftest import qa_rows, write_jsonl
from tests.gui.conftest import open_project, screenshot, wait_job
from vendiscope.core.store.migrate import copy_project
from vendiscope.gui.jobs.manager import JobState
from vendiscope.gui.selection.workbench import SelectionWorkbench
from vendiscope.gui.windows.main_window import MainWindow

EMBEDDINGS = "sentence-transformers/prompt+response"
"""The demo's smallest feature set (384 dimensions)."""
SIGNALS = ["text-stats", "pii", "language", "lexical-dups"]


@pytest.fixture(scope="module")
def signals_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project with its embeddings and four signals, computed once per module."""
    import vendiscope as vs
    from vendiscope.core.io.demo import ensure_demo_project

    path = ensure_demo_project(tmp_path_factory.mktemp("signals") / "demo.vscope")
    with vs.open(path, progress=False) as project:
        project.signals("demo", SIGNALS)
        project.store.wal_checkpoint()
    return path


@pytest.fixture
def demo_signals(signals_template: Path, tmp_path: Path) -> Path:
    return copy_project(signals_template, tmp_path / "demo.vscope")


def open_workbench(qtbot, window: MainWindow, path: Path, dataset: str) -> SelectionWorkbench:
    open_project(qtbot, window, path)
    view = window.open_view("selection", dataset)
    qtbot.waitUntil(lambda: view.state is not None, timeout=20_000)
    return view


def flags_of(path: Path) -> dict[str, np.ndarray]:
    import vendiscope as vs

    with vs.open(path, progress=False) as project:
        columns = project.signal_values("demo")
        return {
            name: project.where("demo", name)
            for name, values in columns.items()
            if values.kind == "flag" and "." not in name
        }


def prepare(view: SelectionWorkbench, *, k: int, quality: str | None = None) -> None:
    form = view.form
    form.set_methods(["greedy-vendi"])
    form.k.setValue(k)
    form.vector_set.setCurrentIndex(form.vector_set.findData(EMBEDDINGS))
    if quality is not None:
        form.quality.setCurrentIndex(form.quality.findData(quality))


def stored_selection(path: Path, run_id: int) -> tuple[dict, list[int]]:
    from vendiscope.core.store import subsets
    from vendiscope.core.store.project import Project

    with Project.open(path) as project:
        run = project.run(run_id)
        return run.params, subsets.members(project, "demo", run.result["subset"]).positions


def test_flags_are_listed_with_their_counts_and_ticked_ones_are_left_out(
    qtbot, window: MainWindow, demo_signals: Path
) -> None:
    flags = flags_of(demo_signals)
    view = open_workbench(qtbot, window, demo_signals, "demo")
    form = view.form
    listed = {
        form.drop.item(i).data(Qt.ItemDataRole.UserRole): form.drop.item(i).text()
        for i in range(form.drop.count())
    }
    assert set(listed) == set(flags) >= {"pii", "low-quality", "lexical-dups", "truncated"}
    for name, raised in flags.items():
        assert listed[name] == f"{name} ({int(raised.sum()):,})"
    assert "a Gopher repetition rule" in form.drop.item(list(listed).index("low-quality")).toolTip()
    assert form.candidates.text() == "1,245 of 1,245 records are candidates"

    ticked = ["pii", "low-quality", "truncated"]
    form.set_ticked(form.drop, ticked)
    form.set_ticked(form.exclude, ["random-150"])
    left_out = flags["pii"] | flags["low-quality"] | flags["truncated"]
    from vendiscope.core.store import subsets
    from vendiscope.core.store.project import Project

    with Project.open(demo_signals) as project:
        left_out[subsets.members(project, "demo", "random-150").positions] = True
    out = int(left_out.sum())
    assert out > 157  # low-quality alone flags 157 records
    assert form.candidates.text() == (
        f"{1245 - out:,} of 1,245 records are candidates ({out:,} left out)"
    )
    prepare(view, k=60)
    (job,) = view.run_selection()
    assert wait_job(qtbot, job).state == JobState.DONE, job.error_details
    params, chosen = stored_selection(demo_signals, job.result.data["run_id"])
    assert sorted(params["drop"]) == sorted(ticked) and params["exclude"] == ["random-150"]
    assert len(chosen) == 60
    for name in ticked:
        assert not flags[name][chosen].any(), name
    assert not left_out[chosen].any()
    screenshot(view.form, "selection-form-signals")


def test_a_signal_number_column_weighs_the_selection(
    qtbot, window: MainWindow, demo_signals: Path
) -> None:
    view = open_workbench(qtbot, window, demo_signals, "demo")
    quality = view.form.quality
    offered = [quality.itemText(i) for i in range(quality.count())]
    assert {"signal language-confidence", "signal words", "signal pii-count"} <= set(offered)
    prepare(view, k=40, quality="language-confidence")
    assert view.form.quality.currentText() == "signal language-confidence"
    qtbot.wait(300)  # the core's check of the column answers in the background
    assert view.form.quality_problem is None and not view.form.problem.isVisible()
    (job,) = view.run_selection()
    assert wait_job(qtbot, job).state == JobState.DONE, job.error_details
    params, _chosen = stored_selection(demo_signals, job.result.data["run_id"])
    assert params["quality"] == "language-confidence"
    run_id = job.result.data["run_id"]
    qtbot.waitUntil(lambda: any(r.run_id == run_id for r in view.state.runs), timeout=10_000)
    run = next(r for r in view.state.runs if r.run_id == run_id)
    assert run.objective_name == "quality_weighted_vendi_q1"
    assert run.settings["quality"] == "language-confidence"


def test_a_column_with_missing_values_shows_the_cores_refusal(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    import vendiscope as vs

    rows = [*qa_rows(30), {"id": "dots", "question": "...", "answer": "...", "source": "s0"}]
    path = tmp_path / "tiny.vscope"
    with vs.create(path, progress=False) as project:
        project.import_file(write_jsonl(tmp_path / "tiny.jsonl", rows), name="tiny")
        project.signals("tiny", "text-stats")
    view = open_workbench(qtbot, window, path, "tiny")
    form = view.form
    form.quality.setCurrentIndex(form.quality.findData("mean-word-length"))
    refusal = (
        "quality 'mean-word-length' of dataset 'tiny': record 30 has a not finite weight (nan); "
        "weights must be finite and >= 0"
    )
    qtbot.waitUntil(lambda: form.problem.isVisible(), timeout=10_000)
    assert form.problem.text() == refusal and form.quality_problem == refusal
    assert view.run_selection() == []
    form.quality.setCurrentIndex(form.quality.findData("words"))  # every record has one
    qtbot.waitUntil(lambda: not form.problem.isVisible(), timeout=10_000)
    assert form.quality_problem is None


def test_the_quality_vs_diversity_chart_shows_each_strength_and_marks_the_selected_run(
    qtbot, window: MainWindow, demo_signals: Path
) -> None:
    view = open_workbench(qtbot, window, demo_signals, "demo")
    panel = view.tradeoff_panel
    assert not panel.compute_button.isEnabled()
    assert panel.status.text() == "Choose a quality column on the left first."
    prepare(view, k=60, quality="words")
    view.form.set_ticked(view.form.drop, ["low-quality"])
    assert panel.compute_button.isEnabled() and panel.status.text() == ""
    (selection,) = view.run_selection()  # the form's quality-weighted selection: strength 1
    assert wait_job(qtbot, selection).state == JobState.DONE, selection.error_details

    view.charts.setCurrentWidget(panel)
    panel.strengths.setText("0, 1, 3")
    with qtbot.waitSignal(panel.compute_requested):
        panel.compute_button.click()
    job = view.tradeoff_job
    assert job is not None and job.kind == "select" and job.in_child_process
    assert not panel.compute_button.isEnabled() and panel.status.text().startswith("Computing")
    assert wait_job(qtbot, job).state == JobState.DONE, job.error_details
    result = view.tradeoff
    assert result is not None and result.strengths == (0.0, 1.0, 3.0)
    assert result.k == 60 and result.drop == ("low-quality",) and result.quality == "words"
    plot = panel.plot
    xs, ys = plot.points.getData()
    assert list(xs) == [p.mean_quality for p in result.points]
    assert list(ys) == [p.vendi for p in result.points]
    assert [label.toPlainText() for label in plot.labels] == ["0", "1", "3"]
    rx, ry = plot.random.getData()
    assert (rx[0], ry[0]) == (result.random.mean_quality, result.random.vendi)
    assert result.point(3).mean_quality > result.point(0).mean_quality > 0
    axis = plot.plot.getPlotItem().getAxis("bottom").labelText
    assert axis == "mean quality of the chosen records (words)"
    assert plot.ring is None  # no run selected yet

    _params, chosen = stored_selection(demo_signals, selection.result.data["run_id"])
    assert chosen == list(result.point(1).positions)  # the same records as the marked point
    view.select_run(selection.result.data["run_id"])
    assert plot.marked == 1.0
    rx, ry = plot.ring.getData()
    assert (rx[0], ry[0]) == (result.point(1).mean_quality, result.point(1).vendi)
    names = plot.legend.names()
    assert names[-1] == "ringed: the run selected in the table (strength 1)"
    qtbot.wait(50)
    for entry in plot.legend.entries:  # the legend is not clipped: every name in full
        assert entry.label.text() == entry.entry.name
        assert entry.geometry().right() <= plot.legend.width()
    random_run = next(r for r in view.state.runs if r.method == "random")
    view.select_run(random_run.run_id)  # not one of the points' settings
    assert plot.marked is None and plot.ring is None
    view.select_run(selection.result.data["run_id"])
    screenshot(window, "selection-quality-vs-diversity")

    stopped = view.compute_tradeoff((0, 1))  # cancelled: the chart keeps the last result
    stopped.cancel()
    assert wait_job(qtbot, stopped).state == JobState.CANCELLED
    assert panel.status.text() == "Stopped before it finished." and view.tradeoff is result


# ----------------------------------------------------------------------------- Qt-free data
def test_the_state_names_each_signal_column_once_and_counts_the_candidates(
    demo_signals: Path,
) -> None:
    from vendiscope.core.store import subsets
    from vendiscope.core.store.project import Project
    from vendiscope.gui.selection.data import candidate_count, state_of

    flags = flags_of(demo_signals)
    with Project.open(demo_signals) as project:
        state = state_of(project, "demo")
        near = subsets.members(project, "demo", "near-duplicates@0.95").positions
    names = [f.name for f in state.flags]  # each once, by the name `drop` takes
    assert len(names) == len(set(names)) and set(names) == set(flags)
    assert {f.name: f.count for f in state.flags} == {n: int(m.sum()) for n, m in flags.items()}
    numbers = {c.name: c.help for c in state.signal_numbers}
    assert "." not in "".join(numbers) and numbers["words"] == "word tokens"
    assert {"language-confidence", "pii-count", "lexical-group"} <= set(numbers)
    left_out = flags["low-quality"] | flags["lexical-dups"]
    left_out[near] = True
    expected = 1245 - int(left_out.sum())
    assert candidate_count(state, ["near-duplicates@0.95"], ["low-quality", "lexical-dups"]) == (
        expected
    )
    assert candidate_count(state, [], []) == 1245


def test_strengths_are_read_from_plain_text() -> None:
    from vendiscope.gui.selection.data import parse_strengths

    assert parse_strengths("0, 0.5 1;2, 1") == (0.0, 0.5, 1.0, 2.0)
    for text, words in (("0, many", "'many' is not a number"), ("-1", ">= 0"), ("", "at least")):
        with pytest.raises(ValueError, match=words) as refused:
            parse_strengths(text)
        assert str(refused.value).startswith("Strengths: ")


def test_a_run_matches_the_point_of_its_settings() -> None:
    from vendiscope.core.selection.tradeoff import RandomReference, TradeoffPoint, TradeoffResult
    from vendiscope.gui.selection.data import SelectionRun, matching_strength

    points = tuple(TradeoffPoint(s, (1, 2), 0.5 + s, 10.0 - s) for s in (0.0, 1.0, 2.0))
    result = TradeoffResult(
        "demo", "words", 2, "emb", "embedding", 100, 5, points,
        RandomReference(5, 0, 0.4, 5.0, 0.01, 0.2), drop=("low-quality", "pii"),
    )  # fmt: skip

    def run(method: str = "greedy-vendi", k: int = 2, **settings: object) -> SelectionRun:
        asked = {"quality": None, "exclude": [], "drop": ["pii", "low-quality"], "dedupe": None,
                 "params": {}} | settings  # fmt: skip
        return SelectionRun(1, method, k, "emb", "s", True, "o", 1.0, [1, 2], {}, {}, {},
                            settings=asked)  # fmt: skip

    assert matching_strength(result, run()) == 0.0
    assert matching_strength(result, run(quality="words")) == 1.0
    assert matching_strength(result, run(quality="chars")) is None
    assert matching_strength(result, run(drop=["pii"])) is None
    assert matching_strength(result, run(dedupe=0.95)) is None
    assert matching_strength(result, run(params={"seed": 3})) is None
    assert matching_strength(result, run(method="k-center")) is None
    assert matching_strength(result, run(k=3)) is None
    without_one = TradeoffResult(**{**result.__dict__, "points": points[::2]})
    assert matching_strength(without_one, run(quality="words")) is None
