"""The README's command-line walk-through, run line by line as a new user would run it.

The fenced ``bash`` block of the section "Use it from the command line" is read from
README.md and every line is run, in order, in a real shell in a temporary folder that holds
small input files with the names the README uses. Every line must exit 0, so the test fails
as soon as the README gains a line that does not run (an unknown command or option, a
dataset or subset that no earlier line made, an input file a user would not have).

The only change made to the README's lines is the selection budget: ``-k 5000`` cannot be
met by a 12-record file, so the budget K of every ``select`` line becomes a small one
everywhere it appears (``-k 6``, and the subset name ``greedy-vendi-6`` that ``select``
then saves and a later line exports). The embedding, gradient and map steps run with the
real bundled models, on tiny inputs.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import write_jsonl

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SECTION = "## Use it from the command line"
SMALL_K = 6  # a selection budget a 12-record dataset can meet

TRAIN = [
    ("arithmetic", "What is 7 + 5?", "12"),
    ("geography", "What is the capital of France?", "Paris."),
    ("code", "How do I reverse a list in Python?", "Use my_list.reverse() or my_list[::-1]."),
    ("poetry", "Write a haiku about the sea.", "Waves fold into foam / gulls call / the tide goes"),
    ("arithmetic", "What is 12 times 3?", "36"),
    ("geography", "Which river flows through Cairo?", "The Nile."),
    ("code", "How do I read a file line by line in Python?", "for line in open(path): ..."),
    ("science", "Why is the sky blue?", "Air scatters blue sunlight more than red."),
    ("cooking", "How long should I boil an egg for a soft yolk?", "About six minutes."),
    ("history", "Who was the first emperor of Rome?", "Augustus."),
    ("science", "What is photosynthesis?", "Plants turning light, water and CO2 into sugar."),
    ("cooking", "How do I make rice fluffy?", "Rinse it, measure the water, let it rest."),
]
BENCHMARK = [
    ("What is 8 + 4?", "12"),
    ("What is the capital of Italy?", "Rome."),
    ("How do I sort a list in Python?", "sorted(xs)"),
    ("Why do leaves change colour in autumn?", "Their chlorophyll breaks down."),
    ("Who wrote Hamlet?", "Shakespeare."),
    ("How do I poach an egg?", "Simmer it in water for three minutes."),
]
CANDIDATES = [
    ("Translate 'good morning' into Spanish.", "Buenos días."),
    ("What is 9 squared?", "81"),
    ("Name a prime number above 50.", "53"),
    ("Write a limerick about a cat.", "A cat in a hat sat flat on a mat..."),
    ("What is the boiling point of water?", "100 °C at sea level."),
    ("Explain recursion in one sentence.", "A function calling itself on a smaller problem."),
]


def walkthrough_lines(readme: Path = README) -> list[str]:
    """The lines of the first ``bash`` block of the README's command-line section."""
    text = readme.read_text(encoding="utf-8")
    assert SECTION in text, f"README.md has no section '{SECTION}'"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    match = re.search(r"^```bash\n(.*?)^```", section, flags=re.S | re.M)
    assert match, f"the README section '{SECTION}' has no ```bash block"
    return [line for line in match.group(1).splitlines() if line.strip()]


def scaled(lines: list[str], k: int = SMALL_K) -> list[str]:
    """``lines`` with the budget of every ``select`` line replaced by ``k`` wherever it occurs."""
    budgets = {
        budget
        for line in lines
        if shlex.split(line, comments=True)[1:2] == ["select"]
        for budget in re.findall(r"(?:^|\s)(?:-k|--k)[\s=](\d+)", line)
    }
    out = []
    for line in lines:
        for budget in budgets:
            line = re.sub(rf"(?<![\w.,]){budget}(?![\w.,])", str(k), line)
        out.append(line)
    return out


