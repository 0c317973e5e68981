"""Small options dialogs for the pipeline jobs (embed, gradients, score, near-duplicates).

Each dialog returns the keyword arguments of its task in :mod:`vendiscope.gui.jobs.tasks`; the
defaults are the CLI's, so clicking OK does what ``vendiscope embed PROJECT DATASET`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.clusters.options import ClusterOptions
from vendiscope.core.maps.options import MapOptions
from vendiscope.core.neighbors.options import NearDuplicateOptions
from vendiscope.core.plugin_host.options import OperationOptions
from vendiscope.core.vectors.options import EmbedOptions, GradientOptions
from vendiscope.gui.widgets.param_form import ParamForm
from vendiscope.gui.widgets.text import plain_label, plain_tip

if TYPE_CHECKING:
    from vendiscope.core.store.vectors import VectorSetInfo

DEVICES = ("auto", "cpu", "cuda")


class OptionsDialog(QDialog):
    """A titled form with an explanation and OK/Cancel."""

    def __init__(self, title: str, intro: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(460)
        self.form = QFormLayout()
        intro_label = plain_label(intro)
        intro_label.setWordWrap(True)
        intro_label.setObjectName("hint")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Start")
        self.needs: QComboBox | None = None
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro_label)
        layout.addLayout(self.form)
        layout.addWidget(self.buttons)

    def add_rows(self, *rows: tuple[str, QWidget], needs: QComboBox | None = None) -> None:
        """Add labelled fields; with ``needs``, Start stays disabled while it offers nothing."""
        for label, widget in rows:
            self.form.addRow(label, widget)
        if needs is not None:
            self.needs = needs
            ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
            ok.setEnabled(needs.count() > 0)

    def add_options(
        self, options: type[OperationOptions], *names: str, vector_set: QComboBox | None = None
    ) -> ParamForm:
        """A form for the operation's options (``names``, default all of them), built from the
        one declaration of :class:`OperationOptions` as a plugin's parameter form is: default,
        range, unit and help come from there; ``vector_set`` leads it. Start stays disabled
        while the vector set offers nothing or a value is wrong, and the problem is shown
        under the form."""
        specs = [s for s in options.specs() if not names or s.name in names]
        leading = [] if vector_set is None else [(plain_label("Vector set:"), vector_set, None)]
        form = ParamForm(specs, self, leading=leading)
        self.form.addRow(form)
        if vector_set is not None:
            self.add_rows(needs=vector_set)
        self.problem = plain_label("")
        self.problem.setObjectName("error")
        self.problem.setWordWrap(True)
        self.problem.hide()
        self.form.addRow(self.problem)
        form.changed.connect(lambda: self._check(form))
        return form

    def _check(self, form: ParamForm) -> None:
        problem = form.problem()
        self.problem.setText(problem or "")
        self.problem.setVisible(problem is not None)
        offered = self.needs is None or self.needs.count() > 0
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(problem is None and offered)

    def options(self) -> dict[str, Any]:  # pragma: no cover - overridden
        return {}


def _location_of(parent: QWidget | None) -> str | None:
    """The open project's location, from the window that opens the dialog."""
    document = getattr(parent, "document", None)
    return getattr(document, "location", None) if document is not None else None


