"""The start page, shown while no project is open: New, Open, Open demo, recent projects."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.icons import app_icon, icon


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
        logo = QLabel()
        logo.setPixmap(app_icon().pixmap(64, 64))
        title = QLabel("Vendiscope")
        title.setObjectName("pageTitle")
        tagline = QLabel(
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
        start = QLabel("Start")
        start.setObjectName("sectionTitle")
        actions.addWidget(start)
        for button in (self.new_button, self.open_button, self.demo_button):
            actions.addWidget(button)
        drop = QLabel("Tip: drop a data file on this window to import it.")
        drop.setObjectName("hint")
        drop.setWordWrap(True)
        actions.addWidget(drop)
        actions.addStretch(1)

        recent_title = QLabel("Recent projects")
        recent_title.setObjectName("sectionTitle")
        self.recent = QListWidget()
        self.recent.setObjectName("recentProjects")
        self.recent.setAlternatingRowColors(True)
        self.recent.itemActivated.connect(self._recent_activated)
        recent_title.setBuddy(self.recent)
        self.no_recent = QLabel("No recent projects yet.")
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
            item.setToolTip(location)
            self.recent.addItem(item)
        self.recent.setVisible(bool(locations))
        self.no_recent.setVisible(not locations)

    def _recent_activated(self, item: QListWidgetItem) -> None:
        self.recent_requested.emit(item.data(Qt.ItemDataRole.UserRole))
