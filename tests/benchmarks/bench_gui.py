"""Desktop app responsiveness: first window, deep scrolling, event-loop stalls during a job.

Run from the repository root (on a machine without a display, Qt's offscreen platform):

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_gui.py [--rows N]

1. **Time to first painted window**: a fresh ``python -c`` process that creates the app and
   the main window on a project; measured from just before the process starts to the line
   it prints from the window's first paint event (median of 5). Target: < 2 s. Compared
   with a bare ``python -c "import PySide6.QtWidgets"`` window in the same run.
2. **Deep scroll**: the records table of an N-record project (default 1,000,000) scrolled to
   row 900,000 (and other far rows, pages not cached) and repainted synchronously.
   Target: < 200 ms per jump.
3. **The map at N points** (default 1,000,000): a 2-D map stored in the N-record project (40
   clusters of points, as UMAP draws them), opened in the real map view: the time to the first
   painted map (reading the map from the project included), the time until it is coloured by
   source, then the repaint after each of 20 pans and 20 zooms (range change + synchronous
   repaint) while the whole cloud is in view (density raster) and while zoomed in (points).
   Target: median repaint < 100 ms.
4. **Event-loop latency during an embedding job**: a QTimer ticks every 10 ms on the GUI
   thread while the real MiniLM embedding job runs, first in its own process (as the app
   runs model jobs), then on a worker thread of this process (torch imported by the worker);
   the stall is the longest gap between ticks minus 10 ms. Target: < 100 ms.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tests.benchmarks._common import RESULTS, save  # noqa: E402

FIRST_PAINT = """
import sys
from PySide6.QtCore import QEvent, QObject, QTimer
from vendiscope.gui.app import create_app, create_window
app = create_app(["vendiscope"])
window = create_window(sys.argv[1] if len(sys.argv) > 1 else None)
class Painted(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            print("PAINTED", flush=True)
            QTimer.singleShot(0, app.quit)
        return False
spy = Painted()
window.installEventFilter(spy)
window.show()
app.exec()
"""

BARE_PAINT = """
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication(["bare"])
window = QLabel("hello")
class Painted(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            print("PAINTED", flush=True)
            QTimer.singleShot(0, app.quit)
        return False
spy = Painted()
window.installEventFilter(spy)
window.show()
app.exec()
"""


def time_to_paint(code: str, *args: str, repeats: int = 5) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-c", code, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=ROOT,
        )
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith("PAINTED"):
                samples.append(time.perf_counter() - started)
                break
        process.wait(timeout=60)
    return statistics.median(samples)


def build_project(path: Path, rows: int) -> Path:
    """An N-record prompt/response project (kept between runs: it takes a while)."""
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.store.project import Project

    if path.exists():
        return path
    data = path.with_suffix(".jsonl")
    with data.open("wb") as handle:
        for i in range(rows):
            row = {
                "prompt": f"Question {i}: what is {i % 97} times {i % 89}?",
                "response": f"{(i % 97) * (i % 89)}",
                "source": f"s{i % 7}",
            }
            handle.write(orjson.dumps(row) + b"\n")
    building = path.with_name(path.name + ".building")
    building.unlink(missing_ok=True)
    with Project.create(building) as project:
        import_dataset(project, data, name="bench")
    building.rename(path)
    data.unlink()
    return path


def deep_scroll(project: Path, rows: int) -> dict[str, float]:
    from PySide6.QtWidgets import QApplication

    from vendiscope.gui.app import create_app
    from vendiscope.gui.records.view import RecordsView
    from vendiscope.gui.windows.document import ProjectDocument

    app = create_app()
    document = ProjectDocument()
    document.open(str(project))
    view = RecordsView(document, "bench")
    view.resize(1100, 700)
    view.show()
    for _ in range(20):
        QApplication.processEvents()
    targets = [r for r in (900_000, 450_000, rows - 1, 123_456, 777_777) if r < rows]
    timings = {}
    for row in targets:
        started = time.perf_counter()
        view.table.scrollTo(view.model.index(row, 1))
        view.table.viewport().repaint()
        QApplication.processEvents()
        timings[row] = time.perf_counter() - started
        assert view.model.record(row).seq == row
    from PySide6.QtCore import QThreadPool

    QThreadPool.globalInstance().waitForDone(10_000)
    view.close()
    document.close()
    del app
    return {str(k): v for k, v in timings.items()}


def ensure_map(project: Path, rows: int) -> None:
    """A stored 2-D map of the benchmark dataset: 40 blobs of very different sizes."""
    import numpy as np

    from vendiscope.core.maps.jobs import latest_map
    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        if latest_map(opened, "bench") is not None:
            return
        rng = np.random.default_rng(0)
        centres = rng.uniform(-12, 12, size=(40, 2))
        weights = rng.pareto(1.2, size=40) + 0.05
        labels = rng.choice(40, size=rows, p=weights / weights.sum())
        spread = rng.uniform(0.2, 1.2, size=40)[labels, None]
        coords = (centres[labels] + spread * rng.normal(size=(rows, 2))).astype(np.float32)
        vectors.write_matrix(opened, "bench", "map/umap/bench", coords, kind="projection",
                             model="benchmark", params={"method": "umap"})  # fmt: skip


def map_at_scale(project: Path, rows: int) -> dict[str, object]:
    """First paint and repaints of the map view on an N-point map (see the module docstring)."""
    from PySide6.QtCore import QPointF, QRectF, QThreadPool
    from PySide6.QtWidgets import QApplication

    from vendiscope.gui.app import create_app
    from vendiscope.gui.map.view import MapView
    from vendiscope.gui.windows.document import ProjectDocument

    ensure_map(project, rows)
    app = create_app()
    document = ProjectDocument()
    document.open(str(project))

    def until(condition, timeout: float = 120.0) -> None:
        deadline = time.perf_counter() + timeout
        while not condition():
            QApplication.processEvents()
            time.sleep(0.001)
            if time.perf_counter() > deadline:
                raise TimeoutError("the map view did not answer in time")

    started = time.perf_counter()
    view = MapView(document, "bench")
    view.resize(1280, 760)
    view.show()
    until(lambda: view.map is not None)
    viewport = view.canvas.plot.viewport()
    viewport.repaint()
    first_paint = time.perf_counter() - started
    first_render_ms = view.canvas.cloud.stats.ms
    until(lambda: view.colouring is not None)
    view.set_colour("source")
    until(lambda: view.colouring is not None and view.colouring.by == "source")
    viewport.repaint()
    coloured = time.perf_counter() - started
    box = view.canvas.viewbox

    def timed(change) -> tuple[float, str, int]:
        began = time.perf_counter()
        change()
        QApplication.processEvents()
        viewport.repaint()
        stats = view.canvas.cloud.stats
        return (time.perf_counter() - began) * 1000, stats.mode, stats.visible

    samples: dict[str, list[tuple[float, str, int]]] = {"pan": [], "zoom": []}
    for step in range(20):  # whole cloud in view: the density raster
        samples["pan"].append(timed(lambda s=step: box.translateBy(x=0.4 if s % 2 else -0.4)))
        samples["zoom"].append(
            timed(lambda s=step: box.scaleBy((0.93, 0.93) if s % 2 else (1 / 0.93, 1 / 0.93)))
        )
    centre = QPointF(*[float(v) for v in view.map.coords[0]])
    box.setRange(rect=QRectF(centre.x() - 0.15, centre.y() - 0.1, 0.3, 0.2), padding=0)
    QApplication.processEvents()
    samples["pan_zoomed_in"], samples["zoom_zoomed_in"] = [], []
    for step in range(20):  # zoomed in: the points themselves
        samples["pan_zoomed_in"].append(
            timed(lambda s=step: box.translateBy(x=0.02 if s % 2 else -0.02))
        )
        samples["zoom_zoomed_in"].append(
            timed(lambda s=step: box.scaleBy((0.95, 0.95) if s % 2 else (1 / 0.95, 1 / 0.95)))
        )
    hover = []
    for index in range(0, rows, max(1, rows // 20)):
        point = QPointF(*[float(v) for v in view.map.coords[index]])
        began = time.perf_counter()
        view.canvas.hover_at(point)
        hover.append((time.perf_counter() - began) * 1000)
    QThreadPool.globalInstance().waitForDone(10_000)
    view.close()
    document.close()
    del app
    out: dict[str, object] = {
        "points": rows,
        "first_paint_s": round(first_paint, 3),
        "first_render_ms": round(first_render_ms, 1),
        "coloured_by_source_s": round(coloured, 3),
        "hover_median_ms": round(statistics.median(hover), 2),
    }
    for name, found in samples.items():
        times = [t for t, _, _ in found]
        out[f"{name}_repaint_median_ms"] = round(statistics.median(times), 1)
        out[f"{name}_repaint_max_ms"] = round(max(times), 1)
        out[f"{name}_mode"] = sorted({m for _, m, _ in found})
        out[f"{name}_visible_points"] = [min(v for _, _, v in found), max(v for _, _, v in found)]
    return out


def event_loop_latency(project: Path, *, in_child_process: bool) -> dict[str, float]:
    """Tick a 10 ms timer while the real embedding job runs; report the gaps.

    ``in_child_process``: the job runs in its own process, as the app runs model jobs; otherwise
    on a worker thread of this process (torch then loads here).
    """
    from PySide6.QtCore import QElapsedTimer, QTimer
    from PySide6.QtWidgets import QApplication

    from vendiscope.gui.app import create_app
    from vendiscope.gui.jobs import tasks
    from vendiscope.gui.jobs.manager import JobManager

    assert "torch" not in sys.modules, "torch must be imported by the job, not before"
    app = create_app()
    manager = JobManager(run_in_child_process=in_child_process)
    clock = QElapsedTimer()
    clock.start()
    ticks: list[int] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(clock.elapsed()))
    phases: dict[str, int] = {}
    job = manager.submit("bench", tasks.embed, str(project), "demo")
    job.changed.connect(
        lambda: (
            phases.setdefault("first_progress_ms", clock.elapsed())
            if job.status.completed > 0
            else None
        )
    )
    timer.start()
    done: list[bool] = []
    job.finished.connect(lambda _job: done.append(True))
    while not done:
        QApplication.processEvents()
        time.sleep(0.001)
    timer.stop()
    assert job.result is not None, job.error_details
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    first = phases.get("first_progress_ms", 0)
    before = [b - a for a, b in itertools.pairwise(ticks) if b <= first]
    after = [b - a for a, b in itertools.pairwise(ticks) if a >= first]
    del app
    return {
        "job_seconds": clock.elapsed() / 1000,
        "ticks": len(ticks),
        "max_stall_ms": max(gaps) - 10,
        "p99_gap_ms": statistics.quantiles(gaps, n=100)[98],
        "median_gap_ms": statistics.median(gaps),
        "max_stall_loading_model_ms": (max(before) - 10) if before else None,
        "max_stall_embedding_ms": (max(after) - 10) if after else None,
        "gaps_over_100ms": sum(1 for g in gaps if g > 110),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "vs-bench")
    parser.add_argument(
        "--parts",
        default="paint,scroll,map,latency",
        help="comma-separated: paint, scroll, map, latency",
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    args.cache.mkdir(parents=True, exist_ok=True)

    from vendiscope.core.io.demo import ensure_demo_project

    demo = ensure_demo_project(args.cache / "demo.vscope")
    platform = os.environ["QT_QPA_PLATFORM"]
    results: dict[str, object] = {"platform": platform}
    previous = RESULTS / f"gui_{platform}.json"
    if parts != {"paint", "scroll", "map", "latency"} and previous.exists():
        results = {**json.loads(previous.read_text()), **results}  # keep the parts not rerun
    if "paint" in parts:
        results["bare_qt_first_paint_s"] = time_to_paint(BARE_PAINT)
        results["first_paint_start_page_s"] = time_to_paint(FIRST_PAINT)
        results["first_paint_with_project_s"] = time_to_paint(FIRST_PAINT, str(demo))
        print({k: round(v, 3) for k, v in results.items() if isinstance(v, float)}, flush=True)
    if "scroll" in parts:
        started = time.perf_counter()
        big = build_project(args.cache / f"records-{args.rows}.vscope", args.rows)
        results["build_project_s"] = time.perf_counter() - started
        scroll = deep_scroll(big, args.rows)
        results["deep_scroll_s"] = scroll
        results["deep_scroll_max_s"] = max(scroll.values())
        print({"deep_scroll_s": {k: round(v, 4) for k, v in scroll.items()}}, flush=True)
    if "map" in parts:
        big = build_project(args.cache / f"records-{args.rows}.vscope", args.rows)
        found = map_at_scale(big, args.rows)
        results["map"] = found
        print({"map": found}, flush=True)
    if "latency" in parts:
        for mode, in_child in (("process", True), ("thread", False)):  # thread last: torch
            embed_copy = args.cache / f"embed-latency-{mode}.vscope"
            embed_copy.unlink(missing_ok=True)
            embed_copy.write_bytes(demo.read_bytes())
            found = event_loop_latency(embed_copy, in_child_process=in_child)
            results[f"event_loop_during_embedding_{mode}"] = found
            print(mode, found, flush=True)
    print(f"saved {save(f'gui_{platform}', results)}")


if __name__ == "__main__":
    main()
