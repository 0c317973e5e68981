"""Typed contribution interfaces. A plugin subclasses one of these (from :mod:`vendiscope.api`).

Conventions (as in scikit-learn): every parameter is a keyword argument of ``__init__``
with a default and no logic, kept as an attribute of the same name; results are returned,
never kept as hidden state (calling a method twice gives the same result); inputs are never
modified. Bad input raises ``ValueError`` with a message naming the parameter or row.
Long-running methods receive a ``progress`` reporter and a ``cancel`` token, call
``progress.update(done, total)`` and ``cancel.raise_if_cancelled()`` between steps.
The conformance kit :mod:`vendiscope.testing` checks all of this.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.base.jobs import CancelToken, Progress


# --------------------------------------------------------------------------- importers
@dataclass(frozen=True)
class SourceRow:
    """One row read from a source.

    ``number`` is 1-based in the source's unit (line, row or file); ``position`` is how far
    the reader has got, in the unit of :attr:`SourceInfo.progress_unit` (bytes by default).
    """

    number: int
    data: dict[str, Any]
    position: int = 0


@dataclass(frozen=True)
class BadRow:
    """A row that could not be read; the import aborts on it unless told to skip bad rows."""

    number: int | None
    message: str
    field: str | None = None
    position: int = 0


@dataclass(frozen=True)
class SourceInfo:
    """What an importer knows about a source before reading it."""

    unit: str = "line"
    total: int | None = None
    progress_unit: str = "B"
    schema: dict[str, Any] | None = None
    columns: tuple[str, ...] = ()


class Importer(ABC):
    """Reads a file or folder into rows of plain Python values, streaming.

    Whole-source problems (missing path, empty or binary file) raise
    :class:`vendiscope.core.base.errors.InputError`; a bad row is yielded as :class:`BadRow`
    so the caller can abort or skip it.
    """

    @abstractmethod
    def inspect(self, path: Path) -> SourceInfo:
        """Cheap facts about the source (size for progress, schema when known)."""

    @abstractmethod
    def read(self, path: Path) -> Iterator[SourceRow | BadRow]:
        """Yield the rows in source order, without loading the whole source."""


# --------------------------------------------------------------------------- exporters
class Exporter(ABC):
    """Writes rows (dicts in the original schema) to a path the caller chose.

    The caller makes the write atomic: ``destination`` is a temporary path that is renamed
    into place only after :meth:`write` returns.
    """

    suffix: ClassVar[str] = ""
    is_directory: ClassVar[bool] = False

    @abstractmethod
    def write(
        self, rows: Iterable[dict[str, Any]], destination: Path, *, schema: dict[str, Any] | None
    ) -> int:
        """Write all rows and return how many were written."""


# --------------------------------------------------------------------------- vectors
class Embedder(ABC):
    """Maps texts to a fixed-size float matrix (one row per text)."""

    @abstractmethod
    def embed(self, texts: Sequence[str], *, progress: Progress, cancel: CancelToken) -> np.ndarray:
        """Return an ``(len(texts), dim)`` float32 array.

        A row depends only on its text (not on the other texts of the call), so chunks can be
        embedded separately and resumed. No texts give a ``(0, dim)`` array.
        """

    @property
    @abstractmethod
    def model_id(self) -> str:
        """An identifier of the model and its parameters, stored with the vectors."""

    @property
    @abstractmethod
    def dim(self) -> int:
        """The number of columns of :meth:`embed`'s result."""

    def count_truncated(self, texts: Sequence[str]) -> int:
        """How many of ``texts`` exceed the model's input limit and are truncated when embedded.

        The default returns 0 (unknown or no limit); embedders that know their limit override it.
        """
        return 0


@dataclass(frozen=True)
class ByProduct:
    """A signal a featurizer computes on the way to its vectors, e.g. each record's loss.

    The values are exactly those of the signal plugin ``signal`` created with ``params``: the
    featurizer job stores them as that signal's values (``signals/SIGNAL``), so the signal is
    not computed again.
    """

    signal: str
    params: dict[str, Any] = field(default_factory=dict)


