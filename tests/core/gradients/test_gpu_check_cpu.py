"""The prepared GPU check (``tests/benchmarks/gpu_check.py``) runs end to end on its CPU path.

The check itself is meant for a lent GPU; here it runs with ``--device cpu --quick`` in a
real subprocess, as it would be started there, and writes its JSON to a temporary file.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT_S = 540  # under a minute on 2 shared cores; allow for a much busier machine


def _numbers(rows: list[dict[str, Any]], *keys: str) -> None:
    assert rows
    for row in rows:
        assert "skipped" not in row and "oom" not in row, row
        for key in keys:
            assert isinstance(row[key], (int, float)) and math.isfinite(row[key]), (key, row)
            assert row[key] > 0, (key, row)


@pytest.mark.slow
def test_the_gpu_check_runs_on_the_cpu_and_the_cpu_agrees_with_itself(tmp_path: Path) -> None:
    output = tmp_path / "gpu_check.json"
    command = [sys.executable, "-m", "tests.benchmarks.gpu_check", "--device", "cpu", "--quick"]
    # one torch thread: on a shared machine, threads wait for each other's turn; a budget
    # no run reaches here, so every part runs
    command += ["--threads", "1", "--budget-s", "1000", "--output", str(output)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]

    for title in ("## 1. Agreement", "## 2. Fast mode", "## 3. Fast mode", "## 4. Embeddings"):
        assert title in done.stdout
    results = json.loads(output.read_text())
    assert results["skipped"] == []
    assert results["device"]["device"] == "cpu"

    agreement = results["agreement"]
    assert agreement["records"] == 8
    assert agreement["passed"] is True
    assert agreement["float32"]["min_cosine"] >= 0.999
    assert agreement["float32"]["median_cosine"] >= 0.999
    assert 0.9 < agreement["bfloat16"]["min_cosine"] <= 1.0 + 1e-6
    assert agreement["bfloat16"]["autocast"] == "bfloat16"

    for part in ("proxy_throughput", "qwen_throughput"):
        found = results[part]
        assert found["precision"] == "float32"  # the CPU path never autocasts here
        assert [row["batch_size"] for row in found["rows"]] == [2, 4]
        _numbers(found["rows"], "examples_per_s", "tflops", "peak_memory_mib", "seconds")
        for row in found["rows"]:
            assert 120 <= row["tokens_per_row"] <= 128  # truncated to max_length 128
            assert row["rows_per_batch"] == row["batch_size"]
            assert row["percent_of_bf16_peak"] is None  # no known peak for a CPU
    assert results["qwen_throughput"]["target"]["best_batch_size"] in (2, 4)

    embeddings = results["embeddings"]
    assert [row["batch_size"] for row in embeddings["rows"]] == [8, 32]
    _numbers(embeddings["rows"], "texts_per_s", "peak_memory_mib", "texts")
