"""The quality/diversity trade-off on a real copy of the demo project with signals computed."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import qa_rows, table_counts, write_jsonl
from tests.core._planted import planted_vectors, write_set
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import Cancelled, CancelToken, RecordingProgress
from vendiscope.core.selection.job import select_dataset
from vendiscope.core.selection.tradeoff import (
    DEFAULT_STRENGTHS,
    check_strengths,
    quality_tradeoff,
    scaled_weights,
)
from vendiscope.core.store.migrate import copy_project
from vendiscope.core.store.project import Project

EMBEDDINGS = "sentence-transformers/prompt+response"
"""The demo's smallest feature set (384 dimensions)."""
QUALITY = "language-confidence"
DROP = ("low-quality", "truncated")
K = 120


@pytest.fixture(scope="module")
def demo_with_signals(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project (1,245 records, embeddings) with text-stats, pii and language."""
    import vendiscope as vs
    from vendiscope.core.io.demo import ensure_demo_project

    path = ensure_demo_project(tmp_path_factory.mktemp("tradeoff") / "demo.vscope")
    with vs.open(path, progress=False) as project:
        project.signals("demo", ["text-stats", "pii", "language"])
        project.store.wal_checkpoint()
    return path


@pytest.fixture
def demo(demo_with_signals: Path, tmp_path: Path) -> Iterator[Project]:
    path = copy_project(demo_with_signals, tmp_path / "demo.vscope")
    with Project.open(path) as project:
        yield project


def tradeoff(project: Project, **options: Any) -> Any:
    options = {"k": K, "quality": QUALITY, "vector_set": EMBEDDINGS, "drop": DROP} | options
    return quality_tradeoff(project, "demo", **options)


def test_strength_0_is_the_plain_greedy_selection_and_1_the_quality_weighted_one(demo) -> None:
    result = tradeoff(demo, strengths=(1, 0))
    assert result.strengths == (0.0, 1.0)
    plain = select_dataset(
        demo, "demo", method="greedy-vendi", k=K, vector_set=EMBEDDINGS, drop=DROP, name="plain"
    )
    weighted = select_dataset(
        demo, "demo", method="greedy-vendi", k=K, vector_set=EMBEDDINGS, drop=DROP,
        quality=QUALITY, name="weighted",
    )  # fmt: skip
    assert list(result.point(0).positions) == plain.positions
    assert list(result.point(1).positions) == weighted.positions
    assert result.n_candidates == plain.n_candidates and result.excluded == plain.excluded > 0
    flagged = np.zeros(result.n_candidates + result.excluded, dtype=bool)
    from vendiscope.core.signals.reading import where

    for flag in DROP:
        flagged |= where(demo, "demo", flag)
    assert not flagged[[p for point in result.points for p in point.positions]].any()


def test_mean_quality_rises_with_strength_and_beats_random(demo) -> None:
    result = tradeoff(demo)
    assert result.strengths == DEFAULT_STRENGTHS
    means = [p.mean_quality for p in result.points]
    assert all(b >= a - 1e-12 for a, b in itertools.pairwise(means))
    assert means[-1] > means[0]
    assert means[-1] > result.random.mean_quality
    # diversity: the plain greedy selection is far more diverse than random subsets
    assert result.point(0).vendi > result.random.vendi + 3 * result.random.vendi_sd
    assert result.random.draws == 5 and result.random.vendi_sd > 0
    quality = demo_quality(demo)
    assert np.isclose(result.point(2).mean_quality, quality[list(result.point(2).positions)].mean())


def demo_quality(project: Project) -> np.ndarray:
    from vendiscope.core.signals.reading import signal_columns

    return np.asarray(signal_columns(project, "demo")[QUALITY].values, dtype=np.float64)


def test_each_point_scores_as_vendiscope_score_scores_its_subset(demo) -> None:
    import vendiscope as vs

    result = tradeoff(demo, strengths=(0, 2))
    location = demo.location
    demo.close()
    with vs.open(location, progress=False) as project:
        names = []
        for point in result.points:
            name = f"strength-{point.strength:g}"
            project.save_subset("demo", name, point.positions)
            names.append(name)
        scores = project.score("demo", metric="vendi", vectors=EMBEDDINGS, subset=names)
    assert isinstance(scores, list)
    for point, score in zip(result.points, scores, strict=True):
        assert score.n == K
        assert point.vendi == pytest.approx(score.value, rel=1e-6)


def test_nothing_is_written_and_progress_counts_every_pick(demo) -> None:
    location = Path(demo.location)
    demo.wal_checkpoint()
    before = table_counts(location)
    progress = RecordingProgress()
    result = tradeoff(demo, strengths=(0, 2), progress=progress)
    demo.wal_checkpoint()
    assert table_counts(location) == before
    assert progress.total == 2 * K + result.random.draws
    done = [completed for completed, _total in progress.updates]
    assert done[-1] == progress.total and progress.finished
    assert done == sorted(done)
    assert progress.descriptions == ["Quality vs diversity: 2 selections of 120 records"]


class _CancelAfter(RecordingProgress):
    def __init__(self, token: CancelToken, picks: int) -> None:
        super().__init__()
        self.token, self.picks = token, picks

    def update(self, completed: float, total: float | None = None) -> None:
        super().update(completed, total)
        if completed >= self.picks:
            self.token.cancel()


def test_a_cancel_stops_it_between_picks(demo) -> None:
    token = CancelToken()
    progress = _CancelAfter(token, picks=K + 5)  # during the second strength
    with pytest.raises(Cancelled):
        tradeoff(demo, progress=progress, cancel=token)
    assert K + 5 <= progress.updates[-1][0] < 2 * K


def test_scaled_weights_and_strength_checks() -> None:
    quality = np.array([0.0, 1.0, 2.0, 4.0])
    assert scaled_weights(quality, 0) is None
    assert np.allclose(scaled_weights(quality, 1), [0, 0.25, 0.5, 1])
    assert np.allclose(scaled_weights(quality, 2), [0, 0.0625, 0.25, 1])
    assert check_strengths([2, 0, 2, 0.5]) == (0.0, 0.5, 2.0)
    for bad, words in (([], "at least one"), ([-1], ">= 0"), ([float("nan")], ">= 0"),
                       (["a"], "not a number"), ("0, 1", "list of numbers")):  # fmt: skip
        with pytest.raises(ProjectError, match=words):
            check_strengths(bad)


def test_a_quality_column_with_missing_values_is_refused_by_name(tmp_path: Path) -> None:
    import vendiscope as vs

    rows = [*qa_rows(30), {"id": "dots", "question": "...", "answer": "...", "source": "s0"}]
    with vs.create(tmp_path / "tiny.vscope", progress=False) as project:
        project.import_file(write_jsonl(tmp_path / "tiny.jsonl", rows), name="tiny")
        project.signals("tiny", "text-stats")
        write_set(project.store, "tiny", "embeddings/planted", planted_vectors((31,))[0],
                  kind="embedding")  # fmt: skip
        with pytest.raises(
            ProjectError, match=r"quality 'mean-word-length'.*record 30.*not finite"
        ):
            project.tradeoff("tiny", 5, quality="mean-word-length")
        with pytest.raises(ProjectError, match="1 of the 31 candidates have a quality above 0"):
            project.tradeoff("tiny", 5, quality="ellipsis-ratio")
