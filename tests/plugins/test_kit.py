"""The conformance kit catches each kind of mistake, with a message that says what is wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, ClassVar

import numpy as np
import pytest

from vendiscope.api import (
    Embedder,
    Exporter,
    Metric,
    MetricResult,
    Range,
    Selection,
    Selector,
    StreamingSelector,
    VectorSource,
    View,
)
from vendiscope.core.base.jobs import CancelToken, NullProgress
from vendiscope.plugins.exporters.jsonl import JsonlExporter
from vendiscope.plugins.importers.jsonl import JsonlImporter
from vendiscope.testing import (
    check_contribution,
    check_exporter,
    check_importer,
    check_metric,
    iter_checks,
    parametrize_with_checks,
)


# --------------------------------------------------------------------------- metrics
class MeanNorm(Metric):
    """A correct metric: the mean row norm, each row's norm per record."""

    def __init__(self, scale: Annotated[float, Range(gt=0)] = 1.0) -> None:
        self.scale = scale

    def compute(self, vectors, *, quality=None):
        matrix = np.asarray(vectors, dtype=np.float64)
        if matrix.ndim != 2 or len(matrix) == 0:
            raise ValueError(f"vectors must be 2-D with rows; got shape {matrix.shape}")
        if quality is not None and np.shape(quality) != (len(matrix),):
            raise ValueError("quality must have one value per row")
        norms = np.linalg.norm(matrix, axis=1) * self.scale
        return MetricResult(float(norms.mean()), per_record=norms)


class Mutates(MeanNorm):
    def compute(self, vectors, *, quality=None):
        vectors *= 2
        return super().compute(vectors, quality=quality)


class OrderDependent(MeanNorm):
    def compute(self, vectors, *, quality=None):
        result = super().compute(vectors, quality=quality)
        result.value = float(np.asarray(vectors)[0, 0]) if len(vectors) else 0.0
        return result


class Drifts(MeanNorm):
    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale
        self.calls = 0

    def compute(self, vectors, *, quality=None):
        self.calls += 1
        result = super().compute(vectors, quality=quality)
        result.value += self.calls
        return result


class IndexErrorOnEmpty(MeanNorm):
    def compute(self, vectors, *, quality=None):
        if len(vectors) == 0:
            return [][0]
        return super().compute(vectors, quality=quality)


class ShortScores(MeanNorm):
    def compute(self, vectors, *, quality=None):
        result = super().compute(vectors, quality=quality)
        result.per_record = result.per_record[:-1]
        return result


class Tidies(MeanNorm):
    def __init__(self, scale: float = 1.0) -> None:
        self.scale = float(scale) * 2  # logic in __init__


def test_a_correct_metric_passes() -> None:
    check_metric(MeanNorm)
    check_metric(MeanNorm(scale=2.0))
    check_contribution("metric", MeanNorm, params={"scale": 3.0}, n=5, dim=3)


@pytest.mark.parametrize(
    ("cls", "check", "says"),
    [
        (Mutates, "check_metric_no_mutation", "modified its vectors"),
        (OrderDependent, "check_metric_permutation_invariant", "must not depend on row order"),
        (Drifts, "check_metric_deterministic", "from a second call"),
        (IndexErrorOnEmpty, "check_metric_bad_input", "raised IndexError"),
        (ShortScores, "check_metric_result", r"per-record scores of shape \(23,\)"),
        (Tidies, "check_params_kept_as_attributes", "keep parameters as given"),
    ],
)
def test_a_broken_metric_fails_the_right_check(cls: type, check: str, says: str) -> None:
    with pytest.raises(AssertionError, match=rf"- {check}: .*{says}"):
        check_metric(cls)


def test_wrong_kind_and_bad_signature() -> None:
    with pytest.raises(AssertionError, match=r"1 of .* failed:\n- check_interface: .*Selector"):
        check_contribution("selector", MeanNorm)

    class NeedsThreshold(MeanNorm):
        def __init__(self, threshold) -> None:
            self.threshold = threshold

    with pytest.raises(AssertionError, match=r"check_signatures: .*'threshold' has no default"):
        check_contribution("metric", NeedsThreshold(1))


def test_every_failure_is_listed() -> None:
    with pytest.raises(AssertionError) as caught:
        check_metric(Tidies)
    assert str(caught.value).startswith("1 of 11 conformance checks failed:\n- check_params")
    with pytest.raises(AssertionError) as caught:
        check_metric(Mutates)
    assert str(caught.value).startswith("3 of 11 conformance checks failed")
    assert "- check_metric_no_mutation: Mutates.compute modified its vectors" in str(caught.value)


