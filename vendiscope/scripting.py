"""Vendiscope from Python: the same engine as the CLI, for notebooks and scripts.

::

    import vendiscope as vs

    with vs.open("audit.vscope", create=True) as p:
        p.import_file("train.jsonl")                    # dataset "train"
        p.embed("train")                                # sentence embeddings
        p.gradients("train")                            # proxy-LM gradient features
        print(p.score("train").value)                   # G-Vendi
        chosen = p.select("train", k=500)               # subset "greedy-vendi-500"
        p.export("train", "diverse.jsonl", subset=chosen.subset.name)

Each method is a thin call of the core function the matching ``vendiscope`` command calls,
and returns that function's result object (a dataclass of the core:
:class:`~vendiscope.core.metrics.scoring.ScoreResult`,
:class:`~vendiscope.core.selection.job.SelectionReport`, ...) — what the command prints.
What a method writes (vector sets, runs, subsets) lands in the project file, exactly as if
the command had run: the desktop app and the CLI see it.

Progress
    Long steps show a progress bar (:mod:`tqdm.auto`: a widget in Jupyter when ipywidgets is
    installed, else text; a text bar on a terminal). ``progress=False`` (per call, or for
    the project in :func:`open`) or ``VENDISCOPE_PROGRESS=off`` turns them off; any object
    with the :class:`~vendiscope.core.base.jobs.Progress` methods may be given instead.
Stopping
    Ctrl-C (or the notebook's *Interrupt*) stops a step: the :class:`KeyboardInterrupt`
    propagates after the step's cancel token has been cancelled, and nothing is
    half-written (embeddings and gradients keep their finished chunks: the same call resumes
    them). Passing ``cancel=CancelToken()`` lets another thread stop a step with
    ``token.cancel()``; the step then raises :class:`~vendiscope.core.base.jobs.Cancelled`.
Errors
    Bad input, a missing vector set, an unknown dataset... raise a
    :class:`~vendiscope.core.base.errors.VendiscopeError` (or a subclass) whose message is
    the CLI's error line. ``ValueError`` or ``TypeError`` name a bad argument.

Guide: ``docs/python.md``.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from vendiscope.core.base.jobs import (
    CancelToken,
    NullProgress,
    Progress,
    RateMeter,
    format_eta,
    format_rate,
)
from vendiscope.core.clusters.options import ClusterOptions
from vendiscope.core.io.options import ExportOptions, ImportOptions
from vendiscope.core.maps.options import MapOptions
from vendiscope.core.metrics.options import ScoreOptions
from vendiscope.core.neighbors.options import CoverageOptions, NearDuplicateOptions
from vendiscope.core.report.options import ReportOptions
from vendiscope.core.selection.options import SelectOptions, selector_params
from vendiscope.core.signals.options import SignalOptions
from vendiscope.core.studies.options import (
    DEFAULT_METRICS,
    DEFAULT_SIZE,
    DEFAULT_TRAINER,
    StudyOptions,
)
from vendiscope.core.vectors.options import EmbedOptions, GradientOptions

if TYPE_CHECKING:
    from types import TracebackType

    from vendiscope.core.clusters.jobs import ClusterReport
    from vendiscope.core.io.exporting import ExportResult
    from vendiscope.core.io.fields import FieldMapping
    from vendiscope.core.io.importing import ImportResult
    from vendiscope.core.io.sampling import SampleResult
    from vendiscope.core.maps.jobs import MapReport
    from vendiscope.core.metrics.scoring import ScoreResult
    from vendiscope.core.neighbors.search import NearDuplicateReport
    from vendiscope.core.report.build import ReportResult
    from vendiscope.core.selection.job import SelectionReport
    from vendiscope.core.selection.tradeoff import TradeoffResult
    from vendiscope.core.signals.clean import CleanReport
    from vendiscope.core.store.models import DatasetInfo, RecordRow, SubsetInfo
    from vendiscope.core.store.project import Project as StoreProject
    from vendiscope.core.studies.job import StudyEstimate, StudyReport
    from vendiscope.core.synthesis.job import SynthesisReport
    from vendiscope.core.vectors.job import VectorJobResult

__all__ = ["Project", "TqdmProgress", "create", "open"]

T = TypeVar("T")


PLAIN_INTERVAL_S = 10.0
"""Progress written to a file or pipe: a line at most this often (and one at the end)."""


class TqdmProgress:
    """A :class:`~vendiscope.core.base.jobs.Progress` drawn with :mod:`tqdm.auto`.

    One bar per step (a job may run several: reading, then embedding); each is closed when
    its step finishes, and left on screen with its final count and time. Safe to update
    from a worker thread.

    The rate and the time left are the CLI's (:class:`~vendiscope.core.base.jobs.RateMeter`):
    measured from the first step that finishes, never from where a resumed job starts, and
    not shown before (no ``?it/s``); a step that counts nothing shows only its time. Written
    to a file or pipe (a script's log; ``VENDISCOPE_PROGRESS=lines``) rather than a terminal
    or a notebook, the bar becomes plain lines, at most one every :data:`PLAIN_INTERVAL_S`
    seconds and one at the end, with no carriage returns.
    """

    def __init__(self, *, leave: bool = True, **tqdm_kwargs: Any) -> None:
        self._leave = leave
        self._kwargs = tqdm_kwargs
        self._bar: Any = None
        self._lock = threading.Lock()
        self._meter = RateMeter()
        self._unit = "it"
        self._plain = False

    def start(self, description: str, total: float | None = None, unit: str = "it") -> None:
        from tqdm.auto import tqdm

        self.finish()
        options = dict(self._kwargs)
        target = options.get("file") or sys.stderr
        plain = _plain_output(target)
        if plain:
            options["file"] = _Lines(target)
            options.setdefault("mininterval", PLAIN_INTERVAL_S)
        else:
            options.setdefault("dynamic_ncols", True)
        with self._lock:
            self._meter.reset(total, now=time.monotonic())
            self._unit, self._plain = unit, plain
            self._bar = tqdm(
                total=total,
                desc=description,
                unit=unit,
                unit_scale=unit == "B",
                leave=self._leave,
                bar_format=self._format(total, counted=False),
                **options,
            )

    def update(self, completed: float, total: float | None = None) -> None:
        with self._lock:
            bar = self._bar
            if bar is None:
                return
            now = time.monotonic()
            self._meter.add(completed, total, now=now)
            if total is not None and total != bar.total:
                bar.total = total
            shape = self._format(bar.total, counted=completed > 0 or bar.n > 0)
            if shape != bar.bar_format:
                bar.bar_format = shape
            bar.set_postfix_str(self._measured(now), refresh=False)
            bar.update(completed - bar.n)

    def finish(self) -> None:
        with self._lock:
            bar, self._bar = self._bar, None
            if bar is not None:
                bar.set_postfix_str(self._measured(None), refresh=False)
        if bar is not None:
            bar.close()

    def _format(self, total: float | None, *, counted: bool) -> str:
        """tqdm's ``bar_format``: its own rate and time left replaced by ``{postfix}``."""
        label = "B" if self._unit == "B" else "" if self._unit == "it" else f" {self._unit}"
        if total:
            shown = "{n_fmt}" + ("B" if label == "B" else "") + "/{total_fmt}" + label
            shown = (
                f"{shown} ({{percentage:.0f}}%)"
                if self._plain
                else "{percentage:3.0f}%|{bar}| " + shown
            )
        elif counted:
            shown = "{n_fmt}" + label
        else:  # a step that counts nothing: its time only
            return "{desc} [{elapsed}{postfix}]"
        return "{desc}: " + shown + " [{elapsed}{postfix}]"

    def _measured(self, now: float | None) -> str:
        """The rate and (``now`` given, while running) the time left; empty before both."""
        rate = format_rate(self._meter.rate, "B" if self._unit == "B" else self._unit)
        if not rate or now is None:
            return rate
        left = self._meter.eta(now=now)
        return rate if left is None else f"{rate}, eta {format_eta(left)}"


class _Lines:
    """A file for tqdm that writes each redraw as a line of its own: no carriage returns, no
    repeated line (a log file's progress)."""

    def __init__(self, file: Any) -> None:
        self._file = file
        self._last = ""

    def write(self, text: str) -> None:
        for part in text.replace("\r", "\n").split("\n"):
            line = part.rstrip()
            if line and line != self._last:
                self._file.write(line + "\n")
                self._last = line

    def flush(self) -> None:
        flush = getattr(self._file, "flush", None)
        if flush is not None:
            flush()


def _plain_output(file: Any) -> bool:
    """Whether progress to ``file`` should be plain lines: not a terminal and not a notebook's
    widget (``VENDISCOPE_PROGRESS=lines`` or ``bar`` chooses)."""
    forced = os.environ.get("VENDISCOPE_PROGRESS", "").strip().lower()
    if forced in ("lines", "bar"):
        return forced == "lines"
    from tqdm.autonotebook import tqdm as chosen
    from tqdm.std import tqdm as text_bar

    if chosen is not text_bar:
        return False  # a Jupyter widget: nothing written to a file
    try:
        return not file.isatty()
    except (AttributeError, OSError, ValueError):
        return True


def _progress_for(choice: bool | Progress | None) -> Progress:
    if choice is None or choice is True:
        # VENDISCOPE_PROGRESS=off silences the bars here too, as it does the CLI's
        off = os.environ.get("VENDISCOPE_PROGRESS", "").strip().lower() == "off"
        return NullProgress() if off else TqdmProgress()
    if choice is False:
        return NullProgress()
    if all(callable(getattr(choice, name, None)) for name in ("start", "update", "finish")):
        return choice
    raise TypeError(f"progress must be True, False or a Progress object, not {choice!r}")


class Project:
    """An open project file (or database URL): the Vendiscope pipeline as methods.

    Get one with :func:`open` or :func:`create`; close it with :meth:`close` or use it as a
    context manager. :attr:`store` is the core's project object, for what has no method here.
    """

    def __init__(self, store: StoreProject, *, progress: bool | Progress = True) -> None:
        self.store = store
        self.progress = progress

    # ------------------------------------------------------------------ the file
    @property
    def location(self) -> str:
        """The project's file path or database URL."""
        return str(self.store.location)

    def close(self) -> None:
        """Close the project's database connection (the object is unusable afterwards)."""
        self.store.close()

    def __enter__(self) -> Project:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<vendiscope.Project {self.location}>"

    # ------------------------------------------------------------------ running steps
    def _run(
        self,
        function: Callable[..., T],
        *args: Any,
        progress: bool | Progress | None,
        cancel: CancelToken | None,
        **kwargs: Any,
    ) -> T:
        """``function(store, *args, ..., progress=, cancel=)``; Ctrl-C cancels the token."""
        bar = _progress_for(self.progress if progress is None else progress)
        token = cancel if cancel is not None else CancelToken()
        try:
            return function(self.store, *args, progress=bar, cancel=token, **kwargs)
        except KeyboardInterrupt:
            token.cancel()  # worker threads and processes of the step stop too
            raise
        finally:
            bar.finish()

    # ------------------------------------------------------------------ datasets
    def import_file(
        self,
        path: str | Path,
        name: str | None = None,
        *,
        format: str | None = ImportOptions.format,
        mapping: dict[str, str] | Sequence[str] | FieldMapping | None = None,
        params: dict[str, Any] | None = None,
        skip_bad: bool = ImportOptions.skip_bad,
        bad_report: str | Path | None = None,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
    ) -> ImportResult:
        """Import a data file or folder as a dataset (``vendiscope import``).

        ``name`` defaults to the file name without its suffix; ``format`` to the importer
        that recognises the file. ``mapping`` overrides the detected field mapping, as
        ``{"prompt": "instruction", "response": "output"}`` or ``["prompt=instruction"]``
        (roles: prompt, response, text, label, source, id), or a whole
        :class:`~vendiscope.core.io.fields.FieldMapping` (what the app's import dialog builds).
        """
        from vendiscope.core.io.fields import FieldMapping
        from vendiscope.core.io.importing import import_dataset

        if isinstance(mapping, FieldMapping):
            whole, overrides = mapping, None
        else:
            whole, overrides = None, _assignments(mapping)
        return self._run(
            import_dataset, path, name=name, format=format, mapping=whole, overrides=overrides,
            importer_params=params or {}, skip_bad=skip_bad, bad_report=bad_report,
            progress=progress, cancel=cancel,
        )  # fmt: skip

    def sample(
        self,
        dataset: str,
        rows: int,
        *,
        name: str | None = None,
        seed: int = 0,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
    ) -> SampleResult:
        """A stratified random sample of ``rows`` records of a dataset, written as the new
        dataset ``name`` (default ``DATASET-sample-ROWS``; ``vendiscope sample``): each source
        keeps its share. Score it to estimate the dataset's score at n = ``rows``."""
        from vendiscope.core.io.sampling import sample_dataset

        return self._run(
            sample_dataset, dataset, rows, name=name, seed=seed, progress=progress,
            cancel=cancel,
        )  # fmt: skip

    def datasets(self) -> list[DatasetInfo]:
        """The project's datasets (``vendiscope datasets``)."""
        return self.store.datasets()

    def records(self, dataset: str, offset: int = 0, limit: int = 5) -> list[RecordRow]:
        """Records ``offset`` to ``offset + limit`` of a dataset (``vendiscope show``); an
        offset past the end raises :class:`~vendiscope.core.base.errors.ProjectError`."""
        from vendiscope.core.store import record_lookup

        return record_lookup.page(self.store, dataset, offset, limit)

    def stats(self, dataset: str) -> dict[str, Any]:
        """Rows, exact duplicates, fields filled, sources, lengths (``vendiscope stats``)."""
        return self.store.stats(dataset)

    def subsets(self, dataset: str) -> list[SubsetInfo]:
        """The dataset's subsets (``vendiscope subsets list``)."""
        return self.store.subsets(dataset)

    def save_subset(
        self,
        dataset: str,
        name: str,
        positions: Sequence[int],
        *,
        description: str | None = None,
        overwrite: bool = False,
    ) -> SubsetInfo:
        """Save the records at these dataset positions as the subset ``name`` (a lasso on the
        map, a list of your own); a taken name is refused unless ``overwrite``."""
        from vendiscope.core.store.subsets import from_positions

        return from_positions(
            self.store, dataset, name, positions, description=description, overwrite=overwrite
        )

    def copy_subset(self, dataset: str, source: str, name: str) -> SubsetInfo:
        """Save subset ``source`` under the new name ``name``, with its ranks, gains and the
        run that made it (a taken name is refused)."""
        from vendiscope.core.store.subsets import copy_subset

        return copy_subset(self.store, dataset, source, name)

    def view(
        self,
        dataset: str,
        view: str,
        params: dict[str, Any] | None = None,
        *,
        target: str | None = None,
        registry: Any = None,
    ) -> dict[str, Any]:
        """A view plugin's chart description of the dataset (``vendiscope view``), checked
        against the chart schema; ``params`` are the view's (strings are typed as on the
        command line)."""
        from vendiscope.core.view_data.build import build_view

        return build_view(self.store, view, dataset, params, registry=registry, target=target).chart

    def vector_sets(self, dataset: str) -> list[Any]:
        """The dataset's vector sets, newest last (``vendiscope vectors``)."""
        from vendiscope.core.store import vectors

        return vectors.list_sets(self.store, dataset)

    def export(
        self,
        dataset: str,
        destination: str | Path,
        *,
        subset: str | None = None,
        format: str | None = ExportOptions.format,
        params: dict[str, Any] | None = None,
        force: bool = ExportOptions.force,
        redact: str | None = None,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
    ) -> ExportResult:
        """Write a dataset or a subset in its original schema, manifest beside it
        (``vendiscope export``); ``format`` defaults to the destination's suffix.
        ``redact="pii"`` writes personal data and secrets as ``[EMAIL]``, ``[PHONE]``, ...
        (the project keeps the originals; the manifest records the redaction)."""
        from vendiscope.core.io.exporting import export_dataset
        from vendiscope.core.signals.redaction import redaction

        chosen = redaction(redact) if redact is not None else None
        return self._run(
            export_dataset, dataset, destination, subset=subset, format=format,
            exporter_params=params or {}, force=force, redaction=chosen, progress=progress,
            cancel=cancel,
        )  # fmt: skip

    # ------------------------------------------------------------------ vectors
    def embed(
        self,
        dataset: str,
        *,
        model: str | None = None,
        field: str = EmbedOptions.field,
        name: str | None = None,
        embedder: str = EmbedOptions.embedder,
        device: str | None = None,
        batch_size: int | None = None,
        params: dict[str, Any] | None = None,
        reuse: bool = EmbedOptions.reuse,
        engine: str | None = None,
        chunk_rows: int | None = EmbedOptions.chunk_rows,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
    ) -> VectorJobResult:
        """Sentence embeddings of a dataset (``vendiscope embed``); resumes a stopped run.

        ``model`` defaults to the bundled all-MiniLM-L6-v2; ``field`` is auto, prompt,
        response, prompt+response, text or all; ``params`` are the embedder's others.
        """
        from vendiscope.core.vectors.embedding import embed_dataset

        options = _with(params, model=model, device=device, batch_size=batch_size)
        return self._run(
            embed_dataset, dataset, embedder=embedder, params=options, field=field, name=name,
            reuse=reuse, engine=engine, progress=progress, cancel=cancel,
            **({"chunk_rows": chunk_rows} if chunk_rows else {}),
        )  # fmt: skip

    def gradients(
        self,
        dataset: str,
        *,
        mode: str = GradientOptions.mode,
        model: str | None = None,
        device: str | None = None,
        batch_size: int | None = None,
        name: str | None = None,
        params: dict[str, Any] | None = None,
        engine: str | None = None,
        chunk_rows: int | None = GradientOptions.chunk_rows,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
        preset: str | None = GradientOptions.preset,
    ) -> VectorJobResult:
        """Projected per-example gradients of a proxy LM, G-Vendi's features
        (``vendiscope gradients``); resumes a stopped run.

        ``mode`` is fast (LoGra-style) or exact; ``model`` defaults to the bundled
        SmolLM2-135M-Instruct; ``params`` are the featurizer's others (``max_length``...);
        ``preset`` is ``"paper"`` (the default) or ``"light"`` (``params`` win over it).
        """
        from vendiscope.core.gradients.presets import set_name, with_preset
        from vendiscope.core.vectors.featurizing import DEFAULT_FEATURIZER, featurize_dataset

        options = with_preset(
            preset, _with(params, model=model, device=device, batch_size=batch_size)
        )
        options["mode"] = mode
        name = set_name(name, preset, mode)
        return self._run(
            featurize_dataset, dataset, featurizer=DEFAULT_FEATURIZER, params=options,
            name=name, engine=engine, progress=progress, cancel=cancel,
            **({"chunk_rows": chunk_rows} if chunk_rows else {}),
        )  # fmt: skip

    # ------------------------------------------------------------------ diversity
    def score(
        self,
        dataset: str,
        *,
        metric: str = ScoreOptions.metric,
        vectors: str | None = None,
        q: float = 1.0,
        bootstrap: int = 0,
        quality: str | None = None,
        params: dict[str, Any] | None = None,
        subset: str | Sequence[str] | None = None,
        vs_random: bool = False,
        random_draws: int = ScoreOptions.random_draws,
        random_seed: int = ScoreOptions.random_seed,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
    ) -> ScoreResult | list[ScoreResult]:
        """A dataset's diversity, overall and per source (``vendiscope score``).

        ``metric`` is gvendi (on gradients), vendi (on embeddings) or a metric plugin's
        name; ``q`` the Vendi order; ``bootstrap`` resamples give a confidence interval.

        ``subset`` scores only that subset's records (the same number as those records
        imported on their own with the same vectors); a list of names returns a list of
        results, one per subset. ``vs_random=True`` (with a subset, ``--vs-random``)
        compares it with ``random_draws`` random subsets of the same size (``--random-draws``,
        default 20), seeded by ``random_seed``: the result's ``vs_random`` holds their
        ``mean``, ``sd``, 95% range (``low``, ``high``), ``z`` (the score minus the mean, in
        sds) and ``share_below`` (the share of draws scoring lower).
        """
        from vendiscope.core.metrics.scoring import score_dataset

        options = dict(params or {})
        if metric in ("gvendi", "vendi"):
            options.setdefault("q", q)
            if bootstrap:
                options.setdefault("bootstrap", bootstrap)
        common = {"metric": metric, "vector_set": vectors, "params": options, "quality": quality}
        if subset is None or isinstance(subset, str):
            return self._run(
                score_dataset, dataset, subset=subset, vs_random=vs_random,
                random_draws=random_draws, random_seed=random_seed, progress=progress,
                cancel=cancel, **common,
            )  # fmt: skip
        names = _names(subset)
        for name in names:  # every name checked before any run starts
            self.store.subset(dataset, name)
        found = []
        for name in names:
            scored = self._run(
                score_dataset, dataset, subset=name, vs_random=vs_random,
                random_draws=random_draws, random_seed=random_seed, progress=progress,
                cancel=cancel, **common,
            )  # fmt: skip
            found.append(scored)
        return found

    def select(
        self,
        dataset: str,
        k: int,
        *,
        method: str = SelectOptions.method,
        vectors: str | None = None,
        quality: str | None = None,
        exclude: Sequence[str] = (),
        drop: Sequence[str] = (),
        dedupe: float | None = SelectOptions.dedupe,
        seed: int | None = SelectOptions.seed,
        name: str | None = None,
        overwrite: bool = False,
        params: dict[str, Any] | None = None,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
    ) -> SelectionReport:
        """Choose the ``k`` most diverse records and save them as a subset, named
        ``METHOD-K`` unless ``name`` is given (``vendiscope select``); a name the dataset
        has already (the default included) is refused unless ``overwrite=True``.

        ``method``: greedy-vendi, prismatic, k-center, facility-location, dpp, random or a
        selector plugin's. ``exclude`` names subsets and ``drop`` signal flags or filters
        (``["pii", "words < 5"]``) whose records are not candidates. The report has the
        diversity-vs-budget ``curve``.
        """
        from vendiscope.core.selection.job import select_dataset

        return self._run(
            select_dataset, dataset, method=method, k=k, vector_set=vectors,
            params=selector_params(params, seed), quality=quality, exclude=_names(exclude),
            drop=_names(drop),
            dedupe=dedupe, name=name, overwrite=overwrite, progress=progress, cancel=cancel,
        )  # fmt: skip

    def tradeoff(
        self,
        dataset: str,
        k: int,
        *,
        quality: str,
        vectors: str | None = None,
        strengths: Sequence[float] | None = None,
        drop: Sequence[str] = (),
        exclude: Sequence[str] = (),
        seed: int | None = SelectOptions.seed,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
    ) -> TradeoffResult:
        """Quality against diversity: greedy Vendi selections of ``k`` records weighted by
        the ``quality`` column at each of ``strengths`` (default 0, 0.5, 1, 2, 4; 0 weighs
        every record alike, 1 is ``select(quality=...)``), each point with its mean quality
        and Vendi score, beside random subsets of the same candidates (``result.random``).

        ``drop`` and ``exclude`` leave records out as in :meth:`select`. Nothing is written:
        keep a point with ``save_subset(dataset, name, result.point(1).positions)``.
        """
        from vendiscope.core.selection.tradeoff import DEFAULT_STRENGTHS, quality_tradeoff

        return self._run(
            quality_tradeoff, dataset, k=k, quality=quality, vector_set=vectors,
            strengths=DEFAULT_STRENGTHS if strengths is None else strengths,
            exclude=_names(exclude), drop=_names(drop), seed=seed, progress=progress,
            cancel=cancel,
        )  # fmt: skip

    def near_duplicates(
        self,
        dataset: str,
        *,
        vectors: str | None = None,
        threshold: float = NearDuplicateOptions.threshold,
        k: int = NearDuplicateOptions.k,
        save: bool = True,
        overwrite: bool = False,
        index: str = NearDuplicateOptions.index,
        device: str = NearDuplicateOptions.device,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
    ) -> NearDuplicateReport:
        """Groups of records with cosine similarity >= ``threshold`` (``vendiscope
        near-dups``); with ``save``, the redundant ones become the subset
        ``near-duplicates@THRESHOLD``."""
        from vendiscope.core.neighbors.search import find_near_duplicates

        return self._run(
            find_near_duplicates, dataset, vectors, threshold=threshold, k=k, save=save,
            overwrite=overwrite, index=index, device=device, progress=progress, cancel=cancel,
        )  # fmt: skip

    def clusters(
        self,
        dataset: str,
        *,
        vectors: str | None = None,
        n_clusters: int | None = ClusterOptions.n_clusters,
        seed: int = ClusterOptions.seed,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
    ) -> ClusterReport:
        """Spherical k-means on the gradients and the sparse, under-represented clusters
        (``vendiscope clusters``); ``n_clusters`` defaults to records / 10."""
        from vendiscope.core.clusters.jobs import cluster_dataset

        return self._run(
            cluster_dataset, dataset, vector_set=vectors, n_clusters=n_clusters, seed=seed,
            progress=progress, cancel=cancel,
        )  # fmt: skip

    def signals(
        self,
        dataset: str,
        signals: str | Sequence[str],
        *,
        target: str | None = None,
        params: dict[str, Any] | None = None,
        chunk_rows: int | None = SignalOptions.chunk_rows,
        replace: bool = SignalOptions.replace,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
    ) -> list[VectorJobResult]:
        """Compute curation signals of every record (``vendiscope signals``): one vector set
        ``signals/NAME`` per signal plugin (``"text-stats"``, ``"pii"``, ...); ``target``
        names the dataset a signal compares with (contamination), ``params`` go to a single
        signal. Running it again resumes a stopped one. Read the values with
        :meth:`signal_values` or filter with :meth:`where`."""
        from vendiscope.core.signals.job import compute_signal

        done = []
        for name in _names(signals):
            run = self._run(
                compute_signal, dataset, name, params=params, target=target,
                chunk_rows=chunk_rows, replace=replace, progress=progress, cancel=cancel,
            )  # fmt: skip
            done.append(run)
        return done

    def signal_values(self, dataset: str) -> dict[str, Any]:
        """Every computed signal column of the dataset by name (``pii``, ``words``, and
        ``SIGNAL.COLUMN``): :class:`~vendiscope.core.signals.reading.SignalValues`."""
        from vendiscope.core.signals.reading import signal_columns

        return dict(signal_columns(self.store, dataset))

    def signal_texts(self, dataset: str) -> dict[str, list[str | None]]:
        """The text columns of the dataset's signals by name (the LLM judge's ``reason``):
        one text, or None, per record."""
        from vendiscope.core.signals.reading import signal_texts

        return signal_texts(self.store, dataset)

    def where(self, dataset: str, expression: str) -> Any:
        """A boolean array: the records matching a signal filter (``"pii"``, ``"words < 5"``,
        ``"language != en"``, joined with ``and``)."""
        from vendiscope.core.signals.reading import where

        return where(self.store, dataset, expression)

    def clean(
        self,
        dataset: str,
        *,
        drop: Sequence[str] = (),
        keep: Sequence[str] = (),
        name: str | None = None,
        overwrite: bool = False,
        dry_run: bool = False,
    ) -> CleanReport:
        """Save the records that pass every rule as the subset ``name`` (``vendiscope
        clean``): ``drop`` flags (``"pii"``), ``keep`` filters (``"words >= 5"``). Records are
        never deleted; the report says what each rule removed."""
        from vendiscope.core.signals.clean import clean_dataset

        return clean_dataset(
            self.store, dataset, drop=list(drop), keep=list(keep), name=name,
            overwrite=overwrite, dry_run=dry_run,
        )  # fmt: skip

    def synthesize(
        self,
        dataset: str,
        *,
        budget: int = 200,
        generator: str = "transformers",
        generator_params: dict[str, Any] | None = None,
        filter: str = "gain",
        rounds: int | None = None,
        target: float | None = None,
        template: str | None = None,
        name: str | None = None,
        seed: int = 0,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
        **options: Any,
    ) -> SynthesisReport:
        """Generate examples that fill the dataset's sparse gradient clusters
        (``vendiscope synthesize``); the accepted ones become dataset ``name`` (default
        ``synth-N``). ``generator_params`` go to the generator plugin, e.g.
        ``{"base_url": "http://127.0.0.1:8000/v1", "model": "qwen"}`` for ``"openai"`` (the key
        comes from ``OPENAI_API_KEY``). Other ``options`` are those of
        :class:`~vendiscope.core.synthesis.options.SynthesisOptions`. Running it again with
        the same settings resumes a stopped run."""
        from vendiscope.core.synthesis.job import synthesize
        from vendiscope.core.synthesis.options import SynthesisOptions

        chosen = SynthesisOptions(
            generator=generator, generator_params=dict(generator_params or {}), budget=budget,
            filter=filter, rounds=rounds, target=target, template=template, name=name,
            seed=seed, **options,
        )  # fmt: skip
        return self._run(synthesize, dataset, chosen, progress=progress, cancel=cancel)

    def study(
        self,
        pool: str,
        target: str,
        *,
        size: int = DEFAULT_SIZE,
        random: int = StudyOptions.random,
        seeds: int = StudyOptions.seeds,
        trainer: str = DEFAULT_TRAINER,
        trainer_params: dict[str, Any] | None = None,
        metrics: Sequence[str] | None = None,
        name: str | None = None,
        force: bool = False,
        seed: int = StudyOptions.seed,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
        **options: Any,
    ) -> StudyReport:
        """Train a small model on subsets of ``pool`` and read which diversity score predicts
        how it does on the held-out ``target`` (``vendiscope study``). ``trainer_params`` go
        to the trainer plugin (e.g. ``{"method": "lora", "device": "cuda"}``); other
        ``options`` are those of :class:`~vendiscope.core.studies.options.StudyOptions`
        (``duplicates``, ``sources``, ``selectors``, ``existing``, ``target_rows``...).
        Running it again with the same settings resumes it; more ``seeds`` or ``random``
        subsets grow it."""
        from vendiscope.core.studies.job import run_study

        chosen = self._study_options(
            size=size, random=random, seeds=seeds, trainer=trainer,
            trainer_params=trainer_params, metrics=metrics, name=name, force=force, seed=seed,
            **options,
        )  # fmt: skip
        return self._run(run_study, pool, target, chosen, progress=progress, cancel=cancel)

    def estimate_study(
        self,
        pool: str,
        target: str,
        *,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
        **options: Any,
    ) -> StudyEstimate:
        """The plan of :meth:`study` with these settings and what it would cost here
        (the trainer times itself on a few examples); nothing is written."""
        from vendiscope.core.studies.job import estimate_study

        chosen = self._study_options(**options)
        return self._run(estimate_study, pool, target, chosen, progress=progress, cancel=cancel)

    @staticmethod
    def _study_options(**options: Any) -> StudyOptions:
        options.setdefault("size", DEFAULT_SIZE)
        options["trainer_params"] = dict(options.get("trainer_params") or {})
        options["metrics"] = tuple(options.get("metrics") or DEFAULT_METRICS)
        return StudyOptions(**options)

    def map(
        self,
        dataset: str,
        *,
        vectors: str | None = None,
        method: str = MapOptions.method,
        n_neighbors: int = MapOptions.n_neighbors,
        min_dist: float = MapOptions.min_dist,
        seed: int = MapOptions.seed,
        fit_sample: int = MapOptions.fit_sample,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
    ) -> MapReport:
        """A 2-D map of the dataset (UMAP on FAISS neighbours, or ``method="pca"``), stored
        as a vector set (``vendiscope map``); the settings are those of
        :class:`~vendiscope.core.maps.options.MapOptions`."""
        from vendiscope.core.maps.jobs import map_dataset

        return self._run(
            map_dataset, dataset, vector_set=vectors, method=method, n_neighbors=n_neighbors,
            min_dist=min_dist, seed=seed, fit_sample=fit_sample, progress=progress,
            cancel=cancel,
        )  # fmt: skip

    def report(
        self,
        dataset: str,
        destination: str | Path,
        *,
        format: str | None = ReportOptions.format,
        target: str | None = None,
        min_similarity: float = CoverageOptions.min_similarity,
        target_vectors: str | None = None,
        vectors: str | None = None,
        compute: bool = ReportOptions.compute,
        contributions: bool = ReportOptions.contributions,
        images: str = ReportOptions.images,
        max_points: int = ReportOptions.max_points,
        force: bool = ReportOptions.force,
        progress: bool | Progress | None = None,
        cancel: CancelToken | None = None,
        radius: float | None = None,
    ) -> ReportResult:
        """A self-contained diversity audit of the dataset: one HTML file, or JSON
        (``vendiscope report``). ``compute=True`` first runs the missing cheap steps from
        the existing vectors; ``target`` adds its coverage by the dataset: the share of its
        records with a record of the dataset at least ``min_similarity`` cosine-similar
        (``--min-similarity``; ``radius=``, its old name, still works with a warning)."""
        from vendiscope.core.report.build import COMPUTE_STEPS, write_report

        if radius is not None:
            warnings.warn(
                "report(radius=) is deprecated: it is a cosine similarity, not a radius; "
                f"use min_similarity={radius:g}",
                FutureWarning,
                stacklevel=2,
            )
            min_similarity = radius

        return self._run(
            write_report, dataset, destination, format=format, force=force, target=target,
            radius=min_similarity, target_vector_set=target_vectors, vector_set=vectors,
            compute=COMPUTE_STEPS if compute else (), images=images, max_points=max_points,
            contributions=contributions, progress=progress, cancel=cancel,
        )  # fmt: skip


def open(  # vs.open(...), like the built-in open(), opens a file
    location: str | Path, *, create: bool = False, progress: bool | Progress = True
) -> Project:
    """Open the project at ``location`` (a ``*.vscope`` file or a database URL).

    ``create=True`` creates the file when it does not exist. ``progress`` is the default
    of every method's ``progress`` (True: tqdm bars; False: none; or a Progress object).
    Raises :class:`~vendiscope.core.base.errors.ProjectError` for a missing or unreadable
    project.
    """
    from vendiscope.core.store.project import Project as StoreProject

    _progress_for(progress)  # a bad value fails here, not at the first step
    return Project(StoreProject.open(location, create=create), progress=progress)


def create(location: str | Path, *, progress: bool | Progress = True) -> Project:
    """Create a new, empty project file at ``location`` (``vendiscope new``); it must not
    exist yet."""
    from vendiscope.core.store.project import Project as StoreProject

    _progress_for(progress)
    return Project(StoreProject.create(location), progress=progress)


def _with(params: dict[str, Any] | None, **named: Any) -> dict[str, Any]:
    """``params`` plus the named options that were given (None: the plugin's default)."""
    options = dict(params or {})
    options.update({key: value for key, value in named.items() if value is not None})
    return options


def _assignments(mapping: dict[str, str] | Sequence[str] | None) -> list[str] | None:
    """A field mapping as the CLI's ``ROLE=COLUMN`` strings."""
    if mapping is None:
        return None
    if isinstance(mapping, dict):
        return [f"{role}={column}" for role, column in mapping.items()]
    if isinstance(mapping, str):
        raise TypeError("mapping must be a dict or a list of 'ROLE=COLUMN' strings, not a str")
    return list(mapping)


def _names(value: str | Sequence[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)