class JobEstimateRow(QWidget):
    """How long the dialog's job should take, measured here on the dataset's own records.

    Says how to get a figure until **Measure** runs the job's model on 8 records (as a short job
    in a child process, like the pipeline's jobs: the window stays responsive) and replaces
    it with ``about 9 minutes on this machine for 300 records (1.8 s per record, measured on
    8 records; ...)``. Changing an option shows the measurement of those options, if any.
    Closing the dialog cancels a measurement still running.
    """

    def __init__(
        self,
        dialog: OptionsDialog,
        step: str,
        dataset: str,
        location: str | None,
        rough: str,
        inputs: tuple[QWidget, ...],
    ) -> None:
        super().__init__(dialog)
        from PySide6.QtWidgets import QHBoxLayout, QPushButton

        self.dialog, self.step, self.dataset, self.location = dialog, step, dataset, location
        self.rough = rough
        self.job: Any = None
        self.label = plain_label(rough)
        self.label.setObjectName("hint")
        self.label.setWordWrap(True)
        self.button = QPushButton("Measure")
        self.button.setToolTip(
            "Time the model on 8 of this dataset's records here (loads the model: up to a "
            "minute on a CPU), then extrapolate to the whole dataset"
        )
        self.button.setEnabled(location is not None)
        self.button.clicked.connect(self.measure)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.button)
        dialog.form.addRow("Time:", self)
        for widget in inputs:
            for name in ("currentTextChanged", "textChanged", "valueChanged"):
                signal = getattr(widget, name, None)
                if signal is not None:
                    signal.connect(lambda *_: self.refresh())
                    break
        dialog.finished.connect(lambda _result: self.stop())
        self.refresh()

    def refresh(self) -> None:
        """Show the measurement of the current options, or the rough figure."""
        if self.job is not None:
            return
        from vendiscope.gui.jobs import estimates

        found = (
            estimates.remembered(self.location, self.dataset, self.step, self.dialog.options())
            if self.location is not None
            else None
        )
        self.label.setText(f"Estimate: {found}" if found else self.rough)

    def measure(self) -> None:
        from vendiscope.gui.jobs import estimates
        from vendiscope.gui.jobs.manager import start_now
        from vendiscope.gui.jobs.process import JOBS_IN_CHILD_PROCESS

        if self.location is None or self.job is not None:
            return
        options = self.dialog.options()
        self.label.setText("Measuring: loading the model, then timing 8 records…")
        self.button.setEnabled(False)
        self.job = start_now(
            f"Measuring {self.step} of {self.dataset}",
            estimates.measure,
            self.location,
            self.dataset,
            self.step,
            options,
            in_child_process=JOBS_IN_CHILD_PROCESS,
        )
        self._measured_options = options
        self.job.finished.connect(self._measured)  # a method: disconnected if the row goes

    def _measured(self, job: Any) -> None:
        from vendiscope.gui.dialogs.error_dialog import describe_error
        from vendiscope.gui.jobs import estimates
        from vendiscope.gui.jobs.manager import JobState

        self.job = None
        self.button.setEnabled(self.location is not None)
        if job.state == JobState.DONE:
            assert self.location is not None
            estimates.remember(
                self.location, self.dataset, self.step, self._measured_options, job.result
            )
            self.refresh()
        elif job.state == JobState.FAILED and job.error is not None:
            self.label.setText(f"Could not measure: {describe_error(job.error)}")
        else:
            self.label.setText(self.rough)

    def stop(self) -> None:
        if self.job is not None:
            self.job.cancel()


def _device_combo() -> QComboBox:
    combo = QComboBox()
    combo.addItems(DEVICES)
    combo.setToolTip("auto: CUDA when available (half precision), else CPU")
    return combo


def _batch_spin() -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(0, 4096)
    spin.setSpecialValueText("automatic (from free memory)")
    return spin


def _vector_combo(sets: list[VectorSetInfo], kind: str) -> QComboBox:
    combo = QComboBox()
    for found in reversed([s for s in sets if s.kind == kind and s.status == "complete"]):
        combo.addItem(f"{found.name} ({found.n_rows:,} x {found.dim})", found.name)
    return combo


class EmbedDialog(OptionsDialog):
    def __init__(
        self, dataset: str, parent: QWidget | None = None, *, location: str | None = None
    ) -> None:
        super().__init__(
            f"Compute embeddings of {dataset}",
            "Sentence embeddings for every record, stored in the project as a vector set. "
            "Resumable: an interrupted job continues where it stopped. Records already embedded "
            "with the same model (in any dataset) are copied, not recomputed.",
            parent,
        )
        field = EmbedOptions.spec("field")
        self.field = QComboBox()
        self.field.addItems([str(choice) for choice in field.choices])
        self.field.setCurrentText(field.default)
        self.field.setToolTip(plain_tip(field.help))
        self.model = QLineEdit()
        self.model.setPlaceholderText("bundled all-MiniLM-L6-v2 (offline)")
        self.device = _device_combo()
        self.batch = _batch_spin()
        self.name = QLineEdit()
        self.name.setPlaceholderText("sentence-transformers/FIELD")
        self.add_rows(
            ("Text to embed:", self.field),
            ("Model:", self.model),
            ("Device:", self.device),
            ("Batch size:", self.batch),
            ("Vector set name:", self.name),
        )
        self.estimate = JobEstimateRow(
            self,
            "embed",
            dataset,
            location or _location_of(parent),
            "How long this takes depends on the machine and the texts' length: Measure times "
            "it on 8 of your records here.",
            (self.field, self.model, self.device, self.batch, self.name),
        )

    def options(self) -> dict[str, Any]:
        params: dict[str, Any] = {}
        if self.model.text().strip():
            params["model"] = self.model.text().strip()
        if self.device.currentText() != "auto":
            params["device"] = self.device.currentText()
        if self.batch.value():
            params["batch_size"] = self.batch.value()
        return {
            "field": self.field.currentText(),
            "name": self.name.text().strip() or None,
            "params": params,
        }


