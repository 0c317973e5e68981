"""The memory plan of gradient batches: budgets, parsing, and rows that do not depend on it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.core.gradients.test_gradients import varied_records
from vendiscope.core.gradients.batches import length_buckets
from vendiscope.core.gradients.features import GradientEngine
from vendiscope.core.gradients.memory import GB, PROCESS_BYTES, parse_memory, plan_memory

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2.5GB", 2_500_000_000), ("800MB", 800_000_000), ("3g", 3_000_000_000), ("1024", 1024)],
)
def test_memory_sizes_are_read_with_their_unit(text: str, expected: int) -> None:
    assert parse_memory(text) == expected


@pytest.mark.parametrize("bad", ["lots", "-1GB", "0", "GB"])
def test_an_unreadable_memory_size_says_how_to_write_one(bad: str) -> None:
    with pytest.raises(ValueError, match="memory size"):
        parse_memory(bad)


def test_the_bundled_proxys_plan_fits_a_long_row_in_the_default_budget() -> None:
    """SmolLM2-135M in float32: 512 tokens fit 2.5 GB; fewer blocks back allow more tokens."""
    from vendiscope.core.gradients.proxy import load_proxy

    proxy, _, _ = load_proxy(None, device="cpu")
    everything = plan_memory(proxy, blocks_back=None)
    light = plan_memory(proxy, blocks_back=4)
    assert everything.budget <= 2.5 * GB
    # measured: 1.21 MB per token and 0.48 MB more per labelled one (peak RSS, float32)
    assert 1.4e6 <= everything.per_token <= 2.2e6
    assert 512 <= everything.batch_tokens <= 1200
    assert light.batch_tokens > 2 * everything.batch_tokens
    assert everything.peak(512) <= 2.5 * GB
    assert everything.fixed >= PROCESS_BYTES + 500e6  # 135M float32 weights


def test_a_smaller_budget_gives_fewer_tokens_per_batch(model: Any) -> None:
    big = plan_memory(model, blocks_back=None, max_memory=int(2 * GB))
    small = plan_memory(model, blocks_back=None, max_memory=PROCESS_BYTES + 200_000_000)
    assert small.batch_tokens < big.batch_tokens
    assert small.peak(small.batch_tokens) <= small.budget
    starved = plan_memory(model, blocks_back=None, max_memory=1)
    assert starved.batch_tokens == 1  # still runs: one row per batch


def test_batches_follow_the_budget_and_rows_do_not(model: Any, tokenizer: Any) -> None:
    records = varied_records(12, seed=9)
    exact = {"dim": 64, "precision": "float32"}  # bf16 rounding would differ by batch shape
    roomy = GradientEngine(model, tokenizer, **exact, max_memory=int(2 * GB))
    tight = GradientEngine(model, tokenizer, **exact)
    tight.max_tokens = 40  # as a budget for a handful of tokens would plan
    lengths = [len(e) for e in tight.encode(records)]
    assert len(length_buckets(lengths, tight.batch_size, tight.max_tokens)) > len(
        length_buckets(lengths, roomy.batch_size, roomy.max_tokens)
    )
    np.testing.assert_allclose(tight.features(records), roomy.features(records), atol=1e-5)


def test_the_engine_states_its_plan(model: Any, tokenizer: Any) -> None:
    described = GradientEngine(model, tokenizer, dim=32, max_memory=int(1.5 * GB)).describe()
    assert described["memory"].startswith("peak memory about ")
    assert "budget 1.5 GB" in described["memory"]
    assert described["expected_peak_bytes"] <= 1.5 * GB