# --------------------------------------------------------------------------- selectors
class FirstK(Selector):
    def select(self, vectors, k, *, quality=None, progress, cancel):
        cancel.raise_if_cancelled()
        if not 0 <= k <= len(vectors):
            raise ValueError(f"k must be between 0 and {len(vectors)}; got {k}")
        return Selection(np.arange(k))


class Repeats(FirstK):
    def select(self, vectors, k, *, quality=None, progress, cancel):
        cancel.raise_if_cancelled()
        return Selection(np.zeros(k, dtype=int))


class IgnoresBounds(FirstK):
    def select(self, vectors, k, *, quality=None, progress, cancel):
        cancel.raise_if_cancelled()
        return Selection(np.arange(min(max(k, 0), len(vectors))))


class IgnoresCancel(FirstK):
    def select(self, vectors, k, *, quality=None, progress, cancel):
        return Selection(np.arange(k))


class Unseeded(FirstK):
    def select(self, vectors, k, *, quality=None, progress, cancel):
        cancel.raise_if_cancelled()
        return Selection(np.random.default_rng().permutation(len(vectors))[:k])


class LongestRows(StreamingSelector):
    """The k longest rows. Read in chunks it breaks ties the other way, as rounding in other
    chunks may: equal rows trade places."""

    def select(self, vectors, k, *, quality=None, progress, cancel):
        cancel.raise_if_cancelled()
        if not 0 <= k <= len(vectors):
            raise ValueError(f"k must be between 0 and {len(vectors)}; got {k}")
        lengths = np.linalg.norm(np.asarray(vectors, dtype=np.float64), axis=1)
        return Selection(np.argsort(-lengths, kind="stable")[:k])

    def select_streamed(self, source, k, *, quality=None, progress, cancel):
        cancel.raise_if_cancelled()
        lengths = np.concatenate(
            [np.linalg.norm(np.asarray(c, dtype=np.float64), axis=1) for _, c in source.chunks()]
        )
        higher_first = np.argsort(-lengths[::-1], kind="stable")  # ties: the higher index first
        return Selection(len(lengths) - 1 - higher_first[:k])


class StreamsOtherRows(LongestRows):
    def select_streamed(self, source, k, *, quality=None, progress, cancel):
        cancel.raise_if_cancelled()
        return Selection(np.arange(k))


@parametrize_with_checks("selector", FirstK)
def test_a_correct_selector_passes(check) -> None:
    check()


def test_a_streaming_selector_may_trade_equal_rows_only() -> None:
    rows = np.random.default_rng(0).normal(size=(24, 8)).astype(np.float32)
    rows[[3, 17, 20]] = 5.0  # three equal rows, the longest
    source = VectorSource(n=24, dim=8, dtype="float32", chunks=lambda: iter([(0, rows)]),
                          rows=lambda positions: rows[list(positions)])  # fmt: skip
    job = {"progress": NullProgress(), "cancel": CancelToken()}
    in_memory = LongestRows().select(rows, 5, **job).indices
    streamed = LongestRows().select_streamed(source, 5, **job).indices
    assert in_memory[:3].tolist() == [3, 17, 20] and streamed[:3].tolist() == [20, 17, 3]
    check_contribution("selector", LongestRows, vectors=rows)  # the same rows: passes
    check_contribution("selector", LongestRows)  # no ties in the sample rows
    with pytest.raises(AssertionError, match=r"- check_selector_streamed: .*select_streamed"):
        check_contribution("selector", StreamsOtherRows)


@pytest.mark.parametrize(
    ("cls", "check", "says"),
    [
        (Repeats, "check_selector_result", "same index more than once"),
        (IgnoresBounds, "check_selector_k_bounds", r"select\(k=25 > n\): returned normally"),
        (IgnoresCancel, "check_selector_cancel", "ignored a cancelled token"),
        (Unseeded, "check_selector_deterministic", "seed any randomness"),
    ],
)
def test_a_broken_selector_fails_the_right_check(cls: type, check: str, says: str) -> None:
    with pytest.raises(AssertionError, match=rf"- {check}: .*{says}"):
        check_contribution("selector", cls)


def test_checks_are_named_and_share_one_instance() -> None:
    made = []

    class Counted(FirstK):
        def __init__(self) -> None:
            made.append(self)

    names = [name for name, check in iter_checks("selector", Counted)]
    assert names[:2] == ["check_interface", "check_signatures"]
    assert "check_selector_k_bounds" in names
    for _, check in iter_checks("selector", Counted):
        check()
    assert len(made) == 2  # the shared instance, and one fresh for the determinism check


