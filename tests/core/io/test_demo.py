"""The bundled demo dataset: reproducible from its script, with the structure it promises."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from vendiscope.core.io.demo import DEMO_DATASET, DEMO_FILE, ensure_demo_project
from vendiscope.core.store.project import Project

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "make_demo.py"


def load_script():
    spec = importlib.util.spec_from_file_location("make_demo", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_file_is_what_the_script_writes() -> None:
    script = load_script()
    records = script.build()
    expected = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    assert DEMO_FILE.read_text(encoding="utf-8") == expected
    assert script.build() == records


def test_demo_project_shows_the_planted_structure(tmp_path: Path) -> None:
    location = ensure_demo_project(tmp_path / "demo.vscope")
    with Project.open(location) as project:
        stats = project.stats(DEMO_DATASET)
        info = project.dataset(DEMO_DATASET)
    assert info.field_mapping["detected"] == "prompt/response"
    assert stats["exact_duplicates"] == load_script().EXACT_DUPLICATES
    sources = stats["sources"]
    assert set(sources) == {"arithmetic", "code", "nli", "trivia", "summarization", "poetry"}
    assert max(sources, key=sources.get) == "arithmetic"
    assert min(sources, key=sources.get) == "poetry"
    assert sources["arithmetic"] > 10 * sources["poetry"]


def test_demo_project_opens_with_its_analysis_computed(tmp_path: Path) -> None:
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.store import subsets, vectors

    location = ensure_demo_project(tmp_path / "demo.vscope")
    assert not list(tmp_path.glob("*.building*"))
    raw = location.read_bytes()
    for machine_path in (b"/tmp/", b"/home/", b"/work/", b"/root/"):
        assert machine_path not in raw  # the project speaks only of itself
    with Project.open(location) as project:
        assert project.integrity_check() == "ok"
        runs = project.runs(DEMO_DATASET)
        assert runs and all(r.status == "complete" for r in runs)
        kinds = {r.kind for r in runs}
        assert {"import", "embedding", "gradient", "metric", "near-duplicates", "clusters",
                "projection", "selection"} <= kinds  # fmt: skip
        sets = {s.kind for s in vectors.list_sets(project, DEMO_DATASET)}
        assert {"embedding", "gradient", "score", "cluster", "projection"} <= sets
        n = project.dataset(DEMO_DATASET).row_count
        chosen = {r.result["method"]: r.result for r in runs if r.kind == "selection"}
        assert {"greedy-vendi", "random"} <= set(chosen)
        greedy = chosen["greedy-vendi"]
        assert greedy["vendi"]["gradients/fast"] > chosen["random"]["vendi"]["gradients/fast"]
        assert subsets.members(project, DEMO_DATASET, greedy["subset"]).positions
        # the records are exactly the bundled dataset's
        import_dataset(project, DEMO_FILE, name="fresh")
        fresh = [r.content_hash for r in project.iter_records("fresh")]
        assert [r.content_hash for r in project.iter_records(DEMO_DATASET)] == fresh
        assert len(fresh) == n