class FeaturizeDialog(OptionsDialog):
    def __init__(
        self, dataset: str, parent: QWidget | None = None, *, location: str | None = None
    ) -> None:
        super().__init__(
            f"Compute gradient features of {dataset}",
            "Per-example gradients of a small proxy language model, projected to 1,024 "
            "dimensions: the features of G-Vendi. Resumable: an interrupted job continues "
            "where it stopped.",
            parent,
        )
        from vendiscope.core.gradients.presets import DESCRIPTIONS

        self.preset = QComboBox()
        for name, words in DESCRIPTIONS.items():
            self.preset.addItem(name, name)
            self.preset.setItemData(self.preset.count() - 1, words, Qt.ItemDataRole.ToolTipRole)
        self.preset.setToolTip(plain_tip(GradientOptions.spec("preset").help))
        mode = GradientOptions.spec("mode")
        self.mode = QComboBox()
        self.mode.addItems([str(choice) for choice in mode.choices])
        self.mode.setCurrentText(mode.default)
        self.mode.setToolTip(plain_tip(mode.help))
        self.model = QLineEdit()
        self.model.setPlaceholderText("bundled SmolLM2-135M-Instruct (offline)")
        self.device = _device_combo()
        self.batch = _batch_spin()
        self.add_rows(
            ("Setting:", self.preset),
            ("Mode:", self.mode),
            ("Proxy model:", self.model),
            ("Device:", self.device),
            ("Batch size:", self.batch),
        )
        self.estimate = JobEstimateRow(
            self,
            "featurize",
            dataset,
            location or _location_of(parent),
            "Slow on a CPU, much faster on a GPU: Measure times it on 8 of your records here "
            "and states the peak memory it expects.",
            (self.preset, self.mode, self.model, self.device, self.batch),
        )

    def options(self) -> dict[str, Any]:
        from vendiscope.core.gradients.presets import set_name, with_preset

        preset = self.preset.currentData()
        params: dict[str, Any] = with_preset(preset, {"mode": self.mode.currentText()})
        if self.model.text().strip():
            params["model"] = self.model.text().strip()
        if self.device.currentText() != "auto":
            params["device"] = self.device.currentText()
        if self.batch.value():
            params["batch_size"] = self.batch.value()
        name = set_name(None, preset, self.mode.currentText())
        return {"params": params, **({"name": name} if name else {})}


class ScoreDialog(OptionsDialog):
    def __init__(
        self, dataset: str, metric: str, sets: list[VectorSetInfo], parent: QWidget | None = None
    ) -> None:
        label = "G-Vendi" if metric == "gvendi" else "embedding-Vendi"
        super().__init__(
            f"Score {label} of {dataset}",
            f"The Vendi score of the dataset's {'gradient' if metric == 'gvendi' else 'embedding'}"
            " vectors: the effective number of distinct examples, overall and per source, with "
            "a per-record score you can sort the records by.",
            parent,
        )
        # not ``self.metric``: that would shadow QWidget.metric(), which Qt calls when it paints
        self.metric_name = metric
        self.vector_set = _vector_combo(sets, "gradient" if metric == "gvendi" else "embedding")
        self.q = QComboBox()
        self.q.addItems(["1", "0.5", "2", "inf"])
        self.q.setToolTip("Order q: 1 is the standard Vendi score; 0.5 weighs rare directions more")
        self.bootstrap = QSpinBox()
        self.bootstrap.setRange(0, 2000)
        self.bootstrap.setSpecialValueText("none")
        self.bootstrap.setToolTip("Bootstrap resamples for a confidence interval (each ~1 score)")
        self.per_record = QComboBox()
        self.per_record.addItems(["leverage", "contribution", "uniqueness", "none"])
        self.add_rows(
            ("Vector set:", self.vector_set),
            ("Order q:", self.q),
            ("Bootstrap:", self.bootstrap),
            ("Per-record score:", self.per_record),
            needs=self.vector_set,
        )

    def options(self) -> dict[str, Any]:
        q = self.q.currentText()
        per_record = self.per_record.currentText()
        params: dict[str, Any] = {
            "q": float("inf") if q == "inf" else float(q),
            "bootstrap": self.bootstrap.value(),
            "per_record": None if per_record == "none" else per_record,
        }
        return {
            "metric": self.metric_name,
            "vector_set": self.vector_set.currentData(),
            "params": params,
        }


