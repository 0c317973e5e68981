"""The frame of a job's settings dialog: an intro, the settings, what keeps it from starting.

A subclass (the "Fill gaps…" and "Study…" dialogs) builds its settings and hands them to
:meth:`JobDialog._lay_out`, which puts the intro above them and, below, the line saying what
keeps the job from starting and the Start and Cancel buttons; :meth:`JobDialog._show_problem`
shows that line (or enables Start). A check the dialog runs in a child process (Test
connection, Estimate cost) is started by :meth:`JobDialog._start_check`, shows how it went
with :meth:`JobDialog._show_outcome`, and is let go with :meth:`JobDialog._cancel_check`
when the dialog closes or a setting changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLayout,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.widgets.style import error_palette
from vendiscope.gui.widgets.text import plain_label, plain_tip
from vendiscope.gui.windows.document import ProjectDocument


class JobDialog(QDialog):
    """Settings of a job on ``dataset``; OK (Start) accepts them."""

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str,
        *,
        registry: Any = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        from vendiscope.core.plugin_host.registry import default_registry

        self.document = document
        self.dataset = dataset
        self.location = document.location
        self.registry = registry or default_registry()

    def _lay_out(self, intro: str, settings: QLayout) -> None:
        """``intro`` (a hint), ``settings`` below it, then the problem line and the buttons."""
        hint = plain_label(intro)
        hint.setObjectName("hint")
        hint.setWordWrap(True)
        self.problem = plain_label()
        self.problem.setObjectName("paramProblem")
        self.problem.setWordWrap(True)
        error_palette(self.problem)
        self.problem.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.start_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.start_button.setText("Start")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addLayout(settings, 1)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)

    def _show_problem(self, problem: str | None) -> None:
        """Show what keeps the job from starting; None: nothing, Start is enabled."""
        self.problem.setText(problem or "")
        self.problem.setVisible(problem is not None)
        self.start_button.setEnabled(problem is None and self.location is not None)

    def _start_check(
        self,
        button: QPushButton,
        finished: Callable[[Any], None],
        title: str,
        function: Callable[..., Any],
        *args: Any,
    ) -> Any:
        """Run ``function(*args)`` as a job in a child process, ``button`` disabled meanwhile;
        ``finished`` gets the job when it ends. The job."""
        from vendiscope.gui.jobs.manager import start_now

        button.setEnabled(False)
        job = start_now(title, function, *args, in_child_process=True)
        job.finished.connect(finished)
        return job

    def _show_outcome(self, label: QLabel, ok: bool, text: str, found: str) -> None:
        """``text`` in ``label`` (what the check ``found`` its tooltip), in the error palette
        unless ``ok``."""
        label.setText(text)
        label.setToolTip(plain_tip(found))
        if ok:
            label.setPalette(self.palette())
        else:
            error_palette(label)

    def _cancel_check(self, job: Any, finished: Callable[[Any], None], button: QPushButton) -> None:
        """Cancel a check still running (its end, once handled by ``finished``, is not shown)
        and enable its ``button`` again."""
        job.finished.disconnect(finished)
        job.cancel()
        button.setEnabled(True)


def spin_box(low: int, high: int, value: int) -> QSpinBox:
    """A spin box of whole numbers from ``low`` to ``high``, at ``value``, in thousands."""
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setValue(value)
    spin.setGroupSeparatorShown(True)
    return spin
