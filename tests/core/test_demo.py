"""The bundled demo dataset: reproducible from its script, with the structure it promises."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from vendiscope.core.demo import DEMO_DATASET, DEMO_FILE, ensure_demo_project
from vendiscope.core.project import Project

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "make_demo.py"


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