def write_inputs(folder: Path) -> None:
    """The input files the walk-through names, small enough for the real models on 2 CPUs."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    write_jsonl(
        folder / "train.jsonl",
        [
            {"id": f"t{i}", "prompt": q, "response": a, "source": source}
            for i, (source, q, a) in enumerate(TRAIN)
        ],
    )
    write_jsonl(folder / "benchmark.jsonl", [{"question": q, "answer": a} for q, a in BENCHMARK])
    write_jsonl(folder / "synthetic.jsonl", [{"prompt": q, "response": a} for q, a in CANDIDATES])
    pq.write_table(
        pa.table(
            {
                "instruction": [q for q, _ in CANDIDATES],
                "output": [a for _, a in CANDIDATES],
                "lang": ["en"] * len(CANDIDATES),
            }
        ),
        folder / "chats.parquet",
    )


def link_virtualenv(folder: Path) -> None:
    """``folder/.venv``: the environment running these tests, so the README's
    ``source .venv/bin/activate`` puts this environment's ``vendiscope`` on PATH."""
    prefix = Path(sys.prefix)
    if (prefix / "bin" / "activate").exists():
        (folder / ".venv").symlink_to(prefix, target_is_directory=True)
        return
    # Not a virtualenv (e.g. a system or conda Python): an activate script that does the same.
    bin_dir = folder / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    scripts = shlex.quote(str(Path(sys.executable).parent))
    (bin_dir / "activate").write_text(f'export PATH={scripts}:"$PATH"\n')


def run_line(line: str, folder: Path, env: dict[str, str]) -> tuple[int, str, dict[str, str]]:
    """Run one README line in bash; the exit code, its output, and the environment after it
    (so that ``source .venv/bin/activate`` holds for the lines below it, as in a terminal)."""
    env_file = folder / ".env-after-line"
    script = f'{line}\nstatus=$?\nenv -0 > {shlex.quote(str(env_file))}\nexit "$status"\n'
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )
    after = env
    if env_file.exists():
        pairs = env_file.read_text().split("\0")
        after = dict(pair.split("=", 1) for pair in pairs if "=" in pair)
        env_file.unlink()
    return done.returncode, done.stdout, after


def test_walkthrough_lines_are_found_and_scaled() -> None:
    lines = walkthrough_lines()
    assert lines[0] == "source .venv/bin/activate"
    commands = [shlex.split(line, comments=True)[1] for line in lines[1:]]
    assert commands[0] == "new" and "import" in commands
    small = scaled(lines)
    selects = [line for line in small if " select " in line]
    assert all(f"-k {SMALL_K} " in line for line in selects)
    if any("-k 5000 " in line for line in lines):
        assert "5000" not in " ".join(line.split("#")[0] for line in small)
    # Nothing but the budget changes.
    assert [len(shlex.split(line, comments=True)) for line in small] == [
        len(shlex.split(line, comments=True)) for line in lines
    ]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_readme_walkthrough_runs_line_by_line(tmp_path: Path) -> None:
    lines = scaled(walkthrough_lines())
    write_inputs(tmp_path)
    link_virtualenv(tmp_path)
    named = {
        shlex.split(line, comments=True)[3]
        for line in lines
        if shlex.split(line, comments=True)[1:2] == ["import"]
    }
    missing = sorted(name for name in named if not (tmp_path / name).exists())
    assert not missing, f"the README imports {missing}; add such files to write_inputs()"

    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["COLUMNS"] = "120"
    times: list[tuple[float, str]] = []
    for number, line in enumerate(lines, 1):
        started = time.perf_counter()
        status, output, env = run_line(line, tmp_path, env)
        times.append((time.perf_counter() - started, line))
        assert status == 0, (
            f"README line {number} exited {status}: {line}\n--- output ---\n{output[-4000:]}"
        )
        if line.startswith("source "):
            found = shutil.which("vendiscope", path=env.get("PATH"))
            assert found and Path(found).parent == Path(sys.executable).parent, found

    # What the walk-through says it makes is there.
    with (tmp_path / "diverse.jsonl").open() as exported:
        assert len(exported.readlines()) == SMALL_K
    manifest = json.loads((tmp_path / "diverse.jsonl.manifest.json").read_text())
    assert manifest["subset"] == f"greedy-vendi-{SMALL_K}"
    assert manifest["export"]["row_count"] == SMALL_K
    for made in ("audit.vscope", "curated.parquet", "map.png", "audit.html"):
        assert (tmp_path / made).stat().st_size > 0, made
    print("\nREADME walk-through, seconds per line:")
    for seconds, line in times:
        print(f"{seconds:7.1f}  {line.split('  #')[0]}")
    print(f"{sum(t for t, _ in times):7.1f}  total")
