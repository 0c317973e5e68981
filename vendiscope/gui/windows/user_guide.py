"""Help > User guide: the bundled guide, read inside the app (no browser, no desktop launcher).

The pages are the Markdown files of ``docs/`` — the one copy there is. The package reaches
them as ``vendiscope/resources/guide``, a link to ``docs/`` in the source tree that the build
turns into real files (``resources/**/*`` is package data), so an installed Vendiscope has
them too. Where neither is found (a source checkout without symbolic links, say), a short
built-in page says where the guide lives.

:class:`UserGuideDialog` shows one page at a time in a :class:`QTextBrowser`
(``setMarkdown``), with the list of pages beside it: links to another page (``gui.md``,
``plugins.md#parameters-and-forms``) and to headings (``#coverage``) are followed inside the
browser, with Back and Forward; web links open in the system browser.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QKeySequence, QShortcut, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.widgets.text import plain_label, plain_tip

PACKAGE = Path(__file__).resolve().parents[2]
GUIDE_FOLDERS = (PACKAGE / "resources" / "guide", PACKAGE.parent / "docs")
"""Where the pages are looked for: the package data, then the source tree's ``docs/``."""
FIRST_PAGES = ("user-guide.md", "gui.md")
PATH_ROLE = Qt.ItemDataRole.UserRole + 7  # a page's path, on its item in the list
PAGE_ORDER = (
    *FIRST_PAGES,
    "install.md",
    "metrics.md",
    "selection.md",
    "gvendi.md",
    "plugins.md",
    "scale.md",
    "architecture.md",
    "benchmarks.md",
)
FALLBACK = """# User guide

The pages of the user guide are not installed with this copy of Vendiscope.

Read them in the `docs/` folder of the source tree: `user-guide.md` (projects, importing,
exporting, the command line) and `gui.md` (this window, its views and jobs).

In the app, every button and field explains itself in its tooltip, and the start page opens
the demo project with its whole analysis computed.
"""


def guide_folder() -> Path | None:
    """The folder holding the guide's pages, or None when they are not installed."""
    for folder in GUIDE_FOLDERS:
        if all((folder / name).is_file() for name in FIRST_PAGES):
            return folder
    return None


def guide_pages(folder: Path | None = None) -> list[tuple[str, Path]]:
    """``(title, path)`` of every page: the guide and the desktop app first."""
    folder = folder if folder is not None else guide_folder()
    if folder is None:
        return []
    found = {p.name: p for p in folder.glob("*.md")}
    names = [n for n in PAGE_ORDER if n in found] + sorted(set(found) - set(PAGE_ORDER))
    return [(page_title(found[name]), found[name]) for name in names]


def page_title(path: Path) -> str:
    """The page's first heading (``# The desktop app``), else its file name."""
    try:
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                if line.startswith("# "):
                    return line[2:].strip()
    except OSError:
        pass
    return path.stem.replace("-", " ").capitalize()


def slug(heading: str) -> str:
    """A heading as GitHub names its anchor: ``"Views from plugins"`` -> ``views-from-plugins``."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


class GuideBrowser(QTextBrowser):
    """A QTextBrowser for Markdown pages: links between pages and to headings stay inside."""

    page_changed = Signal(str)  # the page's path

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("guideBrowser")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self.follow)
        self.document().setDocumentMargin(12)
        self.page: Path | None = None
        self.back_stack: list[tuple[Path | None, int]] = []
        self.forward_stack: list[tuple[Path | None, int]] = []
        self.opened_externally: list[QUrl] = []
        self.open_external = QDesktopServices.openUrl  # web links: the system browser

    # ------------------------------------------------------------------ pages
    def show_page(self, path: Path | None, fragment: str = "", *, remember: bool = True) -> None:
        """Show ``path`` (None: the built-in fallback page) at heading ``fragment``."""
        if remember and self.page is not None and (path != self.page or fragment):
            self.back_stack.append((self.page, self.verticalScrollBar().value()))
            self.forward_stack.clear()
        if path != self.page or self.document().isEmpty():
            self._load(path)
        if fragment:
            self.go_to_heading(fragment)
        elif path != self.page or not remember:
            self.verticalScrollBar().setValue(0)

    def _load(self, path: Path | None) -> None:
        text = FALLBACK
        if path is not None:
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                text = f"# Cannot read this page\n\n{path}: {exc.strerror or exc}"
        document = self.document()
        if path is not None:  # relative image paths resolve next to the page
            document.setBaseUrl(QUrl.fromLocalFile(str(path)))
        self.setMarkdown(text)
        self.page = path
        self.page_changed.emit(str(path) if path is not None else "")

    def headings(self) -> list[str]:
        """The page's headings, in order."""
        found = []
        block = self.document().begin()
        while block.isValid():
            if block.blockFormat().headingLevel() > 0:
                found.append(block.text())
            block = block.next()
        return found

    def go_to_heading(self, fragment: str) -> bool:
        """Scroll to the heading whose anchor is ``fragment``; False when there is none."""
        wanted = fragment.lstrip("#").lower()
        block = self.document().begin()
        while block.isValid():
            if block.blockFormat().headingLevel() > 0 and slug(block.text()) == wanted:
                cursor = QTextCursor(block)
                self.setTextCursor(cursor)
                top = int(self.document().documentLayout().blockBoundingRect(block).top())
                self.verticalScrollBar().setValue(top)
                return True
            block = block.next()
        return False

    # ------------------------------------------------------------------ links
    def follow(self, url: QUrl) -> None:
        """A clicked link: another page or heading here, anything on the web outside."""
        if url.scheme() in ("http", "https", "mailto"):
            self.opened_externally.append(url)
            self.open_external(url)
            return
        fragment = url.fragment()
        target = url.path() if not url.isLocalFile() else url.toLocalFile()
        if not target:  # "#heading" on this page
            self.show_page(self.page, fragment)
            return
        base = self.page.parent if self.page is not None else None
        path = Path(target) if Path(target).is_absolute() or base is None else base / target
        path = path.resolve() if path.exists() else path
        if path.suffix.lower() == ".md" and path.is_file():
            self.show_page(path, fragment)
        elif path.exists():  # an example or a picture: the desktop opens it, if it can
            self.opened_externally.append(QUrl.fromLocalFile(str(path)))
            self.open_external(QUrl.fromLocalFile(str(path)))

    def go_back(self) -> None:
        if self.back_stack:
            self.forward_stack.append((self.page, self.verticalScrollBar().value()))
            page, position = self.back_stack.pop()
            self._restore(page, position)

    def go_forward(self) -> None:
        if self.forward_stack:
            self.back_stack.append((self.page, self.verticalScrollBar().value()))
            page, position = self.forward_stack.pop()
            self._restore(page, position)

    def _restore(self, page: Path | None, position: int) -> None:
        if page != self.page:
            self._load(page)
        self.verticalScrollBar().setValue(position)


