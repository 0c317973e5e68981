"""A short store soak in the suite (the two-minute one: tests/benchmarks/bench_soak.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.store._soak import run_soak


@pytest.mark.slow
def test_app_and_three_cli_writers_share_a_project(tmp_path: Path) -> None:
    result = run_soak(tmp_path, seconds=25)
    assert result.failures == []
    assert result.integrity == ["ok"] and result.foreign_keys == []
    assert result.found == result.expected
    assert min(result.operations.get(k, 0) for k in ("import", "select", "subset", "export")) >= 1
    assert result.app_reads > 10
