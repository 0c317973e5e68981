"""Helpers for benchmarks: run a measured step in a fresh process, report wall time and peak RSS."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).with_name("results")

MEASURE = textwrap.dedent(
    """
    import json, resource, sys, time
    started = time.perf_counter()
    exec(compile(sys.argv[1], "<benchmark>", "exec"))
    seconds = time.perf_counter() - started
    # VmHWM belongs to this process's own address space; ru_maxrss can carry the peak of the
    # parent it was forked from across exec (Linux), so prefer VmHWM where there is one
    try:
        with open("/proc/self/status") as status:
            peak_kib = next(int(l.split()[1]) for l in status if l.startswith("VmHWM:"))
    except (OSError, StopIteration):
        peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print("__RESULT__" + json.dumps({"seconds": seconds, "peak_rss_mib": peak_kib / 1024}))
    """
)


def measure(code: str, *args: str) -> dict[str, Any]:
    """Run ``code`` in a new interpreter; return its wall time (imports included) and peak RSS."""
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, textwrap.dedent(code), *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("__RESULT__"))
    result = json.loads(line.removeprefix("__RESULT__"))
    result["process_seconds"] = time.perf_counter() - started
    return result


def save(name: str, results: dict[str, Any]) -> Path:
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(results, indent=2))
    return path
