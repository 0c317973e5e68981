"""The Python API (``import vendiscope as vs``): docs/python.md's walk-through, run for real.

The ```python blocks of docs/python.md are executed in order, in one namespace, in a
temporary folder — what a user pasting them into a notebook does. Everything is real (the
import, the bundled MiniLM embedder, the store, scoring, selection, the report) except the
proxy LM of ``p.gradients``: the bundled SmolLM2-135M takes seconds per record on a CPU, so
the test hands ``gradients`` a tiny Llama of the same architecture (tests/core/test_gradients)
when no ``model=`` is given. The rest of the file checks what the walk-through cannot show.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "python.md"
README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)


@pytest.fixture
def small_proxy_lm(monkeypatch: pytest.MonkeyPatch, tiny_lm: Path) -> None:
    from vendiscope import scripting as python_api

    real = python_api.Project.gradients

    def gradients(self: Any, dataset: str, **kwargs: Any) -> Any:
        kwargs.setdefault("model", str(tiny_lm))
        return real(self, dataset, **kwargs)

    monkeypatch.setattr(python_api.Project, "gradients", gradients)


@pytest.mark.slow
def test_the_walk_through_of_docs_python_md_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, small_proxy_lm: None
) -> None:
    blocks = python_blocks(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 6
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "__walkthrough__"}
    for number, block in enumerate(blocks, 1):
        try:
            exec(compile(block, f"docs/python.md block {number}", "exec"), namespace)
        except Exception as error:  # pragma: no cover - the message says which block
            pytest.fail(f"docs/python.md block {number} failed: {error!r}\n{block}")
    out = capsys.readouterr().out

    assert "40 records; mapping:" in out and "['train']" in out
    assert "sentence-transformers/prompt+response 40 x 384" in out
    assert re.search(r"embedding-Vendi \d+\.\d of 40 records", out)
    assert re.search(r"G-Vendi \d+\.\d: the effective number of distinct examples of 40", out)
    assert "greedy-vendi-10" in out and "sparse clusters" in out
    assert "10 rows written" in out and (tmp_path / "diverse.parquet").exists()
    assert (tmp_path / "audit.html").read_text(encoding="utf-8").lstrip().startswith("<!")
    assert "stopped; the same call resumes it" in out
    assert re.search(
        r"greedy-vendi-10: G-Vendi \d+\.\d\d of 10 records; random subsets of 10:", out
    )
    assert re.search(r"\d+% of the random subsets score lower", out)
    assert "error: " in out and "no-such-set" in out

    import vendiscope as vs

    with vs.open(tmp_path / "audit.vscope", progress=False) as p:  # what it left behind
        names = {s.name for s in p.vector_sets("train")}
        assert {"sentence-transformers/prompt+response", "gradients/fast"} <= names
        again = [s for s in p.vector_sets("train") if s.name == "embeddings-again"]
        assert all(s.status != "complete" for s in again)  # cancelled before its first chunk
        assert {"greedy-vendi-10", "near-duplicates@0.9"} <= {s.name for s in p.subsets("train")}


def test_readme_shows_the_python_api() -> None:
    (block,) = [b for b in python_blocks(README.read_text(encoding="utf-8")) if "vs.open" in b]
    for call in ("import vendiscope as vs", "vs.open(", ".embed(", ".score(", ".select("):
        assert call in block


def test_import_vendiscope_is_cheap() -> None:
    probe = (
        "import sys, vendiscope\n"
        "heavy = [m for m in ('torch', 'sqlalchemy', 'numpy', 'typer', 'rich', 'PySide6',"
        " 'vendiscope.core', 'vendiscope.scripting', 'tqdm') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
        "vendiscope.CancelToken\n"
        "print('LOADED', 'vendiscope.core.base.jobs' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert "HEAVY []" in out.stdout and "LOADED True" in out.stdout


def test_the_lazy_names_and_their_errors(tmp_path: Path) -> None:
    import vendiscope as vs

    assert {"open", "create", "Project", "CancelToken", "VendiscopeError"} <= set(dir(vs))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        vs.nope  # noqa: B018
    with pytest.raises(vs.VendiscopeError):
        vs.open(tmp_path / "missing.vscope")
    with pytest.raises(TypeError, match="progress must be"):
        vs.open(tmp_path / "p.vscope", create=True, progress="yes")  # type: ignore[arg-type]
    with vs.create(tmp_path / "new.vscope") as p:
        assert p.datasets() == [] and repr(p).endswith("new.vscope>")
        with pytest.raises(vs.VendiscopeError, match="no-such"):
            p.stats("no-such")
        # coverage's threshold is a similarity: min_similarity=, as --min-similarity; the old
        # radius= still works, with a warning (both checked before any work)
        out_of_range = r"minimum similarity \(--min-similarity\) must be a cosine similarity"
        with pytest.raises(vs.VendiscopeError, match=out_of_range):
            p.report("no-such", tmp_path / "r.html", target="x", min_similarity=1.5)
        with (
            pytest.warns(FutureWarning, match="not a radius; use min_similarity=1.5"),
            pytest.raises(vs.VendiscopeError, match=out_of_range),
        ):
            p.report("no-such", tmp_path / "r.html", target="x", radius=1.5)
    with pytest.raises(vs.VendiscopeError):
        vs.create(tmp_path / "new.vscope")  # a project is never replaced


def test_progress_reaches_a_given_progress_object_and_ctrl_c_cancels(tmp_path: Path) -> None:
    import vendiscope as vs
    from vendiscope.core.base.jobs import RecordingProgress

    source = tmp_path / "rows.jsonl"
    source.write_text('{"prompt": "a?", "response": "b"}\n{"prompt": "c?", "response": "d"}\n')
    recording = RecordingProgress()
    with vs.open(tmp_path / "p.vscope", create=True, progress=recording) as p:
        assert p.import_file(source, name="rows").rows == 2
        assert recording.descriptions and recording.finished  # the core reported to it

        seen: list[vs.CancelToken] = []

        def interrupted(store: Any, *args: Any, cancel: Any, **kwargs: Any) -> None:
            seen.append(cancel)
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            p._run(interrupted, progress=False, cancel=None)
        assert seen[0].cancelled  # worker threads of the step see the cancel


def test_tqdm_bars_follow_the_core_progress_calls(capsys: Any) -> None:
    from vendiscope.scripting import TqdmProgress

    bar = TqdmProgress(disable=False, file=sys.stderr, mininterval=0)
    bar.start("Embedding train", total=None, unit="records")
    bar.update(3, total=10)
    bar.update(10)
    bar.start("Second step", total=2)  # closes the first bar
    bar.update(2)
    bar.finish()
    bar.finish()  # twice is harmless
    err = capsys.readouterr().err
    assert "Embedding train" in err and "10/10" in err and "Second step" in err


PROGRESS_TO_A_LOG = """
import sys
from pathlib import Path
import vendiscope as vs
from tests.core._planted import planted_dataset

