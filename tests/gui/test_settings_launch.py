"""Remembered settings, and launching the app from main.py and the console script."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vendiscope.gui.windows.settings import MAX_RECENT, SETTINGS_VERSION

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).with_name("vendiscope")


def test_recent_projects_most_recent_first_without_duplicates(settings, tmp_path) -> None:
    paths = []
    for i in range(MAX_RECENT + 3):
        path = tmp_path / f"p{i}.vscope"
        path.write_bytes(b"")
        paths.append(path)
        settings.add_recent_project(str(path))
    settings.add_recent_project(str(paths[5]))
    recent = settings.recent_projects()
    assert len(recent) == MAX_RECENT
    assert recent[0] == str(paths[5]) and recent.count(str(paths[5])) == 1
    paths[-1].unlink()
    assert str(paths[-1]) not in settings.recent_projects()  # gone files are left out
    assert int(settings.qsettings.value("settings_version")) == SETTINGS_VERSION


@pytest.mark.slow
def test_main_py_and_the_gui_command_describe_themselves() -> None:
    out = subprocess.run(
        [sys.executable, "main.py", "--help"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "--demo" in out and "project" in out
    out = subprocess.run([SCRIPT, "gui", "--help"], capture_output=True, text=True, check=True)
    assert "Open the desktop application" in out.stdout
    missing = subprocess.run([SCRIPT, "gui", "nowhere.vscope"], capture_output=True, text=True)
    assert missing.returncode == 1 and "no such project file" in missing.stderr


@pytest.mark.slow
def test_the_app_launches_on_a_project_and_paints(demo_project: Path, tmp_path) -> None:
    probe = (
        "import sys\n"
        "from PySide6.QtCore import QEvent, QObject, QTimer\n"
        "from vendiscope.gui.app import create_app, create_window\n"
        "app = create_app(['vendiscope'])\n"
        "window = create_window(sys.argv[1])\n"
        "class Painted(QObject):\n"
        "    def eventFilter(self, obj, event):\n"
        "        if event.type() == QEvent.Type.Paint and window.document.is_open:\n"
        "            print('TITLE', window.windowTitle(), flush=True)\n"
        "            QTimer.singleShot(0, app.quit)\n"
        "        return False\n"
        "spy = Painted()\n"
        "window.installEventFilter(spy)\n"
        "window.show()\n"
        "QTimer.singleShot(0, window.update)\n"
        "QTimer.singleShot(200, window.update)\n"
        "QTimer.singleShot(20000, app.quit)\n"
        "app.exec()\n"
        "window.document.close()\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", probe, str(demo_project)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert "TITLE demo.vscope — Vendiscope" in out.stdout, out.stdout + out.stderr
