"""User data is shown as text, never interpreted as markup.

Qt's labels, tooltips and message boxes guess (``Qt::AutoText``) whether a string is rich
text, and a record, a source, a dataset or subset name, a file name, or an error message
quoting one of them may look like HTML. A record holding ``<img src="...">`` made the app
load that local file. These tests build a real project whose names and records carry
markup, open it in the real window, and read what every label, tooltip and item tooltip
shows.

The probe is a real picture, 1,000 pixels tall: a label or tooltip that loads it grows that
tall, which the tests measure on the real widgets (and, for tooltips, on the real
``QToolTip``). Markup that loads nothing (bold, a link) is caught from the text and the
format: data markup must never reach a widget that interprets it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6 import QtGui
from PySide6.QtCore import QModelIndex, QPoint, QPointF, Qt
from PySide6.QtGui import QAction, QColor, QImage
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QGraphicsTextItem,
    QGraphicsView,
    QLabel,
    QTabWidget,
    QToolTip,
    QWidget,
)

from tests.gui.conftest import make_project, open_project

PROBE_HEIGHT = 1000
TELLTALES = ("<img src=", "<b>bold</b>", "<i>src</i>", "<a href=")
"""Markup only the data holds (our own markup never contains these)."""
ESCAPED = ("&lt;img src=", "&lt;b&gt;bold&lt;/b&gt;", "&lt;i&gt;src&lt;/i&gt;", "&lt;a href=")


class Hostile:
    """The strings the project is made of: every one carries markup."""

    def __init__(self, probe: Path) -> None:
        image = f'<img src="{probe}">'
        self.probe = probe
        self.markup = f'{image}<b>bold</b><a href="file:///etc/passwd">x</a>'
        self.dataset = f"<b>bold</b>{image} data"
        self.sources = ["<i>src</i>", f"{image}<i>src</i> two"]
        self.subset = f"{image}<b>bold</b> picks"
        self.vectors = "gradients/<b>bold</b>"


@pytest.fixture
def probe(tmp_path: Path) -> Path:
    path = tmp_path / "vendiscope-probe.png"
    image = QImage(8, PROBE_HEIGHT, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    assert image.save(str(path))
    return path


@pytest.fixture
def hostile(probe: Path) -> Hostile:
    return Hostile(probe)


@pytest.fixture
def hostile_project(tmp_path: Path, hostile: Hostile) -> Path:
    """60 records with markup everywhere, and the whole analysis made by the core: gradient
    features (a set named with markup), a PCA map, clusters, G-Vendi with a per-record
    score, and a greedy-Vendi selection saved as a subset named with markup."""
    from tests.core._planted import planted_vectors, write_set
    from vendiscope.core.clusters.jobs import cluster_dataset
    from vendiscope.core.maps.jobs import map_dataset
    from vendiscope.core.metrics.scoring import score_dataset
    from vendiscope.core.selection.job import select_dataset
    from vendiscope.core.store.project import Project

    rows = [
        {
            "id": f'<a href="file:///etc/passwd">{i}</a>',
            "prompt": f"{hostile.markup} prompt {i}",
            "response": f"{hostile.markup} answer {i}",
            "source": hostile.sources[i % 2],
            "label": "<b>bold</b> label",
        }
        for i in range(60)
    ]
    path = make_project(tmp_path / "hostile.vscope", rows, name=hostile.dataset)
    vectors, _ = planted_vectors((20, 15, 10, 8, 7), dim=16)
    with Project.open(path) as project:
        name = hostile.dataset
        write_set(project, name, hostile.vectors, vectors)
        map_dataset(project, name, method="pca")
        cluster_dataset(project, name, n_clusters=4)
        score_dataset(project, name, metric="gvendi", params={"per_record": "leverage"})
        select_dataset(project, name, method="greedy-vendi", k=6, name=hostile.subset)
        project.wal_checkpoint()
    return path


# ----------------------------------------------------------------------------- what Qt shows
def interprets(text: str, text_format: Qt.TextFormat) -> bool:
    """Whether a widget with ``text_format`` shows ``text`` as markup (Qt's own rule)."""
    if text_format == Qt.TextFormat.PlainText:
        return False
    if text_format in (Qt.TextFormat.RichText, Qt.TextFormat.MarkdownText):
        return True
    return QtGui.Qt.mightBeRichText(text)


def carries_data(text: str) -> bool:
    return any(t in text for t in (*TELLTALES, *ESCAPED))


def _tooltip_height(text: str) -> int:
    """The height of the real tooltip showing ``text``."""
    QToolTip.showText(QPoint(0, 0), text)
    tips = [
        w
        for w in QApplication.topLevelWidgets()
        if w.objectName() == "qtooltip_label" and w.isVisible() and w.text() == text
    ]
    assert tips, "the tooltip did not show"
    return tips[0].sizeHint().height()


class Seen:
    """What the widgets show, checked as it is read."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.labels = 0  # labels showing data
        self.tips = 0  # tooltips showing data
        self._tips_checked: set[str] = set()

    def label(self, where: str, label: QLabel) -> None:
        text = label.text()
        if label.sizeHint().height() >= PROBE_HEIGHT:
            self.problems.append(f"{where} loads the probe image: {text!r}")
        if not text or not carries_data(text):
            return
        self.labels += 1
        self._markup(where, text, label.textFormat())

    def tooltip(self, where: str, text: Any) -> None:
        if not isinstance(text, str) or not text or not carries_data(text):
            return
        self.tips += 1
        if text in self._tips_checked:
            return
        self._tips_checked.add(text)
        if _tooltip_height(text) >= PROBE_HEIGHT:
            self.problems.append(f"{where}: its tooltip loads the probe image: {text!r}")
        self._markup(where, text, Qt.TextFormat.AutoText)

    def _markup(self, where: str, text: str, text_format: Qt.TextFormat) -> None:
        if interprets(text, text_format):
            raw = [t for t in TELLTALES if t in text]
            if raw:
                self.problems.append(f"{where} interprets the data's markup {raw}: {text!r}")

    def text_item(self, where: str, item: QGraphicsTextItem) -> None:
        """A chart's axis label (pyqtgraph draws it as HTML): the data's markup as text."""
        if item.boundingRect().height() >= PROBE_HEIGHT:
            self.problems.append(f"{where} loads the probe image: {item.toHtml()!r}")
        shown = item.toPlainText()
        if ("bold" in shown or "src" in shown) and not any(t in shown for t in TELLTALES):
            self.problems.append(f"{where} interprets the data's markup: shows {shown!r}")

    def widget(self, root: QWidget) -> None:
        """Every label, tooltip, tab tooltip, action tooltip and item tooltip under ``root``."""
        widgets = [root, *root.findChildren(QWidget)]
        for widget in widgets:
            name = f"{widget.metaObject().className()} {widget.objectName()!r}"
            if isinstance(widget, QLabel):
                self.label(f"label {name}", widget)
            self.tooltip(f"widget {name}", widget.toolTip())
            if isinstance(widget, QTabWidget):
                for index in range(widget.count()):
                    self.tooltip(f"tab {widget.tabText(index)!r}", widget.tabToolTip(index))
            if isinstance(widget, QAbstractItemView) and widget.model() is not None:
                self.model(f"view {name}", widget.model())
            if isinstance(widget, QGraphicsView) and widget.scene() is not None:
                for item in widget.scene().items():
                    if isinstance(item, QGraphicsTextItem):
                        self.text_item(f"text item in {name}", item)
        for action in root.findChildren(QAction):
            self.tooltip(f"action {action.text()!r}", action.toolTip())

    def model(self, where: str, model: Any) -> None:
        tip = Qt.ItemDataRole.ToolTipRole
        for orientation, count in (
            (Qt.Orientation.Horizontal, _columns(model, QModelIndex())),
            (Qt.Orientation.Vertical, model.rowCount(QModelIndex())),
        ):
            for section in range(min(count, 300)):
                shown = model.headerData(section, orientation, tip)
                self.tooltip(f"{where} header {section}", shown)
        for index in _indexes(model):
            self.tooltip(f"{where} item ({index.row()}, {index.column()})", index.data(tip))

    def check(self) -> None:
        QToolTip.hideText()
        assert not self.problems, "\n".join(sorted(set(self.problems)))


def _columns(model: Any, parent: QModelIndex) -> int:
    try:
        return model.columnCount(parent)
    except TypeError:  # a list model: one column (PySide keeps its columnCount private)
        return 1


def _indexes(model: Any, parent: QModelIndex | None = None, depth: int = 0) -> Iterator[Any]:
    parent = parent or QModelIndex()
    for row in range(min(model.rowCount(parent), 300)):
        for column in range(_columns(model, parent)):
            yield model.index(row, column, parent)
        first = model.index(row, 0, parent)
        if depth < 6 and model.rowCount(first) > 0:
            yield from _indexes(model, first, depth + 1)


# ----------------------------------------------------------------------------- the probe
def test_the_probe_sees_what_qt_would_load(qtbot, hostile: Hostile) -> None:
    """The checks are not vacuous: an unprotected label and tooltip do load the picture."""
    unprotected = QLabel(f"Diversity of “{hostile.dataset}”")
    qtbot.addWidget(unprotected)
    seen = Seen()
    seen.label("unprotected label", unprotected)
    seen.tooltip("unprotected tooltip", f"{hostile.dataset}: 60 records\nmore")
    assert len(seen.problems) == 4  # each loads the picture and interprets the bold
    assert all("probe image" in p or "interprets" in p for p in seen.problems)

    protected = QLabel(unprotected.text())
    qtbot.addWidget(protected)
    protected.setTextFormat(Qt.TextFormat.PlainText)
    seen = Seen()
    seen.label("protected label", protected)
    assert not seen.problems and seen.labels == 1
    QToolTip.hideText()


# ----------------------------------------------------------------------------- the window
def test_every_view_shows_the_data_s_markup_as_text(
    qtbot, window, hostile_project: Path, hostile: Hostile
) -> None:
    from vendiscope.core.store.project import Project

    open_project(qtbot, window, hostile_project)
    name = hostile.dataset
    window.show_story(name)  # records, dashboard, map and selection workbench
    records = window.tabs.find_view("records", name)
    dashboard = window.tabs.find_view("dashboard", name)
    map_view = window.tabs.find_view("map", name)
    workbench = window.tabs.find_view("selection", name)
    qtbot.waitUntil(
        lambda: (
            dashboard.summary is not None
            and map_view.map is not None
            and map_view.colouring is not None
            and workbench.state is not None
            and bool(records.model.scores)
            and records.source_combo.count() > 2
        ),
        timeout=30_000,
    )
    seen = Seen()

    window.tabs.setCurrentWidget(records)
    assert records.select_position(1)  # the detail pane shows the record (and the map follows)
    assert records.detail.prompt.toPlainText() == f"{hostile.markup} prompt 1"
    assert map_view.detail.record is not None and map_view.detail.record.seq == 1

    window.tabs.setCurrentWidget(map_view)
    x, y = map_view.map.coords[1]
    assert map_view.canvas.hover_at(QPointF(float(x), float(y))) == 1
    assert "Record 1" in map_view.canvas.tooltip_text
    seen.tooltip("the map's hover tooltip", map_view.canvas.tooltip_text)
    assert map_view.set_colour("subset", hostile.subset)
    qtbot.waitUntil(lambda: map_view.colouring.by == "subset", timeout=15_000)
    assert hostile.subset in map_view.legend_title.text()
    seen.widget(window)
    assert map_view.set_colour("source")
    qtbot.waitUntil(lambda: map_view.colouring.by == "source", timeout=15_000)
    assert set(hostile.sources) <= set(map_view.colouring.names)

    window.tabs.setCurrentWidget(workbench)
    with Project.open(hostile_project) as project:
        run = next(r for r in project.runs(name) if r.kind == "selection")
    assert workbench.select_run(run.id)
    workbench.save_subset()  # asks the new name, quoting the subset's
    qtbot.waitUntil(lambda: workbench.findChild(QWidget, "saveSubsetDialog") is not None)

    window.tabs.setCurrentWidget(dashboard)
    seen.widget(window)
    seen.check()
    assert seen.labels >= 10 and seen.tips >= 10  # the data was on show, as text


def test_view_plugins_show_the_data_s_markup_as_text(
    qtbot, window, hostile_project: Path, hostile: Hostile
) -> None:
    open_project(qtbot, window, hostile_project)
    seen = Seen()
    for view in ("composition", "map"):  # bars named by source; a scatter of records
        tab = window.plugin_views.open(view, hostile.dataset, params={}, ask=False)
        assert tab is not None
        qtbot.waitUntil(lambda t=tab: t.chart is not None or t.error is not None, timeout=30_000)
        assert tab.error is None, tab.error
        renderer = tab.renderer
        if tab.chart["kind"] == "scatter":
            cloud = renderer.canvas.cloud
            assert renderer.canvas.hover_at(QPointF(float(cloud.x[0]), float(cloud.y[0]))) == 0
            assert renderer.canvas.tooltip_text
            seen.tooltip(f"{view}: the hover tooltip", renderer.canvas.tooltip_text)
        else:
            plot = renderer.plot.getPlotItem()
            qtbot.wait(50)  # laid out: the view has its range
            first = tab.chart["series"][0]  # its first bar: left of category 0, half its height
            x = -0.4 + 0.4 / len(tab.chart["series"])
            centre = plot.getViewBox().mapViewToScene(QPointF(x, first["y"][0] / 2))
            renderer.plot.scene().sigMouseMoved.emit(centre)  # hovering the first bar
            assert "src</i>: " in renderer.tooltip_text  # the source (shown as text: see below)
            seen.tooltip(f"{view}: the hover tooltip", renderer.tooltip_text)
    seen.widget(window)
    seen.check()
    assert seen.labels >= 2 and seen.tips >= 4


def test_charts_show_the_data_s_markup_as_text(qtbot, hostile: Hostile) -> None:
    """Any chart description (from a plugin, from data): title, axis labels, series names,
    categories and hover tooltips."""
    from vendiscope.gui.view_host.chart_renderer import ChartRenderer

    renderer = ChartRenderer()
    qtbot.addWidget(renderer)
    renderer.resize(900, 600)
    renderer.show()
    qtbot.waitExposed(renderer)
    names = [*hostile.sources, hostile.dataset]
    bars = {
        "kind": "bar", "title": f"Bars of {hostile.dataset}", "x_label": hostile.sources[1],
        "y_label": hostile.markup,
        "series": [
            {"name": hostile.subset, "x": names, "y": [3.0, 2.0, 1.0],
             "label": [hostile.markup] * 3},
            {"name": hostile.sources[0], "x": names, "y": [1.0, 2.0, 3.0]},
        ],
        "version": 1,
    }  # fmt: skip
    seen = Seen()
    renderer.set_chart(bars)
    plot = renderer.plot.getPlotItem()
    for axis in ("bottom", "left"):
        seen.text_item(f"the {axis} axis label", plot.getAxis(axis).label)
    assert hostile.markup in plot.getAxis("left").label.toPlainText()
    qtbot.wait(50)  # laid out: the view has its range
    renderer.plot.scene().sigMouseMoved.emit(plot.getViewBox().mapViewToScene(QPointF(-0.2, 1.0)))
    assert "&lt;b&gt;bold&lt;/b&gt; picks" in renderer.tooltip_text  # the series' name
    seen.tooltip("a bar's hover tooltip", renderer.tooltip_text)
    seen.widget(renderer)

    scatter = {
        "kind": "scatter", "title": hostile.markup, "x_label": hostile.subset,
        "y_label": hostile.sources[0],
        "series": [{"name": hostile.subset, "x": [0.0, 1.0], "y": [0.0, 1.0],
                    "label": [hostile.markup, hostile.sources[1]],
                    "category": hostile.sources}],
        "version": 1,
    }  # fmt: skip
    renderer.set_chart(scatter)
    for axis in ("bottom", "left"):
        seen.text_item(f"the scatter's {axis} axis label", renderer.canvas.plot.getAxis(axis).label)
    assert renderer.canvas.hover_at(QPointF(0.0, 0.0)) == 0
    assert "&lt;img" in renderer.canvas.tooltip_text  # the label, escaped
    seen.tooltip("a point's hover tooltip", renderer.canvas.tooltip_text)
    seen.widget(renderer)
    seen.check()
    assert seen.labels >= 1 and seen.tips >= 3


def test_the_import_dialog_shows_file_names_and_rows_as_text(
    qtbot, window, tmp_path: Path, hostile: Hostile
) -> None:
    from tests.conftest import write_jsonl

    rows = [{"prompt": f"{hostile.markup} {i}", "response": hostile.markup,
             "source": hostile.sources[i % 2]} for i in range(5)]  # fmt: skip
    data = write_jsonl(tmp_path / "<img src=x><i>src<i> data.jsonl", rows)  # names: no '/'
    more = write_jsonl(tmp_path / "<img src=y> more.jsonl", rows)
    project = make_project(tmp_path / "small.vscope", [{"text": "one"}], name="one")
    open_project(qtbot, window, project)
    dialog = window.files.import_data([str(data)])
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.preview_panel.preview is not None, timeout=15_000)
    seen = Seen()
    seen.widget(dialog)  # the preview: the detected format and layout, the rows, the paths
    dialog.add_files([str(more)])
    assert more.name in dialog.message.text()  # "Reading the first rows of ..." for now
    seen.widget(dialog)
    dialog.reject()
    seen.check()
    assert seen.labels >= 1 and seen.tips >= 1


def test_dialogs_quoting_names_show_them_as_text(qtbot, hostile_project, hostile) -> None:
    from vendiscope.core.store.project import Project
    from vendiscope.gui.dialogs.error_dialog import ErrorDialog
    from vendiscope.gui.project.run_details import RunDetailsDialog
    from vendiscope.gui.widgets.text import message_box

    with Project.open(hostile_project) as project:
        runs = project.runs(hostile.dataset)
    seen = Seen()
    for run in runs:
        dialog = RunDetailsDialog(run)
        qtbot.addWidget(dialog)
        seen.widget(dialog)
    box = message_box(None, "Quit", f"1 job is still running:\n• Select 6 of {hostile.dataset}")
    qtbot.addWidget(box)
    first_line = message_box(None, "Quit", f"Stop {hostile.dataset}?")
    qtbot.addWidget(first_line)
    error = ErrorDialog(f"Import {hostile.subset} failed", f"dataset '{hostile.dataset}' failed")
    qtbot.addWidget(error)
    for widget in (box, first_line, error):
        seen.widget(widget)
    seen.check()
    assert seen.labels >= 4


# ----------------------------------------------------------------------------- the rule
GUI = Path(__file__).parents[2] / "vendiscope" / "gui"
PENDING: set[str] = set()
"""Modules still making their own labels (being changed elsewhere): listed only while they do."""
STATIC_BOXES = {"question", "information", "warning", "critical"}


def _own_text_widgets(path: Path) -> list[str]:
    """Where ``path`` makes a label or a message box itself instead of through
    :mod:`vendiscope.gui.widgets.text`, or sets HTML or Markdown."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "QLabel":
            found.append(f"{path.name}:{node.lineno}: QLabel(...) (use plain_label or rich_label)")
        elif isinstance(func, ast.Attribute):
            owner = func.value.id if isinstance(func.value, ast.Name) else ""
            if owner == "QMessageBox" and func.attr in STATIC_BOXES:
                found.append(f"{path.name}:{node.lineno}: QMessageBox.{func.attr} (use ask)")
            if func.attr in ("setHtml", "setMarkdown") and path.name != "user_guide.py":
                found.append(f"{path.name}:{node.lineno}: {func.attr} (data must be escaped)")
    return found


def test_labels_and_message_boxes_are_made_through_the_text_helpers() -> None:
    modules = [p for p in sorted(GUI.glob("*.py")) if p.name not in {"text.py", *PENDING}]
    found = [problem for path in modules for problem in _own_text_widgets(path)]
    assert not found, "\n".join(found)
    assert all(_own_text_widgets(GUI / name) for name in PENDING), "fixed: drop it from PENDING"