class NearDuplicatesDialog(OptionsDialog):
    def __init__(
        self,
        dataset: str,
        sets: list[VectorSetInfo],
        subsets: list[str],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(
            f"Find near-duplicates in {dataset}",
            "Links each record to its nearest neighbours at or above the cosine threshold; "
            "linked records form groups. The lowest position of each group is kept, the others "
            "are saved as the subset near-duplicates@THRESHOLD.",
            parent,
        )
        self.subsets = set(subsets)
        self.vector_set = _vector_combo(sets, "embedding")
        self.params = self.add_options(
            NearDuplicateOptions, "threshold", "k", vector_set=self.vector_set
        )
        self.overwrite = QCheckBox("Replace an existing subset of the same threshold")
        self.add_rows(("", self.overwrite))
        self.params.changed.connect(self._threshold_changed)
        self._threshold_changed()

    def _threshold_changed(self) -> None:
        from vendiscope.core.neighbors.search import near_duplicate_subset_name

        exists = near_duplicate_subset_name(self.params.raw_value("threshold")) in self.subsets
        self.overwrite.setChecked(exists)
        self.overwrite.setEnabled(exists)

    def options(self) -> dict[str, Any]:
        return {
            "vector_set": self.vector_set.currentData(),
            **self.params.values(),
            "overwrite": self.overwrite.isChecked(),
        }


def _feature_combo(sets: list[VectorSetInfo], kinds: tuple[str, ...]) -> QComboBox:
    """Complete vector sets of ``kinds``, newest first, the first kind preferred."""
    combo = QComboBox()
    ranked = sorted(
        (s for s in sets if s.kind in kinds and s.status == "complete" and s.dim >= 2),
        key=lambda s: (kinds.index(s.kind), -s.id),
    )
    for found in ranked:
        combo.addItem(f"{found.name} ({found.kind}, {found.n_rows:,} x {found.dim})", found.name)
    return combo


class MapDialog(OptionsDialog):
    def __init__(
        self, dataset: str, sets: list[VectorSetInfo], parent: QWidget | None = None
    ) -> None:
        super().__init__(
            f"Compute the map of {dataset}",
            "A 2-D map of the records: similar records land near each other. UMAP keeps "
            "neighbourhoods (its first run compiles for about 30 s; large sets are fitted on a "
            "sample and the rest placed); PCA is instant but flattens clusters together.",
            parent,
        )
        self.vector_set = _feature_combo(sets, ("embedding", "gradient", "feature"))
        self.params = self.add_options(
            MapOptions, "method", "n_neighbors", "min_dist", "seed", vector_set=self.vector_set
        )
        self.method = self.params.fields["method"]
        self.params.changed.connect(self._method_changed)

    def _method_changed(self) -> None:
        umap = self.params.raw_value("method") == "umap"
        self.params.fields["n_neighbors"].setEnabled(umap)
        self.params.fields["min_dist"].setEnabled(umap)

    def options(self) -> dict[str, Any]:
        return {"vector_set": self.vector_set.currentData(), **self.params.values()}


class ClusterDialog(OptionsDialog):
    def __init__(
        self, dataset: str, sets: list[VectorSetInfo], parent: QWidget | None = None
    ) -> None:
        super().__init__(
            f"Find sparse clusters of {dataset}",
            "Spherical k-means on the normalised features (gradients by default, as in "
            "Prismatic Synthesis). Clusters smaller than the median are sparse: the "
            "under-represented kinds of data, shown on the dashboard and the map.",
            parent,
        )
        self.vector_set = _feature_combo(sets, ("gradient", "embedding", "feature"))
        self.params = self.add_options(ClusterOptions, vector_set=self.vector_set)

    def options(self) -> dict[str, Any]:
        return {"vector_set": self.vector_set.currentData(), **self.params.values()}