# --------------------------------------------------------------------------- embedders
class Hashing(Embedder):
    def __init__(self, size: int = 16) -> None:
        self.size = size

    @property
    def dim(self) -> int:
        return self.size

    @property
    def model_id(self) -> str:
        return f"hashing/{self.size}"

    def embed(self, texts, *, progress, cancel):
        cancel.raise_if_cancelled()
        out = np.zeros((len(texts), self.size), dtype=np.float32)
        for row, text in enumerate(texts):
            for char in text:
                out[row, ord(char) % self.size] += 1
        return out


class Float64(Hashing):
    def embed(self, texts, *, progress, cancel):
        return super().embed(texts, progress=progress, cancel=cancel).astype(np.float64)


class BatchDependent(Hashing):
    def embed(self, texts, *, progress, cancel):
        return super().embed(texts, progress=progress, cancel=cancel) + len(texts)


class WrongDim(Hashing):
    @property
    def dim(self) -> int:
        return self.size + 1


def test_embedders() -> None:
    check_contribution("embedder", Hashing)
    with pytest.raises(AssertionError, match=r"check_vectors_result: .*float64, not float32"):
        check_contribution("embedder", Float64)
    with pytest.raises(AssertionError, match=r"check_vectors_deterministic: .*other inputs"):
        check_contribution("embedder", BatchDependent)
    with pytest.raises(AssertionError, match=r"returned 16 columns but declares dim = 17"):
        check_contribution("embedder", WrongDim)


# --------------------------------------------------------------------------- importers, exporters
def test_importer_round_trips_a_given_sample(tmp_path: Path) -> None:
    rows = [{"a": 1, "b": "x"}, {"a": 2, "b": None}]
    sample = tmp_path / "s.jsonl"
    sample.write_text("".join(json.dumps(r) + "\n" for r in rows))
    check_importer(JsonlImporter, sample=sample, expected=rows, exporter=JsonlExporter)
    with pytest.raises(AssertionError, match=r"check_importer_reads_sample: .*expected"):
        check_importer(JsonlImporter, sample=sample, expected=rows[:1])
    with pytest.raises(AssertionError, match=r"give the importer checks a small sample file"):
        check_importer(JsonlImporter)


class CountsWrong(Exporter):
    suffix: ClassVar[str] = ".txt"

    def write(self, rows, destination, *, schema):
        Path(destination).write_text("".join(str(r) for r in rows))
        return 1


class EatsRows(Exporter):
    suffix: ClassVar[str] = ".jsonl"

    def write(self, rows, destination, *, schema):
        count = 0
        with Path(destination).open("w") as handle:
            for count, row in enumerate(rows, 1):  # noqa: B007
                row.pop("source", None)
                handle.write(json.dumps(row) + "\n")
        return count


def test_exporters() -> None:
    check_exporter(JsonlExporter, importer=JsonlImporter)
    with pytest.raises(AssertionError, match=r"check_exporter_writes: .*wrote 1 rows of 3"):
        check_exporter(CountsWrong)
    with pytest.raises(AssertionError, match=r"check_exporter_no_mutation: .*modified the rows"):
        check_exporter(EatsRows)


# --------------------------------------------------------------------------- views
class SourceBars(View):
    """Records per source, from the project."""

    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        project, dataset = data.get("project"), data.get("dataset")
        if project is None or dataset is None:
            raise ValueError("needs data['project'] and data['dataset']")
        counts: dict[str, int] = {}
        for record in project.iter_records(dataset):
            counts[record.source] = counts.get(record.source, 0) + 1
        names = sorted(counts)
        return {
            "kind": "bar",
            "title": "Records per source",
            "series": [{"name": "records", "x": names, "y": [counts[n] for n in names]}],
        }


class NumpyBars(SourceBars):
    def build(self, data):
        chart = super().build(data)
        chart["series"][0]["y"] = np.asarray(chart["series"][0]["y"])
        return chart


class KeyErrorView(SourceBars):
    def build(self, data):
        return super().build({"project": data["project"], "dataset": data["dataset"]})


@pytest.mark.slow
def test_views() -> None:
    check_contribution("view", SourceBars)
    with pytest.raises(AssertionError, match=r"check_view_chart: .*\(use .tolist\(\)\)"):
        check_contribution("view", NumpyBars)
    with pytest.raises(AssertionError, match=r"check_view_missing_data: .*raised KeyError"):
        check_contribution("view", KeyErrorView)


def test_the_sample_project(tmp_path: Path) -> None:
    from vendiscope.testing import sample_project

    with sample_project(tmp_path) as project:
        chart = SourceBars().build({"project": project, "dataset": "sample"})
        assert chart["series"][0]["x"] == ["code", "math", "trivia"]
        assert [r.kind for r in project.runs("sample")] == ["import", "metric"]
