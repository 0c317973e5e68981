"""Start the desktop application: the QApplication, its style, the main window.

Nothing heavy is imported here: torch, faiss and friends load in worker threads when a job
needs them, so the first window appears in well under two seconds.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QThreadPool, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from vendiscope import __version__
from vendiscope.gui import system_libs
from vendiscope.gui.widgets.icons import app_icon
from vendiscope.gui.widgets.style import apply_style
from vendiscope.gui.windows import store_guard
from vendiscope.gui.windows.main_window import MainWindow
from vendiscope.gui.windows.settings import APPLICATION, ORGANIZATION, AppSettings


def create_app(argv: list[str] | None = None, theme: str | None = None) -> QApplication:
    """The QApplication (reused if one exists), named, iconed and styled."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("vendiscope")
    app.setWindowIcon(app_icon())
    apply_style(app, theme)
    return app  # type: ignore[return-value]  # QApplication.instance() is typed QCoreApplication


WARM_UP = ("vendiscope.core.store.project", "vendiscope.core.io.importing", "numpy", "superqt")
"""Imported on a background thread once the window is up, so opening a project is quick."""


def warm_up() -> threading.Thread:
    """Import the modules a project needs (SQLAlchemy, numpy, superqt) off the GUI thread."""

    def work() -> None:
        for name in WARM_UP:
            try:
                importlib.import_module(name)
            except Exception:  # pragma: no cover - the real import later reports it
                return

    thread = threading.Thread(target=work, name="vendiscope-warm-up", daemon=True)
    thread.start()
    return thread


def create_window(
    project: str | None = None,
    *,
    demo: bool = False,
    settings: AppSettings | None = None,
    demo_path: Path | None = None,
) -> MainWindow:
    """The main window, showing ``project`` (or the demo project) once the event loop runs."""
    window = MainWindow(settings, demo_path=demo_path)
    after_first_paint(window, warm_up)
    if project is not None:
        after_first_paint(window, lambda: window.files.open_location(str(project)))
    elif demo:
        after_first_paint(window, window.files.open_demo)
    return window


class _FirstPaint(QObject):
    """Calls ``callback`` once, from the event loop, after ``widget`` first paints."""

    def __init__(self, widget: QWidget, callback: Callable[[], object]) -> None:
        super().__init__(widget)
        self.callback = callback
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self.callback)
        return False


def after_first_paint(widget: QWidget, callback: Callable[[], object]) -> None:
    """Run ``callback`` once the window is on screen (so start-up work never delays it)."""
    _FirstPaint(widget, callback)


def has_display() -> bool:
    """Whether Qt can open a window here (always on Windows/macOS; on Linux, X11 or Wayland)."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def run(project: str | None = None, *, demo: bool = False, theme: str | None = None) -> int:
    """Show the window and run the event loop; returns the exit status."""
    problem = system_libs.launch_problem()  # Qt would abort with a misleading message
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    if not has_display():
        print(
            "vendiscope: no display found, so the desktop app cannot open (set DISPLAY, or "
            "run it under xvfb-run). The command-line tools need no display: "
            "`vendiscope --help`.",
            file=sys.stderr,
        )
        return 2
    app = create_app(theme=theme)
    store_guard.install_excepthook()
    window = create_window(project, demo=demo)
    window.show()
    status = app.exec()
    QThreadPool.globalInstance().waitForDone(5_000)  # late background reads finish quietly
    return status


def main(argv: list[str] | None = None) -> int:
    """``python -m vendiscope.gui [PROJECT] [--demo] [--theme dark]``."""
    parser = argparse.ArgumentParser(prog="vendiscope gui", description="Open the Vendiscope app.")
    parser.add_argument("project", nargs="?", help="a project file (*.vscope) to open")
    parser.add_argument("--demo", action="store_true", help="open the bundled demo project")
    parser.add_argument("--theme", choices=["light", "dark"], help="force a colour theme")
    args = parser.parse_args(argv)
    return run(args.project, demo=args.demo, theme=args.theme)


if __name__ == "__main__":
    sys.exit(main())
