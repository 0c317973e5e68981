"""Fixtures for GUI tests: real windows (offscreen), real project files, isolated settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from tests.conftest import write_jsonl
from vendiscope.core.store.migrate import copy_project

ARTIFACTS = Path(__file__).with_name("artifacts")


@pytest.fixture(scope="session", autouse=True)
def _styled_app(qapp: QApplication) -> QApplication:
    from vendiscope.gui.app import create_app

    return create_app()


@pytest.fixture
def settings(tmp_path: Path) -> Any:
    from vendiscope.gui.windows.settings import AppSettings

    return AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from vendiscope.core.io.demo import ensure_demo_project

    return ensure_demo_project(tmp_path_factory.mktemp("demo") / "demo.vscope")


@pytest.fixture
def demo_project(demo_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the demo project (1,245 records, 6 sources)."""
    return copy_project(demo_template, tmp_path / "demo.vscope")


def tiny_rows(n: int, *, start: int = 0) -> list[dict[str, Any]]:
    topics = ["rivers", "prime numbers", "sorting", "tea", "volcanoes", "chess", "bees", "jazz"]
    return [
        {
            "id": f"t{i}",
            "question": f"Tell me one fact about {topics[i % len(topics)]} (number {i}).",
            "answer": f"Fact {i} about {topics[i % len(topics)]}.",
            "domain": f"d{i % 4}",
        }
        for i in range(start, start + n)
    ]


def make_project(path: Path, rows: list[dict[str, Any]], name: str = "tiny") -> Path:
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.store.project import Project

    data = write_jsonl(path.with_suffix(".jsonl"), rows)
    with Project.create(path) as project:
        import_dataset(project, data, name=name)
    return path


@pytest.fixture(scope="session")
def large_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """50,000 tiny records through the core bulk import (built once per session)."""
    folder = tmp_path_factory.mktemp("large")
    return make_project(folder / "large.vscope", tiny_rows(50_000), name="large")


@pytest.fixture
def small_project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "small.vscope", tiny_rows(24), name="tiny")


@pytest.fixture
def window(qtbot: Any, settings: Any, tmp_path: Path) -> Iterator[Any]:
    from vendiscope.gui.windows.main_window import MainWindow

    created = MainWindow(settings, demo_path=tmp_path / "built-demo.vscope")
    qtbot.addWidget(created)
    created.resize(1366, 768)
    created.show()
    qtbot.waitExposed(created)
    yield created
    created.jobs.cancel_all()
    created.jobs.wait(60_000)
    created.document.close()


def open_project(qtbot: Any, window: Any, path: Path) -> None:
    assert window.files.open_location(str(path))
    qtbot.waitUntil(lambda: window.project_panel.model.rowCount() > 0, timeout=10_000)


def screenshot(widget: QWidget, name: str) -> Path:
    """Save what ``widget`` shows to tests/gui/artifacts/NAME.png (looked at by people).

    On a real display (e.g. under ``xvfb-run`` with ``QT_QPA_PLATFORM=xcb``) the file is
    PLATFORM-NAME.png, so both renderings can be compared.
    """
    ARTIFACTS.mkdir(exist_ok=True)
    QApplication.processEvents()
    platform = QApplication.platformName()
    path = ARTIFACTS / (f"{name}.png" if platform == "offscreen" else f"{platform}-{name}.png")
    assert widget.grab().save(str(path))
    return path


def answer_message_box(
    button: QMessageBox.StandardButton, seen: list[str] | None = None, timeout_ms: int = 10_000
) -> None:
    """Click ``button`` on the next modal message box (polls until one appears)."""
    waited = [0]

    def poll() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            if seen is not None:
                seen.append(box.text())
            box.button(button).click()
            return
        waited[0] += 20
        if waited[0] < timeout_ms:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(20, poll)


def wait_job(qtbot: Any, job: Any, timeout: int = 180_000) -> Any:
    if not job.state.finished:
        with qtbot.waitSignal(job.finished, timeout=timeout):
            pass
    return job


ANALYSED = "demo"
"""The analysed project stands in for the precomputed demo: same dataset name."""


@pytest.fixture(scope="session")
def analysed_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """978 records in 20 planted clusters (4 sources) with the whole analysis, made by the
    real core jobs: gradient and embedding vector sets, a PCA map, clusters, G-Vendi with a
    per-record leverage score, and a greedy-Vendi selection compared with random."""
    import numpy as np

    from tests.core._planted import planted_dataset, write_set
    from vendiscope.core.clusters.jobs import cluster_dataset
    from vendiscope.core.maps.jobs import map_dataset
    from vendiscope.core.metrics.scoring import score_dataset
    from vendiscope.core.selection.job import select_dataset
    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project

    folder = tmp_path_factory.mktemp("analysed")
    path = folder / "analysed.vscope"
    with Project.create(path) as project:
        planted_dataset(project, folder, ANALYSED)
        rows = vectors.load(project, ANALYSED, "gradients/planted")
        mixing = np.random.default_rng(1).normal(size=(rows.shape[1], 24)).astype(np.float32)
        write_set(project, ANALYSED, "embeddings/planted", rows @ mixing, kind="embedding")
        map_dataset(project, ANALYSED, method="pca")
        cluster_dataset(project, ANALYSED, n_clusters=20)
        score_dataset(
            project, ANALYSED, metric="gvendi", vector_set="gradients/planted",
            params={"per_record": "leverage"},
        )  # fmt: skip
        select_dataset(project, ANALYSED, method="greedy-vendi", k=60)
        project.wal_checkpoint()
    return path


@pytest.fixture
def analysed_project(analysed_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the analysed project (dataset ``demo``)."""
    return copy_project(analysed_template, tmp_path / "analysed.vscope")