class Featurizer(ABC):
    """Maps records (role -> text dicts) to feature vectors, e.g. projected gradients."""

    @property
    def by_product(self) -> ByProduct | None:
        """The signal :meth:`featurize_with_by_product` gives beside the vectors (default: none)."""
        return None

    def featurize_with_by_product(
        self,
        records: Sequence[dict[str, str | None]],
        *,
        progress: Progress,
        cancel: CancelToken,
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`featurize`'s rows and, row for row, the :attr:`by_product` signal's values.

        Called only when :attr:`by_product` is not ``None``.
        """
        raise NotImplementedError(f"{type(self).__name__} has no by-product")

    @abstractmethod
    def featurize(
        self,
        records: Sequence[dict[str, str | None]],
        *,
        progress: Progress,
        cancel: CancelToken,
    ) -> np.ndarray:
        """Return an ``(len(records), dim)`` float32 array.

        Each record maps roles (``prompt``, ``response``, ``text``, ...) to text or ``None``.
        A row depends only on its record; no records give a ``(0, dim)`` array.
        """

    @property
    @abstractmethod
    def dim(self) -> int:
        """The number of columns of :meth:`featurize`'s result."""

    @property
    @abstractmethod
    def model_id(self) -> str:
        """A stable id of everything that changes the vectors (model, mode, seed, ...).

        Stored with the vectors; two featurizers with the same id give the same vectors.
        """

    def describe(self) -> dict[str, Any]:
        """Plain facts about the features worth recording with a run (JSON-serialisable)."""
        return {}

    def params_for_rows(self, n_rows: int) -> dict[str, Any]:
        """Parameters to settle before a job over ``n_rows`` records (default: none).

        A featurizer whose settings depend on the data's size (e.g. an automatic projection
        dimension) returns them here; the job creates the featurizer again with them, so
        every chunk, worker and resumed run computes the same vectors.
        """
        return {}


# --------------------------------------------------------------------------- metrics
@dataclass
class MetricResult:
    """A metric's value, optional per-record scores, and any details worth keeping."""

    value: float
    per_record: np.ndarray | None = None
    details: dict[str, Any] = field(default_factory=dict)


class Metric(ABC):
    """Scores a set of vectors (rows are examples)."""

    @abstractmethod
    def compute(self, vectors: np.ndarray, *, quality: np.ndarray | None = None) -> MetricResult:
        """Compute the metric; must not modify ``vectors``.

        ``vectors`` is an ``(n, d)`` array, one row per record. ``quality`` is an optional
        non-negative weight per row (length ``n``) for metrics with a quality-weighted form
        (e.g. the quality-weighted Vendi score); a metric without one raises ``ValueError``
        when it is given, rather than ignoring it. Bad input raises ``ValueError`` naming
        the parameter (or row) at fault.
        """


# --------------------------------------------------------------------------- selectors
@dataclass
class Selection:
    """Chosen row indices in selection order, with each one's marginal gain."""

    indices: np.ndarray
    gains: np.ndarray | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class VectorSource:
    """A vector set too large to load whole: read it in chunks, or a few rows at a time.

    ``chunks()`` yields ``(first row, rows)`` in order, one bounded chunk at a time (a new
    pass each call); ``rows(positions)`` returns the rows at those positions, in that order.
    """

    n: int
    dim: int
    dtype: str
    chunks: Callable[[], Iterator[tuple[int, np.ndarray]]]
    rows: Callable[[Sequence[int]], np.ndarray]


class Selector(ABC):
    """Chooses ``k`` rows of a vector set under a budget.

    A selector that can also work on a vector set larger than memory subclasses
    :class:`StreamingSelector` instead.
    """

    @abstractmethod
    def select(
        self,
        vectors: np.ndarray,
        k: int,
        *,
        quality: np.ndarray | None = None,
        progress: Progress,
        cancel: CancelToken,
    ) -> Selection:
        """Choose ``k`` rows; return their indices (unique, in ``0..n-1``) in selection order.

        ``0 <= k <= n`` (``k = 0`` gives an empty selection); another ``k`` raises
        ``ValueError``. ``gains``, when given, holds each choice's marginal gain; ``details``
        anything worth recording (JSON-serialisable). A selector without a quality-weighted
        form raises ``ValueError`` when given ``quality``. Seeded selectors take a ``seed``
        parameter and give the same selection for the same seed.
        """


class StreamingSelector(Selector):
    """A selector that can also read its rows chunk by chunk (sets larger than memory).

    The selection job calls :meth:`select_streamed` when a vector set exceeds the memory
    budget (see :mod:`vendiscope.core.metrics.streaming`); it must pick what :meth:`select` picks
    from the same rows.
    """

    @abstractmethod
    def select_streamed(
        self,
        source: VectorSource,
        k: int,
        *,
        quality: np.ndarray | None = None,
        progress: Progress,
        cancel: CancelToken,
    ) -> Selection:
        """Like :meth:`select`, reading the rows from ``source``."""


# --------------------------------------------------------------------------- generators
Message = dict[str, str]
"""One chat message: ``{"role": "system" | "user" | "assistant", "content": text}``."""


@dataclass(frozen=True)
class Generation:
    """What a generator returned for one prompt.

    ``text`` is the completion (``None`` when the request for this prompt failed, with
    ``error`` saying why, e.g. ``"HTTP 500 after 3 retries"``); ``finish_reason`` is the
    server's or model's (``"stop"``, ``"length"``, ...); ``tokens`` the completion tokens
    when known. A failed prompt is a reject of its round, never an exception.
    """

    text: str | None
    finish_reason: str | None = None
    error: str | None = None
    tokens: int = 0


class Generator(ABC):
    """Writes new examples: one completion per chat prompt (API 1.4).

    Sampling parameters (``temperature``, ``top_p``, ``max_new_tokens``) are ``__init__``
    parameters. A problem that stops every request (server unreachable, model unknown, no
    weights) raises :class:`~vendiscope.core.base.errors.PluginError` with a message naming
    the URL or model; a problem with one prompt becomes that prompt's
    :attr:`Generation.error`. Secrets (API keys) are read from the environment when used and
    never appear in :attr:`model_id`, :meth:`describe` or any message.

    Structured output (API 1.7, optional): a generator whose ``generate`` also accepts a
    keyword ``schema`` (a JSON schema of the object wanted: the dataset's keys) is given it by
    the synthesis job and should make its backend keep to it (``response_format`` for a
    server, constrained decoding for a local model), or ignore it where it cannot; one that
    says what it did sets ``structured_output_`` (a short text) after the call. Generators
    written for 1.4 keep working: the job calls them without it.
    """

    @abstractmethod
    def generate(
        self,
        prompts: Sequence[Sequence[Message]],
        *,
        seed: int,
        progress: Progress,
        cancel: CancelToken,
    ) -> list[Generation]:
        """One :class:`Generation` per prompt, in order.

        ``seed`` seeds the sampling: a local model gives the same texts for the same
        prompts and seed (on one machine); a server is sent the seed where its API takes
        one. ``cancel`` is checked between requests or batches.
        """

    @property
    @abstractmethod
    def model_id(self) -> str:
        """What generated the texts (model and sampling settings), recorded as provenance."""

    def check(self) -> str:
        """Reach the model or server once ("Test connection"); a one-line description of it.

        Raises :class:`~vendiscope.core.base.errors.PluginError` naming what is wrong. The
        default returns :attr:`model_id`.
        """
        return self.model_id

    def describe(self) -> dict[str, Any]:
        """Plain facts worth recording with a run (JSON-serialisable, no secrets)."""
        return {}


# --------------------------------------------------------------------------- trainers
@dataclass(frozen=True)
class Evaluation:
    """How a model does on a target set.

    ``loss`` is the mean over target examples of each example's mean response-token loss
    (nats); ``accuracy`` the share of checkable examples (those with an ``"answer"``)
    answered right, ``None`` when none is checkable; ``per_example`` each example's loss,
    in target order.
    """

    loss: float  # mean over target examples of each example's mean response-token loss, nats
    n: int  # target examples scored
    accuracy: float | None = None  # share of checkable target examples answered right; None if none
    checked: int = 0  # target examples that were checkable
    per_example: tuple[float, ...] = ()  # each example's loss, in target order


@dataclass(frozen=True)
class TrainingOutcome:
    """One training run: a fresh model trained on a subset, then evaluated on the target."""

    evaluation: Evaluation
    steps: int
    examples_seen: int
    train_loss: float  # mean training loss over the run's last quarter of steps
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)  # JSON-serialisable facts


