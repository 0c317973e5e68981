"""The start page, shown while no project is open: New, Open, Open demo, recent projects;
and :class:`NoViewsPage`, shown while a project is open but no view is (how to import data
into an empty project, how to open a dataset's views otherwise)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.widgets.icons import app_icon, icon
from vendiscope.gui.widgets.style import monospace_font
from vendiscope.gui.widgets.text import plain_label, plain_tip

IMPORT_HINT = (
    "This project has no datasets yet. Import one: File > Import data… (Ctrl+I), drag a "
    "data file (JSONL, JSON, CSV, Parquet, a Hugging Face folder, a folder of .txt files) "
    "onto this window, or on the command line:"
)
OPEN_HINT = (
    "Double-click a dataset in the project panel to browse its records,\n"
    "or open its diversity dashboard (Ctrl+2)."
)


def _action_button(icon_name: str, title: str, text: str) -> QToolButton:
    button = QToolButton()
    button.setObjectName("startAction")
    button.setIcon(icon(icon_name))
    button.setIconSize(QSize(28, 28))
    button.setText(f"{title}\n{text}")
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    button.setMinimumHeight(58)
    button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    button.setAccessibleName(title)
    return button


class StartPage(QWidget):
    """Emits what the user asked for; the window does it."""

    new_requested = Signal()
    open_requested = Signal()
    demo_requested = Signal()
    recent_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        logo = plain_label()
        logo.setPixmap(app_icon().pixmap(64, 64))
        title = plain_label("Vendiscope")
        title.setObjectName("pageTitle")
        tagline = plain_label(
            "How diverse is your training data, really? Import a dataset and see its G-Vendi, "
            "its duplicates and its sources."
        )
        tagline.setObjectName("hint")
        tagline.setWordWrap(True)
        heading = QVBoxLayout()
        heading.addWidget(title)
        heading.addWidget(tagline)
        top = QHBoxLayout()
        top.addWidget(logo, 0, Qt.AlignmentFlag.AlignTop)
        top.addLayout(heading, 1)

        self.new_button = _action_button("new", "New project…", "An empty project file")
        self.open_button = _action_button("open", "Open project…", "A *.vscope file")
        self.demo_button = _action_button(
            "demo", "Open the demo project", "1,245 instruction records from 6 sources"
        )
        self.new_button.clicked.connect(self.new_requested)
        self.open_button.clicked.connect(self.open_requested)
        self.demo_button.clicked.connect(self.demo_requested)
        actions = QVBoxLayout()
        actions.setSpacing(10)
        start = plain_label("Start")
        start.setObjectName("sectionTitle")
        actions.addWidget(start)
        for button in (self.new_button, self.open_button, self.demo_button):
            actions.addWidget(button)
        drop = plain_label(
            "Tip: drop a data file on this window to import it into a new project, or on "
            "the command line: vendiscope import PROJECT FILE."
        )
        drop.setObjectName("hint")
        drop.setWordWrap(True)
        actions.addWidget(drop)
        actions.addStretch(1)

        recent_title = plain_label("Recent projects")
        recent_title.setObjectName("sectionTitle")
        self.recent = QListWidget()
        self.recent.setObjectName("recentProjects")
        self.recent.setAlternatingRowColors(True)
        self.recent.itemActivated.connect(self._recent_activated)
        recent_title.setBuddy(self.recent)
        self.no_recent = plain_label("No recent projects yet.")
        self.no_recent.setObjectName("hint")
        recent = QVBoxLayout()
        recent.addWidget(recent_title)
        recent.addWidget(self.no_recent)
        recent.addWidget(self.recent, 1)
        recent.addStretch(0)  # takes the room while the list is hidden

        columns = QHBoxLayout()
        columns.setSpacing(24)
        columns.addLayout(actions, 2)
        columns.addLayout(recent, 3)

        body = QVBoxLayout()
        body.setSpacing(24)
        body.addLayout(top)
        body.addLayout(columns, 1)
        holder = QWidget()
        holder.setLayout(body)
        holder.setMaximumWidth(900)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(32, 32, 32, 32)
        outer.addStretch(1)
        outer.addWidget(holder, 8)
        outer.addStretch(1)
        self.setAcceptDrops(False)  # the window handles drops

    def set_recent(self, locations: list[str]) -> None:
        self.recent.clear()
        for location in locations:
            path = Path(location)
            item = QListWidgetItem(icon("dataset"), f"{path.name}\n{path.parent}")
            item.setData(Qt.ItemDataRole.UserRole, location)
            item.setToolTip(plain_tip(location))
            self.recent.addItem(item)
        self.recent.setVisible(bool(locations))
        self.no_recent.setVisible(not locations)

    def _recent_activated(self, item: QListWidgetItem) -> None:
        self.recent_requested.emit(item.data(Qt.ItemDataRole.UserRole))


class NoViewsPage(QWidget):
    """The central area of an open project with no view open.

    An empty project says how to import (with an Import button that emits
    ``import_requested``); a project with datasets says how to open their views. Call
    :meth:`update_for` with the project's location and dataset count when they change.
    """

    import_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noViewsPage")
        self.hint = plain_label(OPEN_HINT)
        self.hint.setObjectName("hint")
        self.hint.setWordWrap(True)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.command = plain_label()
        self.command.setObjectName("importCommand")
        self.command.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.command.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.import_button = QPushButton(icon("import"), "Import data…")
        self.import_button.setObjectName("importButton")
        self.import_button.clicked.connect(self.import_requested)
        holder = QWidget()
        holder.setMaximumWidth(560)
        column = QVBoxLayout(holder)
        column.addStretch(1)
        column.addWidget(self.hint)
        column.addWidget(self.command)
        column.addSpacing(8)
        column.addWidget(self.import_button, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addStretch(1)
        outer = QHBoxLayout(self)
        outer.addStretch(1)
        outer.addWidget(holder, 4)
        outer.addStretch(1)
        self.update_for(None, 1)

    def update_for(self, location: str | None, datasets: int) -> None:
        empty = location is not None and datasets == 0
        self.hint.setText(IMPORT_HINT if empty else OPEN_HINT)
        name = Path(location).name if location else "PROJECT"
        self.command.setText(f"vendiscope import {name} FILE")
        self.command.setFont(monospace_font())
        self.command.setVisible(empty)
        self.import_button.setVisible(empty)

    def show_failure(self, why: str) -> None:
        """The project's file failed: say so instead of inviting an import."""
        self.hint.setText(why)
        self.command.setVisible(False)
        self.import_button.setVisible(False)
