"""The signal summary (what the report and the app's dashboard show) against numpy, on a
copy of the demo project with the cheap signals computed once for the module."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from vendiscope.core.signals.reading import SignalValues, signal_columns
from vendiscope.core.signals.summary import (
    FlagSummary,
    LabelSummary,
    NumberSummary,
    summarize_column,
    summarize_signals,
)
from vendiscope.core.store.project import Project


@pytest.fixture(scope="module")
def signalled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from vendiscope.core.io.demo import ensure_demo_project
    from vendiscope.scripting import open as open_project

    path = ensure_demo_project(tmp_path_factory.mktemp("summary") / "demo.vscope")
    with open_project(str(path), progress=False) as project:
        project.signals("demo", ["text-stats", "pii", "language", "lexical-dups"])
    return path


@pytest.fixture
def project(signalled: Path) -> Iterator[Project]:
    with Project.open(signalled) as opened:
        yield opened


def test_every_column_is_summarised_by_its_kind(project: Project) -> None:
    columns = {k: v for k, v in signal_columns(project, "demo").items() if "." in k}
    found = {s.column: s for s in summarize_signals(project, "demo")}
    assert set(found) == set(columns)
    for key, values in columns.items():
        expected = {"flag": FlagSummary, "number": NumberSummary, "label": LabelSummary}
        assert isinstance(found[key], expected[values.kind])
        assert found[key].records == 1245
    assert found["text-stats.words"].help == "word tokens"  # the help its run recorded


def test_a_flag_counts_its_records_and_their_sources_as_numpy_does(project: Project) -> None:
    values = signal_columns(project, "demo")["low-quality"].values
    sources = np.asarray([r.source or "" for r in project.iter_records("demo")], dtype=object)
    found = {s.column: s for s in summarize_signals(project, "demo")}["text-stats.low-quality"]
    assert isinstance(found, FlagSummary)
    raised = values > 0
    assert found.raised == int(raised.sum()) > 0
    assert found.share == pytest.approx(raised.mean())
    expected = Counter(sources[raised].tolist())
    assert dict(found.by_source) == dict(expected)
    counts = [n for _, n in found.by_source]
    assert counts == sorted(counts, reverse=True)  # largest first


def test_a_number_has_numpy_median_range_and_histogram_with_nan_apart() -> None:
    rng = np.random.default_rng(3)
    data = rng.lognormal(size=500).astype(np.float32)
    data[::7] = np.nan
    column = SignalValues("text-stats", "mean-word-length", "number", data)
    found = summarize_column("text-stats.mean-word-length", column, bins=12)
    assert isinstance(found, NumberSummary)
    finite = data[~np.isnan(data)].astype(np.float64)
    assert found.not_applicable == int(np.isnan(data).sum()) == 72
    assert found.median == pytest.approx(np.median(finite))
    assert found.p5 == pytest.approx(np.percentile(finite, 5))
    assert found.p95 == pytest.approx(np.percentile(finite, 95))
    counts, edges = np.histogram(finite, bins=12)
    assert found.counts == tuple(counts.tolist())
    assert np.allclose(found.edges, edges)
    assert sum(found.counts) + found.not_applicable == found.records == 500


def test_a_number_no_record_has_is_not_applicable_everywhere() -> None:
    column = SignalValues("s", "loss", "number", np.full(4, np.nan, dtype=np.float32))
    found = summarize_column("s.loss", column)
    assert isinstance(found, NumberSummary)
    assert (found.not_applicable, found.median, found.edges, found.counts) == (4, None, (), ())


def test_a_label_keeps_its_commonest_values(project: Project) -> None:
    values = signal_columns(project, "demo")["language"]
    found = summarize_column("language.language", values, top=3)
    assert isinstance(found, LabelSummary)
    tally = Counter(label for label in values.labels() if label is not None)
    assert found.top[0] == tally.most_common(1)[0]
    assert [n for _, n in found.top] == sorted(tally.values(), reverse=True)[:3]
    assert found.unlabelled == sum(label is None for label in values.labels())


def test_the_report_reads_the_same_summary(project: Project) -> None:
    from vendiscope.core.report.numbers import _quality

    summaries = {s.column: s for s in summarize_signals(project, "demo")}
    report = {entry["column"]: entry for entry in _quality(project, "demo")}
    assert set(report) == set(summaries)
    flag = report["text-stats.low-quality"]
    assert flag["flagged"] == summaries["text-stats.low-quality"].raised  # type: ignore[union-attr]
    assert list(flag["by_source"].values()) == sorted(flag["by_source"].values(), reverse=True)
    words = report["text-stats.words"]
    assert set(words) == {"column", "kind", "run_id", "median", "p5", "p95"}
    assert report["language.language"]["top"][0][0] == "en"


def test_no_signals_no_summary(tmp_path: Path) -> None:
    from tests.conftest import qa_rows, write_jsonl
    from vendiscope.core.io.importing import import_dataset

    with Project.create(tmp_path / "p.vscope") as project:
        import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(5)), name="d")
        assert summarize_signals(project, "d") == []
