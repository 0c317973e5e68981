"""The gradients job records each record's loss on the way: the ``proxy-loss`` signal's values
are stored beside the gradients (same rendering, same loss), so the signal is not computed
again — and where rows were copied from another set, the signal's own job fills the rest."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.signals.job import compute_signal
from vendiscope.core.signals.reading import signal_columns
from vendiscope.core.store import vectors
from vendiscope.core.vectors.featurizing import featurize_dataset

LOSS_SET = "signals/proxy-loss"


def gradients(project, dataset: str, tiny_lm: Path, chunk_rows: int | None = 4, **options):
    params = {"model": str(tiny_lm), "batch_size": 3, "dim": 16, "precision": "float32", **options}
    # sized chunks (None): a commit every millisecond makes chunks of one row, each of the
    # first ones made entirely of rows the sizing probe computed
    return featurize_dataset(
        project, dataset, params=params, chunk_rows=chunk_rows, commit_seconds=1e-3
    )


def loss_set(project, dataset: str):
    return next((s for s in vectors.list_sets(project, dataset) if s.name == LOSS_SET), None)


@pytest.mark.parametrize("chunk_rows", [4, None], ids=["fixed-chunks", "sized-chunks"])
def test_the_loss_comes_with_the_gradients_and_equals_the_signal(
    project, tmp_path: Path, tiny_lm: Path, chunk_rows: int | None
) -> None:
    rows = qa_rows(10)
    import_dataset(project, write_jsonl(tmp_path / "a.jsonl", rows), name="a")
    import_dataset(project, write_jsonl(tmp_path / "b.jsonl", rows), name="b")
    made = gradients(project, "a", tiny_lm, chunk_rows)
    assert made.vector_set.chunk_rows == (4 if chunk_rows else 1)

    made = loss_set(project, "a")
    assert made is not None and made.status == vectors.COMPLETE
    recorded = signal_columns(project, "a")
    assert {"loss", "perplexity"} <= set(recorded)

    again = compute_signal(project, "a", "proxy-loss", params={"model": str(tiny_lm)})
    assert again.already_complete  # nothing computed a second time

    # the signal's own forward passes, on the same records in another dataset
    compute_signal(project, "b", "proxy-loss", params={"model": str(tiny_lm)})
    own = signal_columns(project, "b")
    np.testing.assert_allclose(recorded["loss"].values, own["loss"].values, rtol=1e-4)
    np.testing.assert_allclose(recorded["perplexity"].values, np.exp(own["loss"].values), rtol=1e-3)
    assert np.isfinite(recorded["loss"].values).all()


def test_copied_rows_leave_their_chunks_to_the_signal_job(
    project, tmp_path: Path, tiny_lm: Path
) -> None:
    import_dataset(project, write_jsonl(tmp_path / "a.jsonl", qa_rows(4)), name="a")
    # chunk 0 of b is a's 4 records (copied), chunk 1 holds 4 new ones
    import_dataset(project, write_jsonl(tmp_path / "b.jsonl", qa_rows(8)), name="b")
    gradients(project, "a", tiny_lm)
    result = gradients(project, "b", tiny_lm)
    assert result.counts == {"featurized": 4, "reused": 4}

    partial = loss_set(project, "b")
    assert partial is not None and partial.status != vectors.COMPLETE
    assert vectors.committed_chunks(project, partial) == {1}
    assert "loss" not in signal_columns(project, "b")  # readers see complete sets only

    filled = compute_signal(project, "b", "proxy-loss", params={"model": str(tiny_lm)})
    assert filled.resumed_from == 4 and filled.counts == {"computed": 4}
    assert np.isfinite(signal_columns(project, "b")["loss"].values).all()


@pytest.mark.parametrize("options", [{"mode": "exact"}, {"end_of_turn": False}])
def test_no_loss_is_recorded_when_it_is_not_the_signals(
    project, tmp_path: Path, tiny_lm: Path, options
) -> None:
    import_dataset(project, write_jsonl(tmp_path / "a.jsonl", qa_rows(3)), name="a")
    gradients(project, "a", tiny_lm, **options)
    assert loss_set(project, "a") is None
