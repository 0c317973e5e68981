"""The Ray engine against the local engine: the embedding job on the same machine and data.

N short records (the demo prompts' first 120 characters, distinct by a numeric suffix) are
embedded with the bundled all-MiniLM-L6-v2 into a fresh project per run:

- ``local``: the local engine (this process, torch's default threads);
- ``local-1-thread``: the same with one torch thread (what one 1-CPU Ray actor gets);
- ``ray-1``, ``ray-2``: the Ray engine with 1 and 2 actors (1 CPU each) on a local cluster.

Each run is split into its set-up (model load; for Ray: actors started and loaded) and its
steady phase (from the first chunk handed out to the set marked complete), from the job's own
progress calls. From these:

- **overhead per example**: Ray's steady time per example minus the actors' own compute time
  per example (reported by the actors), divided over the workers — what shipping payloads,
  results and commits cost beyond computing;
- **scaling**: ``ray-2`` steady rate / ``ray-1`` steady rate;
- **driver ceiling**: a no-model featurizer (hash features of 384 or 1,024 dimensions) on
  2 actors: the most examples/s this driver reads, ships and commits;
- **projection to N GPUs** (clearly a projection, not a measurement: this machine has no GPU):
  ``min(N / (1/rate + overhead), driver ceiling)`` with the measured overhead and ceiling and
  a per-GPU rate given with ``--gpu-rate`` (or, when absent, the measured per-actor CPU rate,
  to show the shape). ``--summarize RESULTS.json --gpu-rate R`` recomputes it from a saved run.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

from tests.benchmarks._common import save

DEMO = Path(__file__).resolve().parents[2] / "vendiscope" / "resources" / "demo" / "demo.jsonl"


class PhaseClock:
    """A job progress that notes when the steady phase starts and ends."""

    def __init__(self) -> None:
        self.started: float | None = None
        self.finished: float | None = None

    def start(self, description: str, total: float | None = None, unit: str = "it") -> None:
        if self.started is None:
            self.started = time.perf_counter()

    def update(self, completed: float, total: float | None = None) -> None:
        pass

    def finish(self) -> None:
        self.finished = time.perf_counter()


def write_source(folder: Path, n: int) -> Path:
    rows = [orjson.loads(line) for line in DEMO.read_bytes().splitlines() if line.strip()]
    path = folder / "short.jsonl"
    with path.open("wb") as handle:
        for i in range(n):
            prompt = rows[i % len(rows)]["prompt"][:120]
            handle.write(orjson.dumps({"text": f"{prompt} ({i})"}) + b"\n")
    return path


def run_job(
    folder: Path, source: Path, label: str, engine: Any, chunk_rows: int, **job: Any
) -> dict[str, Any]:
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.store.project import Project
    from vendiscope.core.vectors.embedding import embed_dataset
    from vendiscope.core.vectors.featurizing import featurize_dataset

    with Project.create(folder / f"{label}.vscope") as project:
        import_dataset(project, source, name="d")
        clock = PhaseClock()
        began = time.perf_counter()
        if job.get("featurizer"):
            result = featurize_dataset(project, "d", chunk_rows=chunk_rows, engine=engine,
                                       progress=clock, **job)  # fmt: skip
        else:
            result = embed_dataset(project, "d", chunk_rows=chunk_rows, reuse=False,
                                   engine=engine, progress=clock, **job)  # fmt: skip
        ended = time.perf_counter()
    n = result.vector_set.n_rows
    steady = (clock.finished or ended) - (clock.started or began)
    out = {
        "label": label,
        "rows": n,
        "total_seconds": round(ended - began, 3),
        "setup_seconds": round((clock.started or began) - began, 3),
        "steady_seconds": round(steady, 3),
        "steady_rate": round(n / steady, 2),
    }
    print(
        f"  {label:16s} total {out['total_seconds']:7.1f} s  "
        f"set-up {out['setup_seconds']:6.1f} s  steady {out['steady_seconds']:7.1f} s  "
        f"{out['steady_rate']:8.1f} examples/s"
    )
    return out


class TimedRay:
    """A RayEngine that keeps its sessions, to read the actors' own compute times and their
    resident memory (sampled when the job ends, before the actors are stopped)."""

    def __init__(self, workers: int) -> None:
        import psutil

        from vendiscope.core.vectors.engines.ray_engine import RayEngine

        self.sessions: list[Any] = []
        self.actor_rss_mib: list[float] = []
        outer = self

        class Engine(RayEngine):
            def start(self, worker, *, max_workers=None):
                session = super().start(worker, max_workers=max_workers)
                outer.sessions.append(session)
                close = session.close

                def close_and_measure() -> None:
                    for pid in session.worker_pids:
                        try:
                            rss = psutil.Process(pid).memory_info().rss
                        except psutil.Error:
                            continue
                        outer.actor_rss_mib.append(round(rss / 2**20, 1))
                    close()

                session.close = close_and_measure
                return session

        self.engine = Engine(workers=workers)

    def compute_seconds(self) -> float:
        return sum(sum(s.chunk_seconds) for s in self.sessions)


CEILINGS = ((384, None), (384, 4096), (1024, 256))
"""(vector size, chunk rows) of the no-model runs: MiniLM at the bench's chunks and at the
embedding job's default, the G-Vendi features at the gradient job's default."""


def measure_ceilings(folder: Path, rows: int, chunk_rows: int) -> dict[str, Any]:
    """The driver's ceiling: hash features (no model) on 2 actors, and locally for reference."""
    from tests.core.vectors import _engine_plugins
    from vendiscope.core.plugin_host import PluginRegistry

    registry = PluginRegistry.discover(plugin_dir=None)
    registry.add_manifest(_engine_plugins.manifest)
    many = folder / "many"
    many.mkdir()
    wide = write_source(many, rows)
    out = {}
    for dim, chunk in CEILINGS:
        toy = {"featurizer": "toy", "params": {"dim": dim}, "registry": registry}
        suffix = "" if chunk is None else f"-d{dim}-c{chunk}"
        chunk = chunk or chunk_rows
        if not suffix:
            out["ceiling-local"] = run_job(many, wide, "ceiling-local", "local", chunk, **toy)
        label = f"ceiling-ray-2{suffix}"
        out[label] = run_job(many, wide, label, TimedRay(2).engine, chunk, **toy)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--chunk-rows", type=int, default=250)
    parser.add_argument("--ceiling-rows", type=int, default=20_000)
    parser.add_argument("--gradient-rows", type=int, default=32, help="0: skip gradients")
    parser.add_argument(
        "--gpu-rate", type=float, default=None,
        help="examples/s of one GPU actor, measured elsewhere (for the projection)",
    )  # fmt: skip
    parser.add_argument("--summarize", type=Path, help="only recompute the summary of a saved run")
    parser.add_argument("--ceilings-into", type=Path, help="only measure the ceilings, into a run")
    args = parser.parse_args()
    if args.summarize:
        report(orjson.loads(args.summarize.read_bytes()), args.gpu_rate)
        return
    if args.ceilings_into:
        import ray

        saved = orjson.loads(args.ceilings_into.read_bytes())
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        with tempfile.TemporaryDirectory() as tmp:
            found = measure_ceilings(Path(tmp), args.ceiling_rows, saved["chunk_rows"])
        ray.shutdown()
        saved["runs"].update(found)
        saved.setdefault("ceilings_load_average", os.getloadavg())
        report(saved, args.gpu_rate)
        return

    import ray
    import torch

    results: dict[str, Any] = {
        "rows": args.rows,
        "chunk_rows": args.chunk_rows,
        "machine": {
            "cpu": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(),
            "torch": torch.__version__,
            "ray": ray.__version__,
            "load_average_before": os.getloadavg(),
        },
        "runs": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source = write_source(folder, args.rows)
        print(f"{args.rows} short records, chunks of {args.chunk_rows} rows")
        runs = results["runs"]
        # Warm-up (not reported): the first job in a process pays torch's lazy start-up.
        warm = folder / "warm"
        warm.mkdir()
        run_job(warm, write_source(warm, 2 * args.chunk_rows), "warm-up", "local", args.chunk_rows)
        runs["local"] = run_job(folder, source, "local", "local", args.chunk_rows)
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        runs["local-1-thread"] = run_job(folder, source, "local-1-thread", "local", args.chunk_rows)
        torch.set_num_threads(threads)

        began = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        results["ray_cluster_start_seconds"] = round(time.perf_counter() - began, 3)
        compute: dict[str, float] = {}
        for workers in (1, 2):
            timed = TimedRay(workers)
            label = f"ray-{workers}"
            runs[label] = run_job(folder, source, label, timed.engine, args.chunk_rows)
            compute[label] = timed.compute_seconds()
            runs[label]["actor_compute_seconds"] = round(compute[label], 3)
            runs[label]["actor_rss_mib"] = timed.actor_rss_mib

        runs.update(measure_ceilings(folder, args.ceiling_rows, args.chunk_rows))
        if args.gradient_rows:
            # The G-Vendi features (bundled SmolLM2-135M, fast mode, CPU) on 2 actors.
            grad = folder / "grad"
            grad.mkdir()
            few = write_source(grad, args.gradient_rows)
            job = {"featurizer": "gradients", "params": {"device": "cpu"}}
            rows = max(1, args.gradient_rows // 4)
            runs["gradients-local"] = run_job(grad, few, "gradients-local", "local", rows, **job)
            timed = TimedRay(2)
            runs["gradients-ray-2"] = run_job(grad, few, "gradients-ray-2", timed.engine, rows,
                                              **job)  # fmt: skip
            runs["gradients-ray-2"]["actor_rss_mib"] = timed.actor_rss_mib
        ray.shutdown()

    import resource

    results["driver_peak_rss_mib"] = round(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1
    )
    report(results, args.gpu_rate)


GPU_COUNTS = (1, 2, 4, 8, 16, 32, 64)


def summarize(results: dict[str, Any], gpu_rate: float | None) -> dict[str, Any]:
    """Overheads, scaling, the driver's ceiling and the projection, from the measured runs."""
    runs = results["runs"]
    n = results["rows"]
    r1, r2 = runs["ray-1"], runs["ray-2"]
    # Steady time beyond the actors' own compute (divided over the actors), per example.
    overhead = {
        label: (runs[label]["steady_seconds"] - runs[label]["actor_compute_seconds"] / w) / n
        for label, w in (("ray-1", 1), ("ray-2", 2))
    }
    ceiling = runs["ceiling-ray-2"]["steady_rate"]
    rate = gpu_rate or r1["steady_rate"]
    # Each worker: 1 / rate seconds of compute plus the per-example overhead measured with one
    # actor (with two, the overhead also holds CPU contention that a GPU node does not have);
    # all workers together: no more than the driver's ceiling.
    per_example = 1 / rate + max(overhead["ray-1"], 0.0)
    projection = {str(g): round(min(g / per_example, ceiling), 1) for g in GPU_COUNTS}
    return {
        "ray_overhead_ms_per_example": {k: round(v * 1000, 3) for k, v in overhead.items()},
        "ray_fixed_costs_seconds": {
            "cluster_start": results["ray_cluster_start_seconds"],
            "actors_start_and_load_ray_1": r1["setup_seconds"],
            "actors_start_and_load_ray_2": r2["setup_seconds"],
        },
        "steady_rate_examples_per_s": {k: v["steady_rate"] for k, v in runs.items()},
        "scaling_ray_2_over_ray_1": round(r2["steady_rate"] / r1["steady_rate"], 3),
        "ray_2_over_local": round(r2["steady_rate"] / runs["local"]["steady_rate"], 3),
        "ray_2_over_local_1_thread": round(
            r2["steady_rate"] / runs["local-1-thread"]["steady_rate"], 3
        ),
        "driver_ceiling_examples_per_s": ceiling,
        "driver_ceilings_by_size": {
            k: v["steady_rate"] for k, v in runs.items() if k.startswith("ceiling-ray-2")
        },
        "actor_rss_mib": {k: v["actor_rss_mib"] for k, v in runs.items() if "actor_rss_mib" in v},
        "projection": {
            "note": "PROJECTION, not a measurement: min(N / (1/rate + overhead), driver ceiling)",
            "rate_basis": "--gpu-rate" if gpu_rate else "measured 1-CPU actor rate (shape only)",
            "rate_per_worker": rate,
            "examples_per_s_by_workers": projection,
        },
    }


def report(results: dict[str, Any], gpu_rate: float | None) -> None:
    results["summary"] = summarize(results, gpu_rate)
    print()
    for key, value in results["summary"].items():
        print(f"{key}: {value}")
    print("saved", save(f"ray_embed_{results['rows']}", results))


if __name__ == "__main__":
    main()
