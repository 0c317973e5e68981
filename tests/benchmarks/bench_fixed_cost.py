"""Where the seconds of a tiny ``vendiscope gradients`` job go (run on demand, not in the suite).

    .venv/bin/python tests/benchmarks/bench_fixed_cost.py [--before DIR] [--records 5]
        [--skip-phases | --phases-only]

1. Phases, each timed in one fresh process of this checkout, in the order a job meets them:
   importing the CLI, torch and transformers' Llama classes, loading the cached de-quantised
   bundled SmolLM2 (``load_proxy``), building the gradient engine of each mode (its
   projections: the exact mode's count-sketch hash codes), and computing the records twice
   (the first call pays for memory and kernels).
2. Whole commands, wall clock, in fresh processes: ``gradients`` of a new N-record dataset
   in each mode, the same command again (the set is complete), and ``gradients`` of a second
   dataset imported from the same file (every row reused). With ``--before DIR`` (an older
   checkout, e.g. ``git archive HEAD | tar -x -C DIR``) the same commands run on its code too,
   on the same machine in the same run, and the ratios are printed.

The bundled model must be cached de-quantised already (any earlier ``gradients`` run does it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "vendiscope" / "resources" / "demo" / "demo.jsonl"

PHASES = textwrap.dedent(
    """
    import json, sys, time
    marks = {}
    def mark(name, started):
        marks[name] = round(time.perf_counter() - started, 2)
    t = time.perf_counter(); import vendiscope.cli; mark("import vendiscope.cli", t)
    t = time.perf_counter(); import torch; mark("import torch", t)
    t = time.perf_counter()
    from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaForCausalLM
    mark("import transformers (Llama)", t)
    from vendiscope.core.gradients.features import GradientEngine
    from vendiscope.core.gradients.proxy import load_proxy
    t = time.perf_counter(); lm, tokenizer, info = load_proxy(None); mark("load_proxy (cached)", t)
    records = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    records = [{"prompt": r.get("prompt"), "response": r.get("response"), "text": None}
               for r in records]
    from vendiscope.core.base.jobs import CancelToken, NullProgress
    for mode in ("fast", "exact"):
        t = time.perf_counter(); engine = GradientEngine(lm, tokenizer, mode=mode)
        mark(f"{mode}: engine (projections)", t)
        for attempt in ("first", "second"):
            t = time.perf_counter()
            engine.features(records, progress=NullProgress(), cancel=CancelToken())
            mark(f"{mode}: {len(records)} records, {attempt} call", t)
        del engine
    print(json.dumps(marks))
    """
)


CLI = textwrap.dedent(
    """
    import sys
    # an editable install's finder would win over sys.path: drop it to run CODE's package
    sys.meta_path[:] = [f for f in sys.meta_path
                        if "__editable__" not in str(getattr(f, "__module__", ""))]
    code, *args = sys.argv[1:]
    sys.path.insert(0, code)
    sys.argv = ["vendiscope", *args]
    from vendiscope.cli import main
    main()
    """
)


def run_cli(code: Path, *args: str) -> tuple[float, str]:
    """Wall seconds of ``vendiscope ARGS`` in a fresh process running ``code``'s package."""
    env = {**os.environ, "VENDISCOPE_PROGRESS": "off"}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CLI, str(code), *args],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"vendiscope {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return seconds, done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


def commands(code: Path, source: Path, folder: Path) -> dict[str, float]:
    """The whole commands' wall seconds with ``code``."""
    project = str(folder / f"{code.name}.vscope")
    run_cli(code, "new", project)
    run_cli(code, "import", project, str(source), "--name", "small")
    run_cli(code, "import", project, str(source), "--name", "again")
    seconds: dict[str, float] = {}
    for mode in ("fast", "exact"):
        seconds[f"gradients --mode {mode} (new dataset)"], said = run_cli(
            code, "gradients", project, "small", "--mode", mode
        )
        print(f"  [{code.name}] {said}", flush=True)
        seconds[f"gradients --mode {mode} again (complete)"], said = run_cli(
            code, "gradients", project, "small", "--mode", mode
        )
        print(f"  [{code.name}] {said}", flush=True)
    seconds["gradients --mode fast, same records re-imported"], said = run_cli(
        code, "gradients", project, "again", "--mode", "fast"
    )
    print(f"  [{code.name}] {said}", flush=True)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="an older checkout to compare with")
    parser.add_argument("--records", type=int, default=5)
    parser.add_argument("--skip-phases", action="store_true")
    parser.add_argument("--phases-only", action="store_true")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "small.jsonl"
        lines = DEMO.read_bytes().splitlines()[: options.records]
        source.write_bytes(b"\n".join(lines) + b"\n")
        if not options.skip_phases:
            done = subprocess.run(
                [sys.executable, "-c", PHASES, str(source)],
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            print("phases (seconds, one process):")
            for name, value in json.loads(done.stdout.strip().splitlines()[-1]).items():
                print(f"  {name:<40} {value:7.2f}")
        if options.phases_only:
            return
        codes = [c for c in (options.before, ROOT) if c is not None]
        results = {}
        for code in codes:
            base = Path(folder) / code.name
            base.mkdir()
            results[code] = commands(code, source, base)
        print("commands (wall seconds, fresh processes):")
        for name in results[ROOT]:
            row = "  ".join(f"{results[code][name]:7.1f}" for code in codes)
            ratio = ""
            if options.before is not None:
                ratio = f"  x{results[options.before][name] / results[ROOT][name]:.1f}"
            print(f"  {name:<50} {row}{ratio}")


if __name__ == "__main__":
    main()
