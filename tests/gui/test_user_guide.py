"""Help > User guide: the bundled pages rendered in the app, links followed inside it."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QUrl

from tests.gui.conftest import screenshot
from vendiscope.gui.windows.main_window import MainWindow
from vendiscope.gui.windows.user_guide import (
    GUIDE_FOLDERS,
    GuideBrowser,
    UserGuideDialog,
    guide_folder,
    guide_pages,
    slug,
)

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_guide_is_package_data_with_one_source_of_truth() -> None:
    packaged = GUIDE_FOLDERS[0]
    assert packaged == ROOT / "vendiscope" / "resources" / "guide"
    assert packaged.resolve() == (ROOT / "docs").resolve()  # a link to docs/, not a copy
    for name in ("user-guide.md", "gui.md"):
        assert (packaged / name).read_text(encoding="utf-8").startswith("# ")
    package_data = (ROOT / "pyproject.toml").read_text().split("[tool.setuptools.package-data]")
    assert '"resources/**/*"' in package_data[1].split("\n[")[0]  # built as real files
    assert guide_folder() in GUIDE_FOLDERS
    titles = [title for title, _path in guide_pages()]
    assert titles[:2] == ["User guide", "The desktop app"]


def test_help_user_guide_opens_the_guide_in_the_app(qtbot, window: MainWindow) -> None:
    window.actions_.guide.trigger()  # F1
    dialog = window.findChild(UserGuideDialog, "userGuide")
    assert dialog is not None
    qtbot.waitExposed(dialog)
    browser = dialog.browser
    assert browser.page is not None and browser.page.name == "user-guide.md"
    assert "Importing" in browser.headings() and "Field mapping" in browser.headings()
    assert "vendiscope import" in browser.toPlainText()  # the page, rendered
    assert dialog.pages.item(1).text() == "The desktop app"
    screenshot(dialog, "user-guide")

    dialog.pages.setCurrentRow(1)
    assert browser.page.name == "gui.md" and "Views from plugins" in browser.headings()
    window.actions_.guide.trigger()  # again: the same window, raised
    assert window.findChildren(UserGuideDialog) == [dialog]


def test_links_between_pages_and_headings_stay_inside(qtbot, window: MainWindow) -> None:
    dialog = UserGuideDialog(window)
    qtbot.addWidget(dialog)
    dialog.resize(1000, 680)
    dialog.show()
    qtbot.waitExposed(dialog)
    browser = dialog.browser
    opened: list[QUrl] = []
    browser.open_external = opened.append

    browser.anchorClicked.emit(QUrl("plugins.md#parameters-and-forms"))  # a click on a link
    assert browser.page.name == "plugins.md"
    assert dialog.pages.currentItem().text() == "Writing plugins"
    assert browser.verticalScrollBar().value() > 0  # at the heading, not the top
    assert browser.textCursor().block().text() == "Parameters and forms"
    assert dialog.back.isEnabled()

    browser.anchorClicked.emit(QUrl("#testing-with-the-conformance-kit"))
    assert browser.textCursor().block().text() == "Testing with the conformance kit"

    dialog.go_back()
    dialog.go_back()
    assert browser.page.name == "user-guide.md" and dialog.forward.isEnabled()
    dialog.go_forward()
    assert browser.page.name == "plugins.md"

    browser.anchorClicked.emit(QUrl("https://github.com/facebookresearch/faiss"))
    assert [u.toString() for u in opened] == ["https://github.com/facebookresearch/faiss"]
    assert browser.page.name == "plugins.md"  # the guide stays where it was

    dialog.find.setText("conformance kit")
    assert dialog.find_next() and "conformance kit" in browser.textCursor().selectedText()


def test_every_link_of_the_guide_pages_leads_somewhere(qtbot) -> None:
    """Relative links name a page that exists and a heading it has (as GitHub names it)."""
    browser = GuideBrowser()
    qtbot.addWidget(browser)
    folder = guide_folder()
    assert folder is not None
    headings: dict[str, set[str]] = {}
    for _title, path in guide_pages(folder):
        browser.show_page(path)
        headings[path.name] = {slug(h) for h in browser.headings()}
    broken = []
    for name in ("user-guide.md", "gui.md"):
        for target in LINK.findall((folder / name).read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # a web link
            page, _, fragment = target.partition("#")
            page = page or name
            if page.endswith(".md") and page not in headings:
                broken.append(f"{name}: {target} (no such page)")
            elif fragment and page in headings and fragment not in headings[page]:
                broken.append(f"{name}: {target} (no such heading)")
    assert not broken, broken


def test_without_the_pages_a_short_guide_says_where_they_are(qtbot, tmp_path: Path) -> None:
    dialog = UserGuideDialog(folder=tmp_path)
    qtbot.addWidget(dialog)
    assert dialog.pages.count() == 0
    assert "not installed with this copy" in dialog.browser.toPlainText()
