"""Load an N x 384 float32 vector set from the project file vs ``numpy.load`` of an .npy file.

Both are timed warm (second read, file in the OS page cache) and cold-ish (first read after
writing), in one run, as a ratio.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import save
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=384)
    args = parser.parse_args()
    n, dim = args.rows, args.dim
    results: dict[str, object] = {"rows": n, "dim": dim}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source = folder / "ids.jsonl"
        with source.open("wb") as handle:
            for i in range(n):
                handle.write(orjson.dumps({"text": f"record {i}"}) + b"\n")
        matrix = np.random.default_rng(0).standard_normal((n, dim), dtype=np.float32)
        with Project.create(folder / "p.vscope") as project:
            import_dataset(project, source, name="d")
            started = time.perf_counter()
            info = vectors.open_for_writing(
                project, "d", "v", kind="embedding", model="random", params={}, dim=dim
            )
            for index in range(info.n_chunks):
                start, stop = info.chunk_range(index)
                vectors.write_chunk(project, info, index, matrix[start:stop])
            vectors.mark_complete(project, info)
            project.wal_checkpoint()
            results["write_s"] = time.perf_counter() - started
            np.save(folder / "m.npy", matrix)
            del matrix
            timings = []
            for _ in range(3):
                started = time.perf_counter()
                ours = vectors.load(project, "d", "v")
                ours_s = time.perf_counter() - started
                del ours
                started = time.perf_counter()
                reference = np.load(folder / "m.npy")
                numpy_s = time.perf_counter() - started
                del reference
                timings.append(
                    {"vendiscope_s": ours_s, "numpy_load_s": numpy_s, "ratio": ours_s / numpy_s}
                )
            results["reads"] = timings
            results["best_ratio"] = min(t["ratio"] for t in timings)
            results["median_ratio"] = sorted(t["ratio"] for t in timings)[1]
    print(orjson.dumps(results, option=orjson.OPT_INDENT_2).decode())
    print(f"saved {save(f'vectors_{n}x{dim}', results)}")


if __name__ == "__main__":
    main()
