"""The automatic projection dimension: larger for small sets, the paper's 1,024 for large."""

from __future__ import annotations

from vendiscope.core.gradients.dims import (
    MAX_DIM,
    PAPER_DIM,
    SHIFT_PER_RATIO,
    STORED_NUMBERS,
    TARGET_SHIFT,
    auto_dim,
)
from vendiscope.plugins.featurizers.gradients import GradientFeaturizer


def test_small_sets_get_a_larger_projection_and_large_sets_the_papers() -> None:
    sizes = [1, 10, 32, 100, 1_000, 5_000, 20_000, 1_000_000]
    for n in sizes:
        d = auto_dim(n)
        assert PAPER_DIM <= d <= MAX_DIM and d & (d - 1) == 0
        if d > PAPER_DIM:
            assert n * d <= STORED_NUMBERS  # within the storage budget
        if d < MAX_DIM and 2 * d * n <= STORED_NUMBERS:
            assert SHIFT_PER_RATIO * n / d <= TARGET_SHIFT  # larger only where it is needed
    assert auto_dim(32) > PAPER_DIM and auto_dim(1_000_000) == PAPER_DIM


def test_the_featurizer_settles_an_automatic_dim_from_the_rows() -> None:
    paper = GradientFeaturizer()
    assert paper.dim == PAPER_DIM and paper.params_for_rows(32) == {}  # the default
    automatic = GradientFeaturizer(dim=None)
    assert automatic.dim == PAPER_DIM  # called directly: the paper's setting
    assert automatic.params_for_rows(32) == {"dim": auto_dim(32)}
    chosen = GradientFeaturizer(dim=512)
    assert chosen.params_for_rows(32) == {} and chosen.dim == 512
