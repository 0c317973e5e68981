"""Every writer follows one rule (vendiscope.core.base.atomic): nothing that was there is destroyed.

Each refusal is tried through a real writer (export, report, image, bad-row report), with
real files, folders, links, pipes and devices; a killed export is cleaned up by the next one.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import qa_rows, table_counts, write_jsonl
from vendiscope.core.base.atomic import atomic_paths, current_umask, remove_stale_temporaries
from vendiscope.core.base.errors import ExportError
from vendiscope.core.io.exporting import export_dataset
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store.project import Project
from vendiscope.core.view_data.render import save_chart


@pytest.fixture
def filled(project: Project, tmp_path: Path) -> Project:
    import_dataset(project, write_jsonl(tmp_path / "in.jsonl", qa_rows(30)), name="d")
    return project


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_force_never_replaces_a_folder_with_a_file(filled: Project, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "thesis.tex").write_text("years of work")
    with pytest.raises(ExportError, match="is a folder; Vendiscope never replaces a folder"):
        export_dataset(filled, "d", victim, format="jsonl", force=True)
    assert (victim / "thesis.tex").read_text() == "years of work"
    chart = {"kind": "bars", "title": "t", "x": ["a"], "series": [{"name": "n", "values": [1]}]}
    with pytest.raises(ExportError, match="is a folder"):
        save_chart(chart, victim.with_suffix(".png").parent / "victim", format="png", force=True)
    assert listing(victim) == ["thesis.tex"]


@pytest.mark.parametrize("member", ["", "-wal", "-shm"])
def test_force_never_writes_onto_the_project(filled: Project, member: str) -> None:
    target = Path(filled.location + member)
    before = table_counts(Path(filled.location))
    with pytest.raises(ExportError, match="is a Vendiscope project file"):
        export_dataset(filled, "d", target, format="jsonl", force=True)
    assert table_counts(Path(filled.location)) == before
    assert filled.integrity_check() == "ok"


def test_an_open_project_under_another_name_is_protected(tmp_path: Path) -> None:
    location = tmp_path / "audit.db"
    with Project.create(location) as project:
        import_dataset(project, write_jsonl(tmp_path / "in.jsonl", qa_rows(5)), name="d")
        with pytest.raises(ExportError, match="project file"):
            export_dataset(project, "d", location, format="jsonl", force=True)
        assert project.integrity_check() == "ok"


def test_bad_row_report_never_overwrites_the_input_or_a_chosen_file(
    project: Project, tmp_path: Path
) -> None:
    data = tmp_path / "in.jsonl"
    data.write_text('{"question": "q", "answer": "a"}\nnot json\n')
    original = data.read_bytes()
    with pytest.raises(ExportError, match="is an input of this command"):
        import_dataset(project, data, skip_bad=True, bad_report=data)
    assert data.read_bytes() == original
    chosen = tmp_path / "keep.txt"
    chosen.write_text("mine")
    with pytest.raises(ExportError, match="already exists \\(choose another path\\)"):
        import_dataset(project, data, skip_bad=True, bad_report=chosen)
    folder = tmp_path / "reports"
    folder.mkdir()
    with pytest.raises(ExportError, match="is a folder"):
        import_dataset(project, data, skip_bad=True, bad_report=folder)
    assert chosen.read_text() == "mine" and folder.is_dir()
    assert project.datasets() == []  # refused before anything was imported
    result = import_dataset(project, data, skip_bad=True)  # the default report may be replaced
    assert result.bad_report == tmp_path / "in.jsonl.bad-rows.jsonl"


def test_only_regular_files_are_replaced(filled: Project, tmp_path: Path) -> None:
    pipe = tmp_path / "pipe.jsonl"
    os.mkfifo(pipe)
    with pytest.raises(ExportError, match="is a named pipe, not a regular file"):
        export_dataset(filled, "d", pipe, force=True)
    link = tmp_path / "link.jsonl"
    link.symlink_to(tmp_path / "in.jsonl")
    with pytest.raises(ExportError, match="is a symbolic link"):
        export_dataset(filled, "d", link, force=True)
    assert link.is_symlink()
    with pytest.raises(ExportError, match="is a device"):
        export_dataset(filled, "d", Path("/dev/null"), format="jsonl", force=True)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_folder_export_replaces_only_its_own_earlier_export(
    filled: Project, tmp_path: Path
) -> None:
    out = tmp_path / "hf"
    export_dataset(filled, "d", out, format="hf-disk")
    export_dataset(filled, "d", out, format="hf-disk", force=True)  # its own: replaced
    stranger = tmp_path / "other"
    stranger.mkdir()
    (stranger / "notes.txt").write_text("keep")
    with pytest.raises(ExportError, match="did not write"):
        export_dataset(filled, "d", stranger, format="hf-disk", force=True)
    assert listing(stranger) == ["notes.txt"]
    plain = tmp_path / "plain"
    plain.write_text("a file")
    with pytest.raises(ExportError, match="is a file, and this output is a folder"):
        export_dataset(filled, "d", plain, format="hf-disk", force=True)


def test_outputs_follow_the_umask(filled: Project, tmp_path: Path) -> None:
    previous = os.umask(0o027)
    try:
        assert current_umask() == 0o027
        result = export_dataset(filled, "d", tmp_path / "out.jsonl")
    finally:
        os.umask(previous)
    assert stat.S_IMODE(result.destination.stat().st_mode) == 0o640
    assert stat.S_IMODE(result.manifest.stat().st_mode) == 0o640


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_renames_a_killed_writer_started_are_finished(tmp_path: Path) -> None:
    """The state a writer leaves when killed between its two renames is completed."""
    data, manifest = tmp_path / "out.jsonl", tmp_path / "out.jsonl.manifest.json"
    pid = dead_pid()
    data.write_text("new data\n")  # the first rename happened
    pending = tmp_path / f".{manifest.name}.{pid}.abc.tmp"
    pending.write_text('{"new": true}')
    journal = tmp_path / f".{data.name}.{pid}.renames.tmp"
    journal.write_text(
        json.dumps([[str(tmp_path / ".gone.tmp"), str(data)], [str(pending), str(manifest)]])
    )
    remove_stale_temporaries(data)
    assert listing(tmp_path) == ["out.jsonl", "out.jsonl.manifest.json"]
    assert json.loads(manifest.read_text()) == {"new": True}


def test_both_outputs_or_neither(tmp_path: Path) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    with pytest.raises(RuntimeError), atomic_paths((first, False), (second, False)) as (a, b):
        a.write_text("a")
        raise RuntimeError("the second could not be made")
    assert listing(tmp_path) == []
    with atomic_paths((first, False), (second, False)) as (a, b):
        a.write_text("a")
        b.write_text("b")
    assert listing(tmp_path) == ["a.txt", "b.txt"]


KILLED_EXPORT = textwrap.dedent(
    """
    import sys, time
    from vendiscope.core.io.exporting import export_dataset
    from vendiscope.core.base.jobs import NullProgress
    from vendiscope.core.store.project import Project

    class Park(NullProgress):
        def update(self, completed, total=None):
            if completed >= 2000:
                print("writing", flush=True)
                time.sleep(60)

    with Project.open(sys.argv[1]) as project:
        export_dataset(project, "big", sys.argv[2], progress=Park())
    """
)


@pytest.mark.slow
def test_a_killed_export_leaves_nothing_that_the_next_one_does_not_remove(
    project: Project, tmp_path: Path
) -> None:
    import_dataset(project, write_jsonl(tmp_path / "big.jsonl", qa_rows(5000)), name="big")
    out = tmp_path / "out"
    out.mkdir()
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_EXPORT, project.location, str(out / "big.jsonl")],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "writing"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    left = listing(out)
    assert left and all(name.startswith(".big.jsonl.") for name in left)
    export_dataset(project, "big", out / "big.jsonl")
    assert listing(out) == ["big.jsonl", "big.jsonl.manifest.json"]
