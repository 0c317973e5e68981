"""The map view of a dataset: the stored 2-D projection, interactive, at any size.

Pan and zoom; hover a point to read its record; click one to select it (the Records tab
follows, and the map follows the Records tab); drag a rectangle or a lasso to save the
records inside as a subset; colour by cluster, sparse cluster, source, a per-record score, a
curation signal (a number as a scale, a flag as raised / not raised, a label by its values) or
subset membership. "Compute the map…" runs the map job when there is none (or again).

The tab shows at once, on a page saying the map is loading (with a busy bar); the plot
(pyqtgraph, slow to import the first time) is built just after, and the map, its choices and
its colouring are read on worker threads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.dialogs.error_dialog import describe_error
from vendiscope.gui.jobs import tasks
from vendiscope.gui.jobs.background import Loader
from vendiscope.gui.map.data import (
    Colouring,
    MapChoices,
    MapData,
    load_colouring,
    load_map,
    map_choices,
)
from vendiscope.gui.records.detail import RecordDetail
from vendiscope.gui.records.link import RecordCache, RecordLink, record_tooltip
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.text import make_plain, plain_label
from vendiscope.gui.windows.document import ProjectDocument
from vendiscope.gui.windows.tabs import register_view

if TYPE_CHECKING:  # the view's modules import numpy and pyqtgraph: not at start-up
    import numpy as np

    from vendiscope.gui.services import WindowServices

TOOL_HELP = {
    "pan": "Pan and zoom: drag to move, wheel to zoom, click a point to select its record (P)",
    "rect": "Rectangle: drag a box to save the records inside as a subset (R)",
    "lasso": "Lasso: draw around records to save them as a subset (L)",
}


class SubsetNameDialog(QInputDialog):
    """Asks the name of the subset a map selection is saved as."""

    def __init__(self, count: int, suggestion: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("subsetNameDialog")
        self.setWindowTitle("Save the selection as a subset")
        self.setLabelText(
            f"{count:,} record{'s' if count != 1 else ''} selected on the map. Subset name:"
        )
        make_plain(self)
        self.setTextValue(suggestion)
        self.setTextEchoMode(QLineEdit.EchoMode.Normal)
        self.setOkButtonText("Save subset")


class MapView(QWidget):
    """The map of one dataset, with its colouring, legend and the selected record."""

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str,
        *,
        link: RecordLink | None = None,
        window: WindowServices | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.dataset = dataset
        self.link = link
        self.window_ = window
        self.records = RecordCache(document, dataset)
        self.map: MapData | None = None
        self.choices: MapChoices | None = None
        self.colouring: Colouring | None = None
        self.colours: list = []
        self._pending_colour: tuple[str, str | None] | None = None
        self.last_subset_job: Any = None
        self.name_dialog: SubsetNameDialog | None = None
        self.plot_page: QWidget | None = None  # built just after the tab first shows

        self.empty = self._empty_page()
        self.loading = self._loading_page()
        self.pages = QStackedWidget()
        for page in (self.loading, self.empty):
            self.pages.addWidget(page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.pages)

        self._lod_timer = QTimer(self)
        self._lod_timer.setSingleShot(True)
        self._lod_timer.setInterval(60)
        self._lod_timer.timeout.connect(self._update_status)
        self.choice_loader = Loader(self)
        self.choice_loader.loaded.connect(self._choices_loaded)
        self.choice_loader.failed.connect(self._failed)
        self.map_loader = Loader(self)
        self.map_loader.loaded.connect(self._map_loaded)
        self.map_loader.failed.connect(self._failed)
        self.map_loader.busy_changed.connect(self._map_loading)
        self.colour_loader = Loader(self)
        self.colour_loader.loaded.connect(self._colouring_loaded)
        self.colour_loader.failed.connect(self._colour_failed)
        if link is not None:
            link.selected.connect(self._linked)
        document.changed.connect(self.reload)
        self.reload()
        QTimer.singleShot(0, self._build_plot)  # after the tab and its loading page show

    def _loading_page(self) -> QWidget:
        page = QWidget()
        page.setObjectName("mapLoading")
        layout = QVBoxLayout(page)
        layout.addStretch(1)
        self.loading_text = plain_label(f"Loading the map of “{self.dataset}”…")
        self.loading_text.setObjectName("hint")
        self.loading_text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.loading_text.setWordWrap(True)
        self.loading_bar = QProgressBar()
        self.loading_bar.setRange(0, 0)  # busy
        self.loading_bar.setTextVisible(False)
        self.loading_bar.setFixedWidth(280)
        layout.addWidget(self.loading_text)
        layout.addWidget(self.loading_bar, 0, Qt.AlignmentFlag.AlignCenter)
        layout.addStretch(2)
        return page

    def _map_loading(self, busy: bool) -> None:
        """Another map is being read: say so on the status line."""
        if busy and self.plot_page is not None and self.map is not None:
            self.status.setText("Loading the map…")

    def _build_plot(self) -> None:
        """The plot page: the tools, the canvas, the legend and the record beside it."""
        if self.plot_page is not None:
            return
        from vendiscope.gui.map.canvas import MapCanvas
        from vendiscope.gui.widgets.legend import CategoryLegend, ColorBar

        self.canvas = MapCanvas()
        self.canvas.tooltip = self._tooltip
        self.canvas.clicked.connect(self._point_clicked)
        self.canvas.region_selected.connect(self._region_selected)
        self.canvas.viewbox.sigRangeChanged.connect(lambda *_: self._lod_timer.start())

        self.tools = QButtonGroup(self)
        bar = QHBoxLayout()
        bar.setSpacing(4)
        for tool, (text, icon_name, key) in {
            "pan": ("Pan", "pan", "P"),
            "rect": ("Rectangle", "rect-select", "R"),
            "lasso": ("Lasso", "lasso", "L"),
        }.items():
            button = QToolButton()
            button.setObjectName(f"tool-{tool}")
            button.setIcon(icon(icon_name))
            button.setText(text)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.setCheckable(True)
            button.setShortcut(key)
            button.setToolTip(TOOL_HELP[tool])
            button.setProperty("tool", tool)
            button.setAutoRaise(True)
            self.tools.addButton(button)
            bar.addWidget(button)
            if tool == "pan":
                button.setChecked(True)
        self.tools.buttonClicked.connect(lambda b: self.set_tool(b.property("tool")))
        fit = QToolButton()
        fit.setIcon(icon("fit"))
        fit.setText("Fit")
        fit.setToolTip("Show every record")
        fit.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        fit.setAutoRaise(True)
        fit.clicked.connect(self.canvas.fit)
        bar.addWidget(fit)
        bar.addStretch(1)
        bar.addWidget(plain_label("Colour by:"))
        self.colour_combo = QComboBox()
        self.colour_combo.setObjectName("colourBy")
        self.colour_combo.setMinimumContentsLength(22)
        self.colour_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.colour_combo.currentIndexChanged.connect(self._colour_changed)
        bar.addWidget(self.colour_combo)
        self.map_combo = QComboBox()
        self.map_combo.setToolTip("Which stored map to draw (newest first)")
        self.map_combo.currentIndexChanged.connect(self._map_chosen)
        bar.addWidget(self.map_combo)
        self.clusters_button = self._action_button("Find clusters…", "clusters", "clusters")
        self.clusters_button.setToolTip("Cluster the records to colour the map by cluster")
        bar.addWidget(self.clusters_button)
        self.compute_button = self._action_button("Recompute map…", "map", "map")
        self.compute_button.setToolTip("Compute the map again (UMAP or PCA, another vector set)")
        bar.addWidget(self.compute_button)

        self.legend = CategoryLegend()
        self.legend.hidden_changed.connect(self.canvas.set_hidden)
        self.colour_bar = ColorBar()
        self.legend_stack = QStackedWidget()
        self.legend_stack.addWidget(self.legend)
        self.legend_stack.addWidget(self.colour_bar)
        self.legend_title = plain_label("Legend")
        self.legend_title.setObjectName("sectionTitle")
        self.detail = RecordDetail()
        self.show_records = QPushButton(icon("records"), "Show in Records")
        self.show_records.setToolTip("Open the Records tab on this record")
        self.show_records.clicked.connect(self._open_in_records)
        self.show_records.setEnabled(False)
        side_top = QWidget()
        top_layout = QVBoxLayout(side_top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.legend_title)
        top_layout.addWidget(self.legend_stack, 1)
        side_bottom = QWidget()
        bottom_layout = QVBoxLayout(side_bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addWidget(self.detail, 1)
        bottom_layout.addWidget(self.show_records, 0, Qt.AlignmentFlag.AlignRight)
        side = QSplitter(Qt.Orientation.Vertical)
        side.addWidget(side_top)
        side.addWidget(side_bottom)
        side.setSizes([380, 260])
        side.setMinimumWidth(250)

        self.status = plain_label()
        self.status.setObjectName("hint")
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        plot_page = QWidget()
        plot_layout = QVBoxLayout(plot_page)
        plot_layout.setContentsMargins(0, 0, 0, 0)
        plot_layout.addLayout(bar)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.canvas)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([820, 300])
        plot_layout.addWidget(splitter, 1)
        plot_layout.addWidget(self.status)
        self.pages.addWidget(plot_page)
        self.plot_page = plot_page

    # ------------------------------------------------------------------ building
    def _action_button(self, text: str, icon_name: str, step: str) -> QToolButton:
        button = QToolButton()
        button.setIcon(icon(icon_name))
        button.setText(text)
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        button.setAutoRaise(True)
        button.clicked.connect(lambda: self.run_step(step))
        return button

    def _empty_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addStretch(1)
        title = plain_label(f"No map of “{self.dataset}” yet")
        title.setObjectName("pageTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_text = plain_label()
        self.empty_text.setObjectName("hint")
        self.empty_text.setWordWrap(True)
        self.empty_text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_button = QPushButton(icon("map"), "Compute the map…")
        self.empty_button.setObjectName("computeMap")
        self.empty_button.clicked.connect(self._empty_action)
        layout.addWidget(title)
        layout.addWidget(self.empty_text)
        layout.addWidget(self.empty_button, 0, Qt.AlignmentFlag.AlignCenter)
        layout.addStretch(2)
        return page

    def run_step(self, step: str) -> Any:
        if self.window_ is None:
            return None
        return self.window_.run_action(step, self.dataset)

    def _empty_action(self) -> None:
        has_features = bool(self.choices and self.choices.feature_sets)
        self.run_step("map" if has_features else "embed")

    # ------------------------------------------------------------------ loading
    def reload(self) -> None:
        if self.document.is_open and self.document.dataset(self.dataset) is not None:
            self.records.clear()
            self.choice_loader.run(map_choices, self.document.location, self.dataset)

    def _failed(self, error: BaseException, _details: str) -> None:
        self.loading_text.setText(f"Could not read the map: {describe_error(error)}")
        self.loading_bar.hide()
        self.pages.setCurrentWidget(self.loading)

    def _choices_loaded(self, choices: MapChoices) -> None:
        self._build_plot()
        self.choices = choices
        self.clusters_button.setVisible(choices.cluster_run is None and bool(choices.feature_sets))
        if not choices.maps:
            self.map = None
            features = bool(choices.feature_sets)
            self.empty_text.setText(
                "A map places similar records near each other, so clusters, outliers and gaps "
                "show at a glance. It is computed from the embeddings (or gradient features)."
                if features
                else "A map is computed from the dataset's sentence embeddings, which it does "
                "not have yet. Compute them first (about a minute per few thousand records "
                "on a CPU)."
            )
            self.empty_button.setText("Compute the map…" if features else "Compute embeddings…")
            self.empty_button.setIcon(icon("map" if features else "embed"))
            self.pages.setCurrentWidget(self.empty)
            return
        self._fill_maps(choices.maps)
        self._fill_colours(choices)
        wanted = self.map_combo.currentData()
        if self.map is None or self.map.name != wanted:
            self.map_loader.run(load_map, self.document.location, self.dataset, wanted)
        else:
            self._load_colouring()

    def _fill_maps(self, maps: list[str]) -> None:
        current = self.map.name if self.map is not None else None
        self.map_combo.blockSignals(True)
        self.map_combo.clear()
        for name in maps:
            self.map_combo.addItem(name, name)
        self.map_combo.setCurrentIndex(max(0, self.map_combo.findData(current)) if current else 0)
        self.map_combo.setVisible(len(maps) > 1)
        self.map_combo.blockSignals(False)

    def _fill_colours(self, choices: MapChoices) -> None:
        wanted = self._pending_colour or self.colour_combo.currentData()
        self._pending_colour = None
        combo = self.colour_combo
        combo.blockSignals(True)
        combo.clear()
        if choices.cluster_run is not None:
            combo.addItem(
                icon("clusters"), f"Cluster (run #{choices.cluster_run})", ("cluster", None)
            )
            combo.addItem(icon("clusters"), f"Sparse clusters ({choices.sparse_clusters})",
                          ("sparse", None))  # fmt: skip
        if choices.has_sources:
            combo.addItem(icon("dataset"), "Source", ("source", None))
        for name, title in choices.scores:
            combo.addItem(icon("score"), f"Score: {title}", ("score", name))
        for column, kind in choices.signals:
            combo.addItem(icon("chart"), f"Signal: {column} ({kind})", ("signal", column))
        for name, size in choices.subsets:
            combo.addItem(icon("subset"), f"Subset: {name} ({size:,})", ("subset", name))
        combo.addItem("Nothing (one colour)", ("none", None))
        from vendiscope.core.view_data.colouring import default_map_colour

        if wanted is None:  # the default every map shares (`vendiscope view map`, the report)
            by = default_map_colour(has_sources=choices.has_sources, clusters=choices.clusters)
            wanted = (by, None)
        index = _find(combo, wanted) if wanted is not None else -1
        combo.setCurrentIndex(index if index >= 0 else 0)
        combo.blockSignals(False)

    def _map_chosen(self) -> None:
        name = self.map_combo.currentData()
        if name is not None and (self.map is None or self.map.name != name):
            self.map_loader.run(load_map, self.document.location, self.dataset, name)

    def _map_loaded(self, data: MapData | None) -> None:
        self._build_plot()
        if data is None:
            self.reload()
            return
        first = self.map is None or self.map.name != data.name
        self.map = data
        self.canvas.set_points(data.coords[:, 0], data.coords[:, 1], fit=first)
        self.pages.setCurrentWidget(self.plot_page)
        current = self.link.current(self.dataset) if self.link is not None else None
        if current is not None:
            self._show_selected(current, reveal=False)
        self._load_colouring()

    # ------------------------------------------------------------------ colouring
    def set_colour(self, by: str, key: str | None = None) -> bool:
        """Colour by ``by`` (cluster, sparse, source, score, signal, subset, none) if offered."""
        self._build_plot()
        index = _find(self.colour_combo, (by, key))
        if index < 0:
            self._pending_colour = (by, key)
            return False
        if index == self.colour_combo.currentIndex():
            self._load_colouring()
        self.colour_combo.setCurrentIndex(index)
        return True

    def _colour_changed(self) -> None:
        self._load_colouring()

    def _load_colouring(self) -> None:
        choice = self.colour_combo.currentData()
        if choice is None or self.map is None:
            return
        by, key = choice
        self.colour_loader.run(load_colouring, self.document.location, self.dataset, by, key)

    def _colour_failed(self, error: BaseException, _details: str) -> None:
        self._build_plot()
        self.status.setText(f"Could not colour the map: {describe_error(error)}")

    def _colouring_loaded(self, colouring: Colouring) -> None:
        import numpy as np

        from vendiscope.gui.widgets import palettes

        per_record = colouring.codes if colouring.codes is not None else colouring.values
        if self.map is None or per_record is None or len(per_record) != self.canvas.count:
            return  # a late answer for another map
        self.colouring = colouring
        palette = self.palette()
        if colouring.categorical:
            names = colouring.names
            colours, background = _category_colours(palette, names, cycle=colouring.cycle)
            self.colours = colours
            self.canvas.set_colours(colouring.codes, palettes.argb(colours), background)
            order = sorted(range(len(names)), key=lambda c: (background[c], -colouring.counts[c]))
            if colouring.cycle:  # clusters: sparse (smallest) first, they are what to look at
                order = sorted(range(len(names)), key=lambda c: (colouring.counts[c], c))
            self.legend.set_categories(names, colouring.counts, colours, order=order)
            self.legend_title.setText(f"Legend: {colouring.title}")
            self.legend_stack.setCurrentWidget(self.legend)
        else:
            values = colouring.values
            steps = palettes.SCALE_STEPS
            span = colouring.high - colouring.low
            scaled = np.clip((values - colouring.low) / span, 0.0, 1.0)
            codes = np.where(
                np.isfinite(values), np.round(np.nan_to_num(scaled) * (steps - 1)), steps
            )
            colours = [*palettes.scale_colours(steps), palettes.background(palette)]
            background = np.zeros(steps + 1, dtype=bool)
            background[steps] = True
            self.colours = colours
            self.canvas.set_colours(codes.astype(np.int32), palettes.argb(colours), background)
            self.colour_bar.set_scale(
                colours[:steps], colouring.low, colouring.high, colouring.title
            )
            self.legend_title.setText("Colour scale")
            self.legend_stack.setCurrentWidget(self.colour_bar)
        self._update_status()

    # ------------------------------------------------------------------ interaction
    def set_tool(self, tool: str) -> None:
        self._build_plot()
        self.canvas.set_tool(tool)
        for button in self.tools.buttons():
            button.setChecked(button.property("tool") == tool)

    def _tooltip(self, index: int) -> str:
        record = self.records.get(index)
        return record_tooltip(record) if record is not None else f"Record {index:,}"

    def _point_clicked(self, index: int) -> None:
        if index < 0:
            return
        self._show_selected(index, reveal=False)
        if self.link is not None:
            self.link.select(self.dataset, index, self)

    def _linked(self, dataset: str, position: int, origin: object) -> None:
        if dataset == self.dataset and origin is not self and self.map is not None:
            self._show_selected(position, reveal=True)

    def _show_selected(self, position: int, *, reveal: bool) -> None:
        self.canvas.set_selected(position, reveal=reveal)
        self.detail.show_record(self.records.get(position))
        self.show_records.setEnabled(self.detail.record is not None)

    def _open_in_records(self) -> None:
        record = self.detail.record
        if self.window_ is None or record is None:
            return
        view = self.window_.open_view("records", self.dataset)
        if view is not None and hasattr(view, "select_position"):
            view.select_position(record.seq)

    def _region_selected(self, positions: np.ndarray) -> None:
        if not len(positions):
            self.status.setText("No records inside the selection (hidden categories are skipped).")
            return
        dialog = SubsetNameDialog(len(positions), self._suggest_name(), self)
        dialog.accepted.connect(lambda: self.save_subset(dialog.textValue().strip(), positions))
        dialog.finished.connect(dialog.deleteLater)
        self.name_dialog = dialog
        dialog.open()  # not exec(): the drag that selected is still being delivered

    def save_subset(self, name: str, positions: np.ndarray) -> Any:
        """Save ``positions`` as subset ``name`` (a job); the map then highlights it."""
        if self.window_ is None or not name:
            return None
        if any(name == taken for taken, _ in (self.choices.subsets if self.choices else [])):
            self.status.setText(f"A subset named '{name}' exists already: select again and "
                                "choose another name.")  # fmt: skip
            return None
        job = self.window_.jobs.submit(
            f"Save subset {name} of {self.dataset}",
            tasks.save_subset,
            self.document.location,
            self.dataset,
            name,
            [int(p) for p in positions],
            description=f"{len(positions):,} records selected on the map",
            kind="subset",
            dataset=self.dataset,
            in_thread=True,
        )
        self._pending_colour = ("subset", name)
        self.last_subset_job = job
        return job

    def _suggest_name(self) -> str:
        taken = {name for name, _ in (self.choices.subsets if self.choices else [])}
        number = 1
        while f"map-selection-{number}" in taken:
            number += 1
        return f"map-selection-{number}"

    def _update_status(self) -> None:
        if self.map is None:
            return
        data = self.map
        method = data.method.upper()
        made = f"{method} of {data.vector_set}" if data.vector_set else f"{method} map"
        parts = [f"{len(data.coords):,} records", made]
        if data.run_id is not None:
            parts[-1] += f" (run #{data.run_id})"
        if data.trustworthiness:
            parts.append(f"trustworthiness {data.trustworthiness:.2f}")
        stats = self.canvas.cloud.stats
        if stats.mode == "density":
            parts.append(f"density of {stats.visible:,} records in view (zoom in for points)")
        elif stats.mode:
            parts.append(f"{stats.visible:,} in view")
        self.status.setText(" · ".join(parts))
        self.status.setToolTip(
            "Trustworthiness (0-1): how well the map keeps each record's nearest neighbours "
            "from the full vectors. Above 0.9 is good."
        )


def _find(combo: QComboBox, data: object) -> int:
    """The index of the item whose data equals ``data`` (findData cannot compare tuples)."""
    for index in range(combo.count()):
        if combo.itemData(index) == data:
            return index
    return -1


def _category_colours(
    palette: QPalette, names: list[str], *, cycle: bool
) -> tuple[list, np.ndarray]:
    """A colour per category (background ones grey) and which categories are background."""
    import numpy as np

    from vendiscope.gui.widgets import palettes

    background = np.array([palettes.is_background(n) for n in names], dtype=bool)
    grey = palettes.background(palette)
    if len(names) == 2 and background[0] and not background[1]:  # a highlighted set
        return [grey, palettes.accent(palette)], background
    strong = palettes.categorical(palette, len(names))
    colours = []
    rank = 0  # distinct colours go to the foreground categories in order (clusters: by id)
    for code, behind in enumerate(background):
        if behind:
            colours.append(grey)
        else:
            colours.append(strong[code if cycle else rank])
            rank += 1
    return colours, background


def _factory(document: ProjectDocument, dataset: str, window: WindowServices | None) -> MapView:
    link = window.record_link if window is not None else None
    return MapView(document, dataset, link=link, window=window)


register_view(
    "map",
    "Map",
    _factory,
    icon="map",
    description="The 2-D map of a dataset: hover, select, colour by cluster, source, score",
)
