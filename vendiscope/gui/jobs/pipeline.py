"""The pipeline actions on a dataset: embed, gradients, score, near-duplicates, map, clusters.

:class:`PipelineActions` owns one QAction per step (for the menu, the toolbar and context
menus), opens the step's options dialog, and submits the task as a job. Views ask for a step
by name through :meth:`run` (the dashboard's "compute" buttons do).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QWidget

from vendiscope.gui.dialogs.pipeline_dialogs import (
    ClusterDialog,
    EmbedDialog,
    FeaturizeDialog,
    MapDialog,
    NearDuplicatesDialog,
    OptionsDialog,
    ScoreDialog,
)
from vendiscope.gui.jobs import tasks
from vendiscope.gui.jobs.manager import Job, JobManager
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.windows.document import ProjectDocument

STEPS = {
    # name: (menu text, icon, status tip, shortcut)
    "embed": (
        "Compute &embeddings…",
        "embed",
        "Sentence embeddings of the dataset",
        "Ctrl+Shift+E",
    ),
    "featurize": (
        "Compute &gradient features…",
        "gradients",
        "Proxy-LM gradient features (for G-Vendi)",
        "Ctrl+Shift+G",
    ),
    "score-gvendi": (
        "Score &G-Vendi…",
        "score",
        "G-Vendi over the gradient features",
        "Ctrl+Shift+V",
    ),
    "score-vendi": ("Score e&mbedding-Vendi…", "score", "Vendi score over the embeddings", ""),
    "near-duplicates": (
        "Find &near-duplicates…",
        "neardups",
        "Groups of near-identical records (over the embeddings)",
        "Ctrl+Shift+D",
    ),
    "map": ("Compute the &map…", "map", "A 2-D map of the records (UMAP or PCA)", "Ctrl+Shift+M"),
    "clusters": (
        "Find sparse &clusters…",
        "clusters",
        "Spherical k-means clusters; the under-represented (sparse) ones marked",
        "Ctrl+Shift+K",
    ),
}


class PipelineActions(QObject):
    """Pipeline steps on the window's current dataset."""

    job_submitted = Signal(object)

    def __init__(
        self,
        document: ProjectDocument,
        jobs: JobManager,
        current_dataset: Callable[[], str | None],
        parent_widget: QWidget,
    ) -> None:
        super().__init__(parent_widget)
        self.document = document
        self.jobs = jobs
        self.current_dataset = current_dataset
        self.parent_widget = parent_widget
        self.actions: dict[str, QAction] = {}
        for name, (text, icon_name, tip, shortcut) in STEPS.items():
            action = QAction(icon(icon_name), text, self)
            action.setStatusTip(tip)
            action.setToolTip(tip)
            if shortcut:
                action.setShortcut(QKeySequence(shortcut))
            action.triggered.connect(lambda _checked=False, n=name: self.run(n))
            self.actions[name] = action
        self.update_enabled()

    def update_enabled(self) -> None:
        enabled = self.document.writable and self.current_dataset() is not None
        for action in self.actions.values():
            action.setEnabled(enabled)

    # ------------------------------------------------------------------ running
    def dialog(self, name: str, dataset: str) -> OptionsDialog:
        """The options dialog of step ``name`` for ``dataset``."""
        from vendiscope.core.store import vectors

        project = self.document.project
        parent = self.parent_widget
        if name == "embed":
            return EmbedDialog(dataset, parent)
        if name == "featurize":
            return FeaturizeDialog(dataset, parent)
        sets = vectors.list_sets(project, dataset)
        if name in ("score-gvendi", "score-vendi"):
            return ScoreDialog(
                dataset, "gvendi" if name == "score-gvendi" else "vendi", sets, parent
            )
        if name == "map":
            return MapDialog(dataset, sets, parent)
        if name == "clusters":
            return ClusterDialog(dataset, sets, parent)
        subsets = [s.name for s in project.subsets(dataset)]
        return NearDuplicatesDialog(dataset, sets, subsets, parent)

    def run(self, name: str, dataset: str | None = None, *, ask: bool = True) -> Job | None:
        """Open step ``name``'s options (unless ``ask`` is False) and submit it as a job."""
        dataset = dataset or self.current_dataset()
        if dataset is None or not self.document.is_open:
            return None
        dialog = self.dialog(name, dataset)
        if ask and dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return self.submit(name, dataset, **dialog.options())

    def submit(self, step: str, dataset: str, /, **options: object) -> Job:
        """Submit ``step`` with its task's keyword ``options`` (no dialog)."""
        location = self.document.location
        title, func = {
            "embed": (f"Embeddings of {dataset}", tasks.embed),
            "featurize": (f"Gradient features of {dataset}", tasks.featurize),
            "score-gvendi": (f"G-Vendi of {dataset}", tasks.score),
            "score-vendi": (f"Embedding-Vendi of {dataset}", tasks.score),
            "near-duplicates": (f"Near-duplicates in {dataset}", tasks.near_duplicates),
            "map": (f"Map of {dataset}", tasks.compute_map),
            "clusters": (f"Clusters of {dataset}", tasks.cluster),
        }[step]
        if step.startswith("score-"):
            options.setdefault("metric", "gvendi" if step == "score-gvendi" else "vendi")
        job = self.jobs.submit(
            title,
            func,
            location,
            dataset,
            kind=step,
            dataset=dataset,
            **options,
        )
        self.job_submitted.emit(job)
        return job

    # ------------------------------------------------------------------ resuming
    def resume(self, dataset: str, vector_set: str) -> Job | None:
        """Resume an interrupted vector set with the settings it was started with.

        Submits the embed or featurize step that made it (see
        :func:`vendiscope.gui.jobs.estimates.resume_step`); None when the GUI cannot make it.
        """
        from vendiscope.core.store import vectors
        from vendiscope.gui.jobs.estimates import resume_step

        if not self.document.is_open:
            return None
        found = vectors.get_set(self.document.project, dataset, vector_set)
        step = resume_step(found)
        if step is None:
            return None
        name, options = step
        return self.submit(name, dataset, **options)

    def resume_action(self, node: object) -> QAction | None:
        """A "Resume" action for a project-tree node of an interrupted vector set, else None."""
        from vendiscope.core.store import vectors
        from vendiscope.gui.jobs.estimates import resume_step

        info = getattr(node, "payload", None)
        dataset = getattr(node, "dataset", None)
        if getattr(node, "kind", None) != "vector_set" or info is None or dataset is None:
            return None
        if not self.document.writable or resume_step(info) is None:
            return None
        if not vectors.set_state(self.document.project, info).resumable:
            return None
        action = QAction(icon("embed" if info.kind == "embedding" else "gradients"), "Resume", self)
        action.setStatusTip(f"Compute the missing rows of '{info.name}' with its own settings")
        action.triggered.connect(lambda _checked=False: self.resume(dataset, info.name))
        return action
