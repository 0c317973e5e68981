"""A real study on real text nobody here wrote: Python docstrings grouped by package.

The pool is docstring pairs of the largest installed packages (``POOL_DOMAINS`` x
``PER_DOMAIN``), the target the docstrings of ``TARGET_DOMAINS`` other packages (held out
whole, so the target measures generalisation to unseen code bases). The study is run with
the command line exactly as a user would, its output going to a log file:

    python -m tests.benchmarks.study_docstrings FOLDER [study options...]

Steps (each skipped when already done, so the script resumes): import both datasets,
``vendiscope gradients`` and ``vendiscope embed`` on the pool, then ``vendiscope study``
with the options given (defaults below). The numbers go to ``docs/evidence.md`` by hand.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.benchmarks.docstrings import harvest

POOL_DOMAINS = 16
PER_DOMAIN = 30
TARGET_DOMAINS = 5
TARGET_PER_DOMAIN = 20
STUDY = [
    "--size", "64", "--subsets", "24", "--sources", "4", "--duplicates", "4", "--seeds", "2",
    "-p", "method=lora", "--target-rows", "100",
]  # fmt: skip


def write_datasets(folder: Path) -> tuple[Path, Path]:
    """The pool and target JSONL files: disjoint packages, a seeded draw from each."""
    import random

    domains = harvest()
    names = sorted(domains, key=lambda d: (-len(domains[d]), d))
    pool_names = names[:POOL_DOMAINS]
    target_names = names[POOL_DOMAINS : POOL_DOMAINS + TARGET_DOMAINS]
    rng = random.Random(0)
    files = []
    for file, chosen, share in (
        ("pool.jsonl", pool_names, PER_DOMAIN),
        ("target.jsonl", target_names, TARGET_PER_DOMAIN),
    ):
        rows = [pair for name in chosen for pair in rng.sample(domains[name], share)]
        rng.shuffle(rows)
        path = folder / file
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        files.append(path)
    print(f"pool: {', '.join(pool_names)}\ntarget: {', '.join(target_names)}", flush=True)
    return files[0], files[1]


def vendiscope(*args: str) -> None:
    command = [sys.executable, "-m", "vendiscope", *args]
    print("$ vendiscope " + " ".join(args), flush=True)
    subprocess.run(command, check=True)


def main(folder: Path, study: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    project = folder / "docstrings.vscope"
    if not project.exists():
        pool, target = write_datasets(folder)
        vendiscope("new", str(project))
        vendiscope("import", str(project), str(pool), "--name", "pool")
        vendiscope("import", str(project), str(target), "--name", "held-out")
    vendiscope("gradients", str(project), "pool")
    vendiscope("embed", str(project), "pool")
    vendiscope("study", str(project), "pool", "--target", "held-out", *study)


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2:] or STUDY)