@dataclass(frozen=True)
class TrainingCost:
    """What one run of a given size costs on this machine, measured."""

    seconds_per_run: float  # a train() call of that size, caches warm
    one_time_seconds: float  # what the first run adds (loading, caching frozen layers), whole pool
    detail: str  # one line: what was measured, e.g. "0.21 s per training step of 8 examples"


class Trainer(ABC):
    """Fine-tunes a model on a training subset and scores it on a target set (API 1.5).

    Examples are dicts: ``"prompt"`` (user turn) and ``"response"`` (assistant turn),
    optionally ``"answer"`` (a checkable answer: the final number of a math solution, an NLI
    label) and ``"choices"`` (the labels an answer is chosen from). Inputs are never
    modified. Every :meth:`train` starts from the same untrained model: no state carries
    from one run to the next except caches of what frozen layers compute, which never change
    a result. Bad input raises ``ValueError`` naming the example and field (``"example 3: no
    'response'"``), as do no examples or no target; a model that cannot load raises
    :class:`~vendiscope.core.base.errors.PluginError` naming the model.
    """

    @abstractmethod
    def evaluate(
        self, target: Sequence[dict[str, Any]], *, progress: Progress, cancel: CancelToken
    ) -> Evaluation:
        """The untrained model on the target: the baseline each run is compared with."""

    @abstractmethod
    def train(
        self,
        examples: Sequence[dict[str, Any]],
        target: Sequence[dict[str, Any]],
        *,
        seed: int,
        progress: Progress,
        cancel: CancelToken,
    ) -> TrainingOutcome:
        """Train a fresh model on examples (seeded: order, initialisation), evaluate it on target.

        Same examples, target and seed give the same outcome on one machine.
        """

    @abstractmethod
    def estimate(
        self, n_examples: int, n_target: int, sample: Sequence[dict[str, Any]]
    ) -> TrainingCost:
        """Measure on a few sample examples what a run of this size costs here."""

    @property
    @abstractmethod
    def model_id(self) -> str:
        """What is trained and how (model, method, steps, learning rate), recorded with a study."""

    def describe(self) -> dict[str, Any]:
        """Plain facts worth recording (JSON-serialisable)."""
        return {}


