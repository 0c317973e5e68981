"""Number cards for the dashboard: a caption, a big value, a line of context, a tooltip.

Each card explains its number in its tooltip; when the number is missing it offers the
action that computes it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from vendiscope.gui.widgets.text import plain_label, plain_tip

HELP = {
    "gvendi": (
        "G-Vendi: the Vendi score of unit-normalised, randomly projected per-example gradients "
        "of a small proxy language model (Jung et al. 2025). It is the effective number of "
        "distinct examples as the model sees them while learning, and it predicted "
        "out-of-distribution performance far better than surface measures."
    ),
    "evendi": (
        "Embedding-Vendi: the Vendi score of sentence embeddings (all-MiniLM-L6-v2 by "
        "default): the effective number of distinct examples by meaning. The baseline "
        "G-Vendi beats at predicting generalisation; cheaper to compute."
    ),
    "share": (
        "Effective distinct examples divided by the number of records: 100% would mean every "
        "record points in its own direction; a low share means much of the data repeats the "
        "same few directions. Uses G-Vendi when available, else embedding-Vendi."
    ),
    "exact": (
        "Records whose prompt, response and text are identical (same content hash) to an "
        "earlier record. They add nothing but weight."
    ),
    "near": (
        "Records whose embedding has cosine similarity at or above the threshold to another "
        "record of their group (copies that differ in wording, case or spacing). The lowest "
        "position of each group is kept; the others are counted here and saved as a subset."
    ),
    "quality": (
        "Curation signals: per-record checks stored in the project — quality heuristics "
        "(empty, truncated or repetitive text), personal data and secrets, language, "
        "near-copies, benchmark leaks. The number is the records at least one flag raises; "
        "Clean up… saves the records the flags you choose do not raise as a subset (nothing "
        "is deleted)."
    ),
    "sparse": (
        "Sparse clusters (Prismatic Synthesis): the records are clustered by spherical k-means "
        "on their gradient features (or embeddings); clusters smaller than the median size are "
        "under-represented kinds of data: where more examples would add the most diversity."
    ),
}


CARD_HEIGHT = 156
"""Room for the caption, the value, two lines of context and two of the note."""


class Card(QFrame):
    """One number. ``set_value`` shows it; ``set_missing`` offers a compute button."""

    def __init__(self, key: str, caption: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key = key
        self.setObjectName("card")
        self.setToolTip(HELP.get(key, ""))
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(150)
        self.caption = plain_label(caption)
        self.caption.setObjectName("cardCaption")
        self.value = plain_label("—")
        self.value.setObjectName("cardValue")
        self.value.setAccessibleName(caption)
        self.context = plain_label()
        self.context.setObjectName("hint")
        self.context.setWordWrap(True)
        self.note = plain_label()  # a few words of verdict; its tooltip says it in full
        self.note.setObjectName("cardNote")
        self.note.setWordWrap(True)
        self.note.hide()
        self.button = QPushButton()
        self.button.hide()
        self._action: Callable[[], None] | None = None
        self.button.clicked.connect(self._clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(2)
        layout.addWidget(self.caption)
        layout.addWidget(self.value)
        layout.addWidget(self.context)
        layout.addWidget(self.note)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addStretch(1)
        self.setFixedHeight(CARD_HEIGHT)

    def set_value(
        self, value: str, context: str = "", tooltip: str = "", note: str = "", note_tip: str = ""
    ) -> None:
        """Show ``value`` with a line of ``context``; ``note`` is a short line below it
        (hidden when empty) whose tooltip is ``note_tip``."""
        self.value.setText(value)
        self.context.setText(context)
        self.note.setText(note)
        self.note.setToolTip(plain_tip(note_tip))
        self.note.setVisible(bool(note))
        self.button.hide()
        self._action = None
        self.setToolTip(plain_tip(HELP.get(self.key, "") + (f"\n\n{tooltip}" if tooltip else "")))

    def set_missing(
        self, context: str, button: str | None = None, action: Callable[[], None] | None = None
    ) -> None:
        self.value.setText("—")
        self.context.setText(context)
        self.note.setText("")
        self.note.hide()
        self._action = action
        self.button.setText(button or "")
        self.button.setVisible(button is not None and action is not None)
        self.setToolTip(HELP.get(self.key, ""))

    def _clicked(self) -> None:
        if self._action is not None:
            self._action()
