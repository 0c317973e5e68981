"""A signal plugin's values over a real project: stored as a resumable vector set, read by
column name, filtered with expressions, and used by clean-up to save a subset (records are
never deleted). Bad input is refused by name and leaves the project unchanged."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import qa_rows, table_counts, write_jsonl
from vendiscope.api import (
    Cancelled,
    CancelToken,
    Contribution,
    PluginManifest,
    Progress,
    Signal,
    SignalColumn,
)
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.plugin_host.registry import PluginRegistry
from vendiscope.core.signals.clean import clean_dataset
from vendiscope.core.signals.job import compute_signal
from vendiscope.core.signals.reading import signal_columns, where
from vendiscope.core.store.project import Project

N = 30


class Digits(Signal):
    """Per record: the digits in its response, a flag for an odd answer, and its source label."""

    columns = (
        SignalColumn("digits", "number", "digits in the response"),
        SignalColumn("odd", "flag", "the answer is odd"),
        SignalColumn("parity", "label", "the answer's parity", categories=("even", "odd")),
    )

    def __init__(self, stop_after: int = 0) -> None:
        self.stop_after = stop_after

    def compute(
        self, records: Sequence[dict[str, str | None]], *, progress: Progress, cancel: CancelToken
    ) -> np.ndarray:
        out = np.zeros((len(records), 3), dtype=np.float32)
        for i, record in enumerate(records):
            answer = record.get("response") or ""
            out[i] = (sum(c.isdigit() for c in answer), int(answer) % 2, int(answer) % 2)
            if answer == "0":
                out[i, 0] = np.nan  # not applicable
        return out


class Overlap(Signal):
    """Flags records whose prompt is also a prompt of the target."""

    needs_target = True
    columns = (SignalColumn("in_target", "flag"),)

    def __init__(self) -> None:
        self._seen: set[str] = set()

    def fit_target(self, records: Sequence[dict[str, str | None]]) -> None:
        self._seen = {r.get("prompt") or "" for r in records}

    def compute(
        self, records: Sequence[dict[str, str | None]], *, progress: Progress, cancel: CancelToken
    ) -> np.ndarray:
        flags = [float((r.get("prompt") or "") in self._seen) for r in records]
        return np.asarray(flags, dtype=np.float32).reshape(-1, 1)


class Stopping(Digits):
    """Cancels after its first chunk, as a user's Cancel would."""

    calls = 0

    def compute(self, records: Any, *, progress: Progress, cancel: CancelToken) -> np.ndarray:
        Stopping.calls += 1
        if Stopping.calls == 2:
            cancel.cancel()
            cancel.raise_if_cancelled()
        return super().compute(records, progress=progress, cancel=cancel)


@pytest.fixture
def registry() -> PluginRegistry:
    found = PluginRegistry()
    found.add_manifest(PluginManifest(name="test-signals", contributions=(
        Contribution("signal", "digits", f"{__name__}:Digits", "Digits"),
        Contribution("signal", "overlap", f"{__name__}:Overlap", "Overlap"),
        Contribution("signal", "stopping", f"{__name__}:Stopping", "Stopping"),
    )))  # fmt: skip
    return found


@pytest.fixture
def audited(tmp_path: Path) -> Path:
    location = tmp_path / "p.vscope"
    with Project.create(location) as project:
        import_dataset(project, write_jsonl(tmp_path / "train.jsonl", qa_rows(N)), name="train")
        import_dataset(project, write_jsonl(tmp_path / "bench.jsonl", qa_rows(5, start=10)),
                       name="bench")  # fmt: skip
    return location


