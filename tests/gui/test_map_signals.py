"""Colouring the map by a curation signal: a flag as raised / not raised, a number as a
scale whose legend states its range, a label by its commonest values (the demo project with
its signals computed once)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.gui.conftest import open_project, screenshot
from vendiscope.core.store.migrate import copy_project
from vendiscope.gui.map import data as map_data
from vendiscope.gui.map.data import NO_LABEL, NOT_RAISED, colouring_of


@pytest.fixture(scope="module")
def signals_template(demo_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project (it has a map) with text-stats, language and lexical-dups computed."""
    import vendiscope as vs

    path = copy_project(demo_template, tmp_path_factory.mktemp("signals") / "demo.vscope")
    with vs.open(path, progress=False) as project:
        project.signals("demo", ["text-stats", "language", "lexical-dups"])
        project.store.wal_checkpoint()
    return path


@pytest.fixture
def signals_project(signals_template: Path, tmp_path: Path) -> Path:
    return copy_project(signals_template, tmp_path / "demo.vscope")


def signal_values(path: Path) -> dict:
    import vendiscope as vs

    with vs.open(path, progress=False) as project:
        return project.signal_values("demo")


def test_colourings_of_a_flag_a_number_and_a_label(signals_template: Path) -> None:
    from vendiscope.core.store.project import Project

    values = signal_values(signals_template)
    with Project.open(signals_template) as project:
        choices = map_data.choices_of(project, "demo")
        flag = colouring_of(project, "demo", "signal", "low-quality")
        number = colouring_of(project, "demo", "signal", "words")
        label = colouring_of(project, "demo", "signal", "language")
        with pytest.raises(Exception, match="no signal column 'nothing'"):
            colouring_of(project, "demo", "signal", "nothing")

    assert ("low-quality", "flag") in choices.signals and ("words", "number") in choices.signals
    assert ("language", "label") in choices.signals
    assert len({key for key, _ in choices.signals}) == len(choices.signals)  # each column once

    raised = values["low-quality"].values > 0
    assert flag.categorical and np.array_equal(flag.codes, raised.astype(np.int32))
    assert flag.names == [NOT_RAISED, "low-quality raised"]
    assert flag.counts == [int((~raised).sum()), int(raised.sum())]

    words = values["words"].values
    assert not number.categorical and np.allclose(number.values, words)
    assert number.low == pytest.approx(np.percentile(words, 1), rel=1e-4)
    assert number.high == pytest.approx(np.percentile(words, 99), rel=1e-4)
    assert number.title == f"words: {words.min():.3g} to {words.max():.3g}"  # the whole range

    labels = [text or NO_LABEL for text in values["language"].labels()]
    assert [label.names[code] for code in label.codes] == labels  # fewer than 20: each its own
    assert label.names[0] == max(set(labels), key=labels.count)  # commonest first
    assert label.counts == [labels.count(name) for name in label.names]


def test_a_label_keeps_its_commonest_values_and_the_rest_as_other(
    signals_template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vendiscope.core.store.project import Project

    monkeypatch.setattr(map_data, "MAX_CATEGORIES", 4)
    labels = [text or NO_LABEL for text in signal_values(signals_template)["language"].labels()]
    with Project.open(signals_template) as project:
        label = colouring_of(project, "demo", "signal", "language")
    ranked = sorted(set(labels), key=lambda name: -labels.count(name))
    kept = label.names[:3]
    assert [labels.count(name) for name in kept] == sorted(
        (labels.count(name) for name in ranked), reverse=True
    )[:3]  # the three commonest
    assert label.names[3] == f"(other languages: {len(ranked) - 3})"
    assert label.counts[3] == sum(1 for name in labels if name not in kept)
    decoded = [label.names[code] for code in label.codes]
    assert all(d == t if t in kept else d == label.names[3]
               for d, t in zip(decoded, labels, strict=True))  # fmt: skip


def test_a_number_with_values_that_do_not_apply(signals_template: Path, tmp_path: Path) -> None:
    """NaN (the value does not apply) is grey on the map and counted in the legend's title."""
    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project

    path = copy_project(signals_template, tmp_path / "nan.vscope")
    with Project.open(path) as project:
        matrix = vectors.load(project, "demo", "signals/text-stats").copy()
        info = vectors.get_set(project, "demo", "signals/text-stats")
        columns = [c["name"] for c in info.params["columns"]]
        matrix[:5, columns.index("mean-word-length")] = np.nan
        vectors.delete_set(project, "demo", info.name)
        vectors.write_matrix(project, "demo", info.name, matrix, kind=info.kind,
                             model=info.model, params=info.params, run_id=info.run_id)  # fmt: skip
        colouring = colouring_of(project, "demo", "signal", "mean-word-length")
    assert np.isnan(colouring.values[:5]).all()
    assert colouring.title.endswith(", 5 not applicable")


def test_the_map_view_offers_and_draws_signal_colourings(
    qtbot, window, signals_project: Path
) -> None:
    from vendiscope.gui.map.view import MapView

    open_project(qtbot, window, signals_project)
    view = window.open_view("map", "demo")
    assert isinstance(view, MapView)
    qtbot.waitUntil(lambda: view.map is not None and view.colouring is not None, timeout=20_000)
    offered = [view.colour_combo.itemData(i) for i in range(view.colour_combo.count())]
    assert ("signal", "low-quality") in offered and ("signal", "language") in offered

    assert view.set_colour("signal", "low-quality")
    qtbot.waitUntil(lambda: view.colouring.key == "low-quality", timeout=20_000)
    assert view.legend_stack.currentWidget() is view.legend
    rows = [view.legend.item(r).text() for r in range(view.legend.count())]
    raised = int((signal_values(signals_project)["low-quality"].values > 0).sum())
    assert rows[0] == f"low-quality raised  ·  {raised:,}"  # the raised records first
    assert view.colours[1] != view.colours[0]  # raised in a strong colour, the rest grey
    screenshot(window, "map-signal-flag")

    assert view.set_colour("signal", "words")
    qtbot.waitUntil(lambda: view.colouring.key == "words", timeout=20_000)
    assert view.legend_stack.currentWidget() is view.colour_bar
    assert view.colour_bar.title.startswith("words: ")
    assert view.colour_bar.low == pytest.approx(view.colouring.low)
    window.grab().save("/tmp/shots/map_number.png") if Path("/tmp/shots").is_dir() else None

    assert view.set_colour("signal", "language")
    qtbot.waitUntil(lambda: view.colouring.key == "language", timeout=20_000)
    assert view.legend.count() == len(view.colouring.names)
    window.grab().save("/tmp/shots/map_label.png") if Path("/tmp/shots").is_dir() else None
