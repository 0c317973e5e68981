"""A project on read-only storage opens in the app, which says so where the user looks."""

from __future__ import annotations

from pathlib import Path

from tests.gui.conftest import open_project, screenshot


def test_the_window_says_a_project_is_read_only(qtbot, window, read_only: Path) -> None:
    open_project(qtbot, window, read_only)
    assert window.windowTitle() == "p.vscope (read-only) — Vendiscope"
    assert "read-only: it is on read-only storage" in window.project_label.text()
    screenshot(window, "read-only-project")
