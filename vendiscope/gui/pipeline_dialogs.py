"""Small options dialogs for the pipeline jobs (embed, gradients, score, near-duplicates).

Each dialog returns the keyword arguments of its task in :mod:`vendiscope.gui.tasks`; the
defaults are the CLI's, so clicking OK does what ``vendiscope embed PROJECT DATASET`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from vendiscope.core.store.vectors import VectorSetInfo

DEVICES = ("auto", "cpu", "cuda")
FIELDS = ("auto", "prompt", "response", "prompt+response", "text", "all")  # core.embedding.FIELDS


class OptionsDialog(QDialog):
    """A titled form with an explanation and OK/Cancel."""

    def __init__(self, title: str, intro: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(460)
        self.form = QFormLayout()
        intro_label = QLabel(intro)
        intro_label.setWordWrap(True)
        intro_label.setObjectName("hint")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Start")
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
            ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
            ok.setEnabled(needs.count() > 0)

    def options(self) -> dict[str, Any]:  # pragma: no cover - overridden
        return {}


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
    def __init__(self, dataset: str, parent: QWidget | None = None) -> None:
        super().__init__(
            f"Compute embeddings of {dataset}",
            "Sentence embeddings for every record, stored in the project as a vector set. "
            "Resumable: an interrupted job continues where it stopped. Records already embedded "
            "with the same model (in any dataset) are copied, not recomputed.",
            parent,
        )
        self.field = QComboBox()
        self.field.addItems(FIELDS)
        self.field.setToolTip("auto: prompt and response together when present, else text")
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
    def __init__(self, dataset: str, parent: QWidget | None = None) -> None:
        super().__init__(
            f"Compute gradient features of {dataset}",
            "Per-example gradients of a small proxy language model, projected to 1,024 "
            "dimensions: the features of G-Vendi. Slow on a CPU (expect minutes per thousand "
            "records); resumable.",
            parent,
        )
        self.mode = QComboBox()
        self.mode.addItems(["fast", "exact"])
        self.mode.setToolTip("fast: LoGra-style factored projections; exact: full gradients")
        self.model = QLineEdit()
        self.model.setPlaceholderText("bundled SmolLM2-135M-Instruct (offline)")
        self.device = _device_combo()
        self.batch = _batch_spin()
        self.add_rows(
            ("Mode:", self.mode),
            ("Proxy model:", self.model),
            ("Device:", self.device),
            ("Batch size:", self.batch),
        )

    def options(self) -> dict[str, Any]:
        params: dict[str, Any] = {"mode": self.mode.currentText()}
        if self.model.text().strip():
            params["model"] = self.model.text().strip()
        if self.device.currentText() != "auto":
            params["device"] = self.device.currentText()
        if self.batch.value():
            params["batch_size"] = self.batch.value()
        return {"params": params}


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
        self.metric = metric
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
            "metric": self.metric,
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
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(0.5, 1.0)
        self.threshold.setDecimals(3)
        self.threshold.setSingleStep(0.01)
        self.threshold.setValue(0.95)
        self.threshold.setToolTip(
            "0.98-1.0: copies differing in case or a word; 0.95: close rewordings; "
            "0.85-0.9: paraphrases (may join different requests on one template)"
        )
        self.k = QSpinBox()
        self.k.setRange(1, 200)
        self.k.setValue(20)
        self.overwrite = QCheckBox("Replace an existing subset of the same threshold")
        self.add_rows(
            ("Vector set:", self.vector_set),
            ("Threshold:", self.threshold),
            ("Neighbours (k):", self.k),
            ("", self.overwrite),
            needs=self.vector_set,
        )
        self.threshold.valueChanged.connect(self._threshold_changed)
        self._threshold_changed(self.threshold.value())

    def _threshold_changed(self, value: float) -> None:
        from vendiscope.core.neighbors import near_duplicate_subset_name

        exists = near_duplicate_subset_name(value) in self.subsets
        self.overwrite.setChecked(exists)
        self.overwrite.setEnabled(exists)

    def options(self) -> dict[str, Any]:
        return {
            "vector_set": self.vector_set.currentData(),
            "threshold": round(self.threshold.value(), 3),
            "k": self.k.value(),
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
        self.method = QComboBox()
        self.method.addItem("UMAP (neighbourhoods)", "umap")
        self.method.addItem("PCA (fast, linear)", "pca")
        self.neighbours = QSpinBox()
        self.neighbours.setRange(2, 200)
        self.neighbours.setValue(15)
        self.neighbours.setToolTip("UMAP: how many neighbours shape each point (local vs global)")
        self.min_dist = QDoubleSpinBox()
        self.min_dist.setRange(0.0, 0.99)
        self.min_dist.setSingleStep(0.05)
        self.min_dist.setValue(0.1)
        self.min_dist.setToolTip("UMAP: how tightly points may pack (0 = tight clumps)")
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.add_rows(
            ("Vector set:", self.vector_set),
            ("Method:", self.method),
            ("Neighbours:", self.neighbours),
            ("Minimum distance:", self.min_dist),
            ("Seed:", self.seed),
            needs=self.vector_set,
        )
        self.method.currentIndexChanged.connect(self._method_changed)

    def _method_changed(self) -> None:
        umap = self.method.currentData() == "umap"
        self.neighbours.setEnabled(umap)
        self.min_dist.setEnabled(umap)

    def options(self) -> dict[str, Any]:
        return {
            "vector_set": self.vector_set.currentData(),
            "method": self.method.currentData(),
            "n_neighbors": self.neighbours.value(),
            "min_dist": round(self.min_dist.value(), 4),
            "seed": self.seed.value(),
        }


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
        self.clusters = QSpinBox()
        self.clusters.setRange(0, 1_000_000)
        self.clusters.setSpecialValueText("automatic (records / 10)")
        self.clusters.setToolTip("k of k-means; the reference uses one cluster per 10 records")
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.add_rows(
            ("Vector set:", self.vector_set),
            ("Clusters:", self.clusters),
            ("Seed:", self.seed),
            needs=self.vector_set,
        )

    def options(self) -> dict[str, Any]:
        return {
            "vector_set": self.vector_set.currentData(),
            "n_clusters": self.clusters.value() or None,
            "seed": self.seed.value(),
        }