class UserGuideDialog(QDialog):
    """The guide's pages in a list, the chosen one rendered beside it, and a find field."""

    def __init__(self, parent: QWidget | None = None, folder: Path | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("userGuide")
        self.setWindowTitle("Vendiscope user guide")
        self.resize(1000, 680)
        self.folder = folder if folder is not None else guide_folder()
        self.browser = GuideBrowser()
        self.pages = QListWidget()
        self.pages.setObjectName("guidePages")
        for title, path in guide_pages(self.folder):
            item = QListWidgetItem(title)
            item.setData(PATH_ROLE, str(path))
            item.setToolTip(plain_tip(path.name))
            self.pages.addItem(item)
        self.pages.setWordWrap(True)
        self.pages.setSpacing(2)
        self.pages.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.pages.setMaximumWidth(260)
        self.pages.currentItemChanged.connect(self._page_chosen)
        self.browser.page_changed.connect(self._mark_page)
        self.browser.anchorClicked.connect(lambda _url: self._update_buttons())

        self.back = QPushButton("Back")
        self.back.clicked.connect(self.go_back)
        self.forward = QPushButton("Forward")
        self.forward.clicked.connect(self.go_forward)
        self.find = QLineEdit()
        self.find.setObjectName("guideFind")
        self.find.setPlaceholderText("Find in this page (Enter: next)")
        self.find.setClearButtonEnabled(True)
        self.find.returnPressed.connect(self.find_next)
        self.find.textChanged.connect(lambda _text: self.find_next(from_start=True))
        self.not_found = plain_label()
        self.not_found.setObjectName("hint")
        QShortcut(QKeySequence(QKeySequence.StandardKey.Find), self, self.find.setFocus)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Back), self, self.go_back)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Forward), self, self.go_forward)
        bar = QHBoxLayout()
        bar.addWidget(self.back)
        bar.addWidget(self.forward)
        bar.addSpacing(12)
        bar.addWidget(self.find, 1)
        bar.addWidget(self.not_found)

        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(bar)
        column.addWidget(self.browser, 1)
        splitter = QSplitter()
        splitter.addWidget(self.pages)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([220, 780])
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        layout.addWidget(buttons)
        self.pages.setVisible(self.pages.count() > 0)
        if self.pages.count():
            self.pages.setCurrentRow(0)
        else:
            self.browser.show_page(None, remember=False)
        self._update_buttons()

    def show_page(self, name: str, fragment: str = "") -> None:
        """Show page ``name`` (``"gui.md"``) at heading ``fragment``."""
        if self.folder is not None and (self.folder / name).is_file():
            self.browser.show_page((self.folder / name).resolve(), fragment)
        self._update_buttons()

    def go_back(self) -> None:
        self.browser.go_back()
        self._update_buttons()

    def go_forward(self) -> None:
        self.browser.go_forward()
        self._update_buttons()

    def _page_chosen(self, current: QListWidgetItem | None, _previous: object) -> None:
        if current is None:
            return
        path = Path(current.data(PATH_ROLE)).resolve()
        if path != self.browser.page:
            self.browser.show_page(path)
        self._update_buttons()

    def _mark_page(self, path: str) -> None:
        resolved = Path(path).resolve() if path else None
        for row in range(self.pages.count()):
            item = self.pages.item(row)
            if resolved is not None and Path(item.data(PATH_ROLE)).resolve() == resolved:
                blocked = self.pages.blockSignals(True)
                self.pages.setCurrentRow(row)
                self.pages.blockSignals(blocked)
        self._update_buttons()

    def _update_buttons(self) -> None:
        self.back.setEnabled(bool(self.browser.back_stack))
        self.forward.setEnabled(bool(self.browser.forward_stack))

    def find_next(self, *, from_start: bool = False) -> bool:
        text = self.find.text()
        if not text:
            self.not_found.clear()
            return False
        if from_start:
            self.browser.moveCursor(QTextCursor.MoveOperation.Start)
        found = self.browser.find(text)
        if not found:  # wrap around
            self.browser.moveCursor(QTextCursor.MoveOperation.Start)
            found = self.browser.find(text, QTextDocument.FindFlag(0))
        self.not_found.setText("" if found else "not found")
        return found


def show_user_guide(parent: QWidget | None = None) -> UserGuideDialog:
    """Open the guide beside the window (one per window; raised when already open)."""
    existing = parent.findChild(UserGuideDialog, "userGuide") if parent is not None else None
    dialog = existing if isinstance(existing, UserGuideDialog) else UserGuideDialog(parent)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog
