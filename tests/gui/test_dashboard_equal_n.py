"""The dashboard's per-source table compares sources at the smallest source's size."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from tests.gui.conftest import open_project, screenshot
from vendiscope.core.store.models import RunInfo
from vendiscope.gui.dashboard import data
from vendiscope.gui.dashboard.page import _source_score
from vendiscope.gui.windows.main_window import MainWindow


def test_the_per_source_table_shows_scores_at_equal_n(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    from tests.core._planted import planted_dataset, planted_vectors, write_set
    from vendiscope.core.metrics.scoring import score_dataset
    from vendiscope.core.store.project import Project

    path = tmp_path / "sources.vscope"
    with Project.create(path) as project:
        planted_dataset(project, tmp_path)  # sources of 396, 274, 178 and 130 records
        write_set(project, "pool", "embeddings/x", planted_vectors(seed=1)[0], kind="embedding")
        gvendi = score_dataset(project, "pool", metric="gvendi", params={"per_record": None})
        score_dataset(project, "pool", metric="vendi", params={"per_record": None})
    window.resize(1280, 760)
    open_project(qtbot, window, path)
    dashboard = window.open_view("dashboard", "pool")
    qtbot.waitUntil(lambda: dashboard.summary is not None, timeout=20_000)
    table = dashboard.sources
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert headers[3] == "G-Vendi\nat n = 130" and headers[4] == "Embedding-Vendi\nat n = 130"
    assert "5 random draws of 130 records" in table.horizontalHeaderItem(3).toolTip()
    rows = {table.item(r, 0).text(): r for r in range(table.rowCount())}
    assert set(rows) == {"c0", "c1", "c2", "c3"}
    for source, row in gvendi.per_source.items():
        cell = table.item(rows[source], 3)
        at = row["equal_n"]
        shown = float(cell.text().split("±")[0].replace(",", ""))
        assert shown == pytest.approx(at["mean"], abs=0.051)
        assert ("±" in cell.text()) == (row["n"] > 130)
        assert f"on its own {row['n']:,} records" in cell.toolTip()
    largest = table.item(rows["c0"], 3).toolTip()
    assert "the mean ± sd of 5 random draws of 130 of its 396 records" in largest
    # the table fits its place in a 1280x760 window: no column cut off
    qtbot.waitUntil(lambda: table.isVisible(), timeout=5_000)
    assert table.horizontalScrollBar().maximum() == 0
    screenshot(window, "dashboard-sources-equal-n")


def _run(per_source: dict) -> RunInfo:
    return RunInfo(
        id=7, key="score:d:gvendi:g", kind="metric", plugin="metric:vendi", dataset_id=1,
        params={"metric": "gvendi", "vector_set": "gradients/x"}, versions={}, seed=None,
        status="complete", result={"value": 159.9, "n": 1245, "details": {"q": 1.0},
                                   "per_source": per_source},
        error=None, started_at=datetime(2026, 1, 1), finished_at=datetime(2026, 1, 1, 0, 5),
    )  # fmt: skip


def test_an_old_run_shows_the_sources_own_scores() -> None:
    score = data._score([_run({"a": {"n": 40, "value": 12.34}})], "gvendi")
    text, tip = _source_score(score, "a")
    assert text == "12.3" and "no scores at equal n" in tip
    assert _source_score(score, "b") == ("too few", "Too few records for a score of its own")
    assert _source_score(None, "a") == ("", "")