# --------------------------------------------------------------------------- signals
SIGNAL_VALUE_KINDS = ("number", "flag", "label")
"""What a signal's column holds: a number (NaN: not applicable), a flag (0 or 1) or a label
(the index of one of the column's ``categories``; -1 for none)."""


@dataclass(frozen=True)
class SignalColumn:
    """One per-record value a :class:`Signal` computes (API 1.7)."""

    name: str
    """How filters name it (``words``, ``pii``, ``language``): lower case, no spaces."""
    kind: str = "number"
    """One of :data:`SIGNAL_VALUE_KINDS`."""
    help: str = ""
    categories: tuple[str, ...] = ()
    """A label column's values, in code order (``("en", "de", ...)``)."""

    def __post_init__(self) -> None:
        if self.kind not in SIGNAL_VALUE_KINDS:
            raise ValueError(f"column '{self.name}': kind must be one of {SIGNAL_VALUE_KINDS}")
        if (self.kind == "label") != bool(self.categories):
            raise ValueError(f"column '{self.name}': a label column, and only one, has categories")


@dataclass(frozen=True)
class Span:
    """What made a flag: characters ``start:end`` of a record's ``role`` text."""

    column: str
    role: str
    start: int
    end: int
    label: str = ""
    """What was found there (``email``, ``phone``, ...)."""