folder = Path(sys.argv[1])
source = folder / "rows.jsonl"
source.write_text("".join(f'{{"prompt": "q{i}?", "response": "a{i}"}}\\n' for i in range(50)))
with vs.create(folder / "p.vscope") as p:  # the default: progress bars
    p.import_file(source, name="rows")
    planted_dataset(p.store, folder)
    p.score("pool")  # a step that counts nothing
    p.select("pool", k=5)
"""


@pytest.mark.slow
def test_progress_written_to_a_log_is_lines_without_invented_rates(tmp_path: Path) -> None:
    """`python script.py 2> log`: every step a line or two, no carriage-return redraws,
    no `?it/s` or `0it` for what was not measured or counted."""
    log = tmp_path / "log.txt"
    with log.open("w", encoding="utf-8") as file:
        subprocess.run([sys.executable, "-c", PROGRESS_TO_A_LOG, tmp_path], stderr=file,
                       stdin=subprocess.DEVNULL, check=True,
                       cwd=Path(__file__).resolve().parents[1])  # fmt: skip
    assert b"\r" not in log.read_bytes()  # (reading text would turn "\r" into "\n")
    written = log.read_text(encoding="utf-8")
    assert "?it/s" not in written and "0it" not in written
    lines = written.splitlines()
    assert any(re.fullmatch(r"Importing rows.jsonl: .*kB/.*kB \(100%\) \[.*\]", x) for x in lines)
    assert any(re.fullmatch(r"Scoring pool \(gvendi on .*\) \[\d\d:\d\d\]", x) for x in lines)
    assert any(re.fullmatch(r"greedy Vendi.*: 5/5 picks \(100%\) \[.*\]", x) for x in lines)


@pytest.mark.slow
def test_the_bundled_proxy_model_loads_without_bars_in_a_log(tmp_path: Path) -> None:
    """De-quantising the bundled GGUF (once, into the cache) drew three tqdm bars of
    transformers' on stderr, carriage returns and all, into a gradients job's log."""
    load = (
        "import sys\nfrom pathlib import Path\n"
        "from vendiscope.core.gradients.proxy import load_proxy\n"
        "load_proxy(None, cache_dir=Path(sys.argv[1]))\n"
    )
    log = tmp_path / "log.txt"
    with log.open("w", encoding="utf-8") as file:
        subprocess.run([sys.executable, "-c", load, tmp_path / "cache"], stderr=file,
                       stdin=subprocess.DEVNULL, check=True)  # fmt: skip
    assert list((tmp_path / "cache").iterdir())  # it was de-quantised, not found cached
    assert b"\r" not in log.read_bytes()
    written = log.read_text(encoding="utf-8")
    assert "GGUF tensors" not in written and "it/s" not in written


def test_score_takes_a_subset_or_a_list_of_them(tmp_path: Path) -> None:
    import vendiscope as vs
    from tests.core._planted import planted_dataset
    from vendiscope.core.store import subsets

    with vs.create(tmp_path / "p.vscope", progress=False) as p:
        planted_dataset(p.store, tmp_path)
        subsets.from_positions(p.store, "pool", "head", range(100))
        subsets.from_positions(p.store, "pool", "tail", range(878, 978))
        one = p.score("pool", subset="head", vs_random=True, random_draws=5, random_seed=2)
        assert one.subset == "head" and one.n == 100 and one.vs_random["seed"] == 2
        assert one.vs_random["draws"] == 5
        # vs_random is the CLI's --vs-random flag; the draws default as `score` does
        assert p.score("pool", subset="head", vs_random=True).vs_random["draws"] == 20
        with pytest.raises(vs.VendiscopeError, match=r"yes/no flag .* random_draws=N"):
            p.score("pool", subset="head", vs_random=5)  # type: ignore[arg-type]
        both = p.score("pool", subset=["head", "tail"], bootstrap=5)
        assert [r.subset for r in both] == ["head", "tail"] and both[0].value == one.value
        assert all(r.details["ci"] is not None and r.vs_random is None for r in both)
        assert p.score("pool").subset is None
        runs = len(p.store.runs("pool"))
        unknown = r"no subset named 'nope' \(subsets: head, tail\)"
        with pytest.raises(vs.VendiscopeError, match=unknown):
            p.score("pool", subset=["tail", "nope"])
        assert len(p.store.runs("pool")) == runs  # not even "tail" was scored


def test_tradeoff_compares_quality_strengths_and_writes_nothing(tmp_path: Path) -> None:
    import numpy as np

    import vendiscope as vs
    from tests.core._planted import planted_dataset

    with vs.create(tmp_path / "p.vscope", progress=False) as p:
        planted_dataset(p.store, tmp_path)
        runs = len(p.store.runs("pool"))
        result = p.tradeoff("pool", 30, quality="rating", strengths=[2, 0, 1], exclude=())
        assert result.strengths == (0.0, 1.0, 2.0) and result.k == 30
        assert result.vector_set == "gradients/planted" and result.quality == "rating"
        assert p.subsets("pool") == [] and len(p.store.runs("pool")) == runs  # nothing written
        plain = p.select("pool", 30)
        weighted = p.select("pool", 30, quality="rating", name="weighted")
        assert list(result.point(0).positions) == plain.positions
        assert list(result.point(1).positions) == weighted.positions
        ratings = np.array([r.original()["rating"] for r in p.store.iter_records("pool")])
        for point in result.points:
            assert point.mean_quality == pytest.approx(ratings[list(point.positions)].mean())
        assert result.point(2).mean_quality >= result.point(0).mean_quality
        with pytest.raises(KeyError, match=r"no point of strength 3 \(strengths: 0, 1, 2\)"):
            result.point(3)


@pytest.mark.slow
@pytest.mark.usefixtures("one_torch_thread")
def test_study_and_its_estimate(synthesis_project: Path, tmp_path: Path, tiny_lm: Path) -> None:
    import vendiscope as vs
    from tests.conftest import demo_rows, write_jsonl

    target = write_jsonl(tmp_path / "target.jsonl", demo_rows(300, 308))
    trainer = {"model": str(tiny_lm), "steps": 2, "batch_size": 2, "device": "cpu"}
    settings = {"size": 5, "random": 3, "seeds": 2, "pilot": 2, "trainer_params": trainer}
    with vs.open(synthesis_project, progress=False) as p:
        p.import_file(target, "held-out")
        estimate = p.estimate_study("pool", "held-out", **settings)
        assert estimate.runs == 6 and estimate.plan == "3 subsets of 5 rows: 3 random"
        report = p.study("pool", "held-out", metrics=["ngram"], force=True, **settings)
        assert report.runs_done == report.runs_total == 6 and report.stopped == "done"
        assert report.analysis is not None
        assert [e["metric"] for e in report.analysis["improvement"]["evidence"]] == ["ngram"]
        again = p.study("pool", "held-out", metrics=["ngram"], force=True, **settings)
        assert again.run_id == report.run_id and again.resumed_from == 6  # nothing retrained
        assert again.analysis == report.analysis