def test_values_are_stored_by_column_and_filters_read_them(audited, registry) -> None:
    with Project.open(audited) as project:
        result = compute_signal(project, "train", "digits", registry=registry)
        assert result.vector_set.name == "signals/digits" and result.vector_set.dim == 3
        columns = signal_columns(project, "train")
        assert {"digits", "odd", "parity", "digits.digits"} <= set(columns)
        answers = [2 * i for i in range(N)]  # qa_rows: the answer of row i is 2i (all even)
        expected = [float(len(str(a))) for a in answers]
        assert np.isnan(columns["digits"].values[0])  # "0": not applicable
        assert columns["digits"].values[1:].tolist() == pytest.approx(expected[1:])
        assert columns["parity"].labels() == ["even"] * N
        long = where(project, "train", "digits >= 2")
        assert long.tolist() == [a >= 10 for a in answers]  # NaN (row 0) matches nothing
        assert not where(project, "train", "odd").any()
        assert where(project, "train", "not odd and parity == even").all()
        assert not where(project, "train", "parity == odd").any()
        assert where(project, "train", "parity != klingon").all()


def test_a_target_signal_and_the_clean_up_subset(audited, registry) -> None:
    with Project.open(audited) as project:
        with pytest.raises(ProjectError, match="name it with --target"):
            compute_signal(project, "train", "overlap", registry=registry)
        compute_signal(project, "train", "overlap", target="bench", registry=registry)
        compute_signal(project, "train", "digits", registry=registry)
        flagged = where(project, "train", "in_target")
        assert np.flatnonzero(flagged).tolist() == list(range(10, 15))
        before = project.dataset("train").row_count
        report = clean_dataset(
            project, "train", drop=["in_target"], keep=["digits >= 2"], name="clean"
        )
        assert [(r.rule, r.matched, r.removed) for r in report.rules] == [
            ("drop in_target", 5, 5), ("keep digits >= 2", 5, 5),
        ]  # fmt: skip
        assert report.kept == N - 10 and report.subset is not None and report.subset.size == N - 10
        again = clean_dataset(project, "train", drop=["in_target", "odd"], keep=["in_target"],
                              dry_run=True)  # fmt: skip
        assert [r.removed for r in again.rules] == [5, 0, N - 5] and again.subset is None
        assert project.dataset("train").row_count == before  # nothing deleted
        with pytest.raises(ProjectError, match="already has a subset"):
            clean_dataset(project, "train", drop=["in_target"], name="clean")


def test_bad_input_is_refused_by_name_and_leaves_the_project_unchanged(audited, registry) -> None:
    with Project.open(audited) as project:
        compute_signal(project, "train", "digits", registry=registry)
    counts = table_counts(audited)
    with Project.open(audited) as project:
        with pytest.raises(Exception, match="no signal named 'nope'"):
            compute_signal(project, "train", "nope", registry=registry)
        with pytest.raises(ProjectError, match="does not compare with a target"):
            compute_signal(project, "train", "digits", target="bench", registry=registry)
        with pytest.raises(ProjectError, match="no signal column 'pii'"):
            clean_dataset(project, "train", drop=["pii"], name="x")
        with pytest.raises(ProjectError, match="compare it with a number"):
            where(project, "train", "digits > many")
        with pytest.raises(ProjectError, match="takes == or !="):
            where(project, "train", "parity > even")
        with pytest.raises(ProjectError, match="cannot read"):
            where(project, "train", "digits >> 2")
    assert table_counts(audited) == counts


def test_a_cancelled_signal_job_resumes_where_it_stopped(audited, registry) -> None:
    Stopping.calls = 0
    with Project.open(audited) as project:
        with pytest.raises(Cancelled):
            compute_signal(project, "train", "stopping", chunk_rows=10, registry=registry)
        again = compute_signal(project, "train", "stopping", chunk_rows=10, registry=registry)
        assert again.resumed_from == 10 and again.vector_set.n_rows == N
        assert signal_columns(project, "train")["stopping.odd"].values.shape == (N,)


def test_a_number_column_weighs_quality_and_a_label_is_refused(audited, registry) -> None:
    from vendiscope.core.metrics.quality import quality_weights

    with Project.open(audited) as project:
        compute_signal(project, "train", "digits", registry=registry)
        with pytest.raises(ProjectError, match="record 0 has a not finite weight"):
            quality_weights(project, "train", "digits")  # row 0 is NaN: not applicable
        with pytest.raises(ProjectError, match="a label column of signal 'digits'"):
            quality_weights(project, "train", "parity")
        with pytest.raises(ProjectError, match="a flag column"):
            quality_weights(project, "train", "odd")