class Signal(ABC):
    """Computes per-record curation values — quality heuristics, PII, language, contamination
    — for every record of a dataset (API 1.7).

    The values of a dataset are stored as one vector set (``signals/NAME``, one column per
    :attr:`columns` entry), computed chunk by chunk, resumable and cancellable like embeddings;
    filters (``vendiscope clean``, ``--where``) and the app read them by column name.
    """

    needs_target: ClassVar[bool] = False
    """The signal compares each record with a second dataset of the project (e.g. a benchmark,
    for contamination): the job calls :meth:`fit_target` with its records first."""

    text_columns: ClassVar[tuple[str, ...]] = ()
    """Short texts per record beside the numbers (API 1.8; the LLM judge's ``reason``): after
    each :meth:`compute`, the signal sets ``texts_`` to ``{name: [text or None per record]}``
    and the job stores them with the chunk's values, in the same transaction."""

    @property
    @abstractmethod
    def columns(self) -> tuple[SignalColumn, ...]:
        """The values computed per record, in the order of :meth:`compute`'s columns."""

    @abstractmethod
    def compute(
        self,
        records: Sequence[dict[str, str | None]],
        *,
        progress: Progress,
        cancel: CancelToken,
    ) -> np.ndarray:
        """Return a ``(len(records), len(columns))`` float32 array: each record's values.

        Each record maps roles (``prompt``, ``response``, ``text``, ...) to text or ``None``.
        A row depends only on its record (and the fitted target).
        """

    @property
    def model_id(self) -> str:
        """A stable id of everything that changes the values (default: the class and its
        parameters)."""
        params = ", ".join(f"{k}={v!r}" for k, v in sorted(vars(self).items()) if k[0] != "_")
        return f"{type(self).__name__}({params})"

    def fit_target(self, records: Sequence[dict[str, str | None]]) -> None:  # noqa: B027
        """Learn the target dataset (:attr:`needs_target`); called once before :meth:`compute`.

        Optional: only a signal that :attr:`needs_target` overrides it (default: nothing)."""

    def spans(self, record: dict[str, str | None]) -> list[Span]:
        """Where in ``record`` each flag was raised (default: nowhere), for display."""
        return []

    def describe(self) -> dict[str, Any]:
        """Plain facts worth recording with a run (JSON-serialisable)."""
        return {}


# --------------------------------------------------------------------------- views
class View(ABC):
    """Computes a Qt-free chart description from a dataset's results; the GUI and reports draw it.

    ``data`` is what the app passes: ``{"view_data": ViewData, "dataset": name}`` plus keys a
    view documents (e.g. ``"target"``, the target dataset of a coverage view);
    ``vendiscope.api.view_data(data)`` returns the read-only, store-free
    :class:`~vendiscope.api.ViewData` (API 1.3; ``data["project"]``, a live project, is still
    passed and deprecated). A view reads the results it needs through it and raises
    ``ValueError`` naming what is missing from ``data``, or :class:`~vendiscope.api.NotComputed`
    naming the command that computes a result not computed yet.

    A view that compares the dataset with a second one sets :attr:`needs_target`: the GUI
    then asks for that target dataset (and only then), ``vendiscope view --target`` gives it
    on the command line, and ``build`` finds its name in ``data["target"]``.
    """

    needs_target: ClassVar[bool] = False
    """``build`` reads ``data["target"]``, a second dataset of the project (API 1.2)."""

    @abstractmethod
    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        """Return a chart description, as :mod:`vendiscope.core.plugin_host.charts` defines it."""
