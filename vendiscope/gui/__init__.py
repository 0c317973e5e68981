"""The PySide6 desktop application: thin views over core objects, workers that run core jobs.

Nothing in this package talks SQL or torch directly; it goes through :mod:`vendiscope.core`.

>>> from vendiscope.gui import run     # doctest: +SKIP
>>> run("audit.vscope")                # opens the window; returns when it closes

Layout (one job per module): ``app`` (start-up), ``main_window`` with ``window_actions``
and ``file_commands``; ``document`` (the open project) and ``project_nodes`` /
``project_model`` / ``project_panel`` (the tree); ``tabs`` (the central views and their
registry); ``jobs``, ``progress``, ``jobs_panel``, ``tasks``, ``background`` (work off the
GUI thread); ``import_dialog``; ``records_model`` / ``records_view``; ``record_link`` (the
record selected in each dataset, shared by the views); ``pipeline``; ``dashboard``; the map
(``point_cloud``, ``map_canvas``, ``map_data``, ``map_view``, ``legend``, ``palettes``); the
selection workbench (``selection_form``, ``param_form``, ``curves_plot``,
``selection_data``, ``selection_workbench``); views from plugins (``plugin_views``,
``chart_renderer``); ``plugins_window``; ``about``; ``text`` (labels, tooltips and message
boxes that show data as plain text: every label is made through it).
"""

from __future__ import annotations

from typing import Any

__all__ = ["main", "run"]


def run(project: str | None = None, *, demo: bool = False, theme: str | None = None) -> int:
    """Open the application (on ``project``, or the demo project with ``demo``)."""
    from vendiscope.gui.app import run as _run

    return _run(project, demo=demo, theme=theme)


def main(argv: list[str] | None = None) -> int:
    from vendiscope.gui.app import main as _main

    return _main(argv)


def __getattr__(name: str) -> Any:  # pragma: no cover - convenience for interactive use
    if name == "MainWindow":
        from vendiscope.gui.windows.main_window import MainWindow

        return MainWindow
    raise AttributeError(name)
