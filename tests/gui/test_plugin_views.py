"""Views from plugins: the Views menu, one renderer for every chart kind, failures shown."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import numpy as np
import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMenu, QWidget

from tests.gui.conftest import ANALYSED, open_project, screenshot
from vendiscope.api import FromProject, Range
from vendiscope.core.vectors.missing import MissingVectors
from vendiscope.core.view_data.missing import Command, NotComputed
from vendiscope.gui.view_host.plugin_views import ChartTab
from vendiscope.gui.widgets.param_form import ParamDialog
from vendiscope.gui.windows.main_window import MainWindow

BUILT_IN_VIEWS = {
    "map", "cluster-coverage", "selection-curves", "spectrum", "composition", "coverage",
    "near-duplicates",
}  # fmt: skip


@pytest.fixture
def registry():
    """The built-in plugins plus the test views (histogram, heatmap and broken ones)."""
    from tests.gui import _views
    from vendiscope.core.plugin_host.registry import PluginRegistry
    from vendiscope.plugins import manifest as builtins

    found = PluginRegistry()
    found.add_manifest(builtins)
    found.add_manifest(_views.manifest())
    return found


def show(qtbot, window: MainWindow, name: str, **params) -> ChartTab:
    tab = window.plugin_views.open(name, ANALYSED, params=params, ask=False)
    assert tab is not None
    qtbot.waitUntil(lambda: tab.chart is not None or tab.error is not None, timeout=20_000)
    return tab


def test_the_views_menu_lists_every_view_plugin(qtbot, window: MainWindow, analysed_project):
    from vendiscope.core.plugin_host.registry import default_registry

    open_project(qtbot, window, analysed_project)
    menu: QMenu = window.actions_.views_menu
    window.plugin_views.fill_menu(menu)  # what opening the menu does
    listed = [a.data() for a in menu.actions() if a.data()]
    assert listed == [c.name for c in default_registry().contributions("view")]
    assert set(listed) >= BUILT_IN_VIEWS
    assert all(a.isEnabled() for a in menu.actions() if a.data())


@pytest.mark.slow
def test_one_renderer_draws_every_chart_kind(
    qtbot, window: MainWindow, analysed_project: Path, registry
) -> None:
    window.plugin_views.set_registry(registry)
    open_project(qtbot, window, analysed_project)

    scatter = show(qtbot, window, "map")  # built-in: the map as a scatter of records
    chart = scatter.chart
    assert chart["kind"] == "scatter" and scatter.error is None
    cloud = scatter.renderer.canvas.cloud
    series = chart["series"][0]
    assert np.allclose(cloud.x, series["x"]) and np.allclose(cloud.y, series["y"])
    names = {scatter.renderer.legend_list.item(i).text().split("  ·  ")[0]
             for i in range(scatter.renderer.legend_list.count())}  # fmt: skip
    assert names == set(series["category"])
    screenshot(window, "view-map")

    line = show(qtbot, window, "selection-curves")  # built-in: lines, the baseline dashed
    drawn = dict(line.renderer.items)
    for one in line.chart["series"]:
        xs, ys = drawn[one["name"]].getData()
        assert list(xs) == one["x"] and list(ys) == one["y"]
    assert "(random)" in drawn

    bars = show(qtbot, window, "cluster-coverage")  # built-in: grouped bars
    drawn = dict(bars.renderer.items)
    for one in bars.chart["series"]:
        assert list(drawn[one["name"]].opts["height"]) == one["y"]
    screenshot(window, "view-cluster-coverage")

    histogram = show(qtbot, window, "lengths", bins=8)
    values = histogram.chart["series"][0]["values"]
    xs, counts = dict(histogram.renderer.items)["prompt"].getData()
    expected, edges = np.histogram(values, bins=8)
    assert list(counts) == expected.tolist() and np.allclose(xs, edges)

    heatmap = show(qtbot, window, "grid")
    from tests.gui._views import HEATMAP_Z

    image = dict(heatmap.renderer.items)["grid"].image
    assert np.array_equal(image, np.array(HEATMAP_Z))
    assert heatmap.renderer.describe_at(heatmap.renderer.plot.getPlotItem().vb.mapSceneToView(
        heatmap.renderer.plot.getPlotItem().vb.mapViewToScene(_point(2.5, 1.5)))) == (
        "second × c: 6.5"  # noqa: RUF001
    )  # fmt: skip
    screenshot(window, "view-heatmap")


def _point(x: float, y: float):
    from PySide6.QtCore import QPointF

    return QPointF(x, y)


def test_a_view_with_parameters_asks_for_them_first(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    open_project(qtbot, window, analysed_project)
    seen: list[list[str]] = []

    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ParamDialog):
            QTimer.singleShot(20, answer)
            return
        seen.append(list(dialog.form.fields))
        dialog.form.set_value("color_by", "source")
        dialog.accept()

    QTimer.singleShot(20, answer)
    tab = window.plugin_views.open("map", ANALYSED)
    assert seen and seen[0][:2] == ["color_by", "score"]
    assert tab.params == {"color_by": "source"}
    qtbot.waitUntil(lambda: tab.chart is not None, timeout=20_000)
    assert set(tab.chart["series"][0]["category"]) == {"c0", "c1", "c2", "c3"}


def test_a_broken_view_shows_a_readable_error_not_a_crash(
    qtbot, window: MainWindow, analysed_project: Path, registry
) -> None:
    from vendiscope.gui.dialogs.error_dialog import ErrorDialog

    window.plugin_views.set_registry(registry)
    open_project(qtbot, window, analysed_project)
    crashing = show(qtbot, window, "crashing")
    assert crashing.pages.currentWidget() is crashing.error_page
    assert "divided by zero" in crashing.error_label.text()
    assert "view 'crashing'" in crashing.error_label.text()
    crashing.show_details()
    dialog = crashing.findChild(ErrorDialog, "viewErrorDialog")
    assert dialog is not None and "RuntimeError" in dialog.details
    dialog.reject()
    screenshot(window, "view-error")

    misshapen = show(qtbot, window, "misshapen")
    assert "chart schema" in misshapen.error_label.text()
    assert "chart.kind" in misshapen.error_label.text()
    assert any(  # recorded, so the Plugins window lists it as failed when run
        f.contribution == "misshapen" and f.stage == "run" for f in registry.failures
    )

    missing = show(qtbot, window, "missing")
    assert "failed to load" in missing.error_label.text()

    not_computed = show(qtbot, window, "near-duplicates")  # no near-duplicate run yet
    assert "not computed yet" in not_computed.error_label.text()
    assert not not_computed.fix_button.isHidden()
    assert not_computed.fix_button.property("step") == "near-duplicates"

    working = show(qtbot, window, "spectrum")  # the window carries on
    assert working.chart is not None and working.error is None


# --------------------------------------------------------------------------- the forms
def answer_dialog(qtbot, inspect, *, accept: bool = False) -> list:
    """Run ``inspect(dialog)`` on the next ParamDialog, then close it (reject unless told)."""
    seen: list = []

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ParamDialog):
            QTimer.singleShot(20, poll)
            return
        QApplication.processEvents()
        try:
            seen.append(inspect(dialog))
        except BaseException as exc:  # reported by the test, not lost in the event loop
            seen.append(exc)
        (dialog.accept if accept else dialog.reject)()

    QTimer.singleShot(20, poll)
    return seen


def form_texts(dialog: ParamDialog) -> list[str]:
    """Everything a user reads in the form: labels, help, tooltips, list entries."""
    from PySide6.QtWidgets import QComboBox, QLabel

    texts = [label.text() for label in dialog.findChildren(QLabel)]
    texts += [widget.toolTip() for widget in dialog.findChildren(QWidget)]
    for combo in dialog.findChildren(QComboBox):
        texts += [combo.itemText(i) for i in range(combo.count())]
    return [t for t in texts if t]


def assert_plain(dialog: ParamDialog) -> None:
    """No parameter names, command-line flags or Python expressions in the form."""
    specs = dialog.form.specs
    names = [s.name for s in specs if "_" in s.name]
    for text in form_texts(dialog):
        for word in ("data[", "--", "``", "==", "(--", "show=", "color_by"):
            assert word not in text, (word, text)
        for name in names:  # e.g. max_items, target_vector_set
            assert name not in text, (name, text)


def add_dataset(path: Path, name: str = "bench", n: int = 30) -> None:
    """A second dataset (the target a coverage view compares with)."""
    from tests.conftest import write_jsonl
    from tests.gui.conftest import tiny_rows
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.store.project import Project

    data = write_jsonl(path.with_name(f"{name}.jsonl"), tiny_rows(n))
    with Project.open(path) as project:
        import_dataset(project, data, name=name)


def combo_items(combo) -> list[tuple[str, object]]:
    return [(combo.itemText(i), combo.itemData(i)) for i in range(combo.count())]


def test_view_forms_offer_the_project_s_subsets_and_vector_sets(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    from PySide6.QtWidgets import QComboBox

    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project

    with Project.open(analysed_project) as project:
        subsets = [s.name for s in project.subsets(ANALYSED)]
        sets = {s.name: s.kind for s in vectors.complete_sets(project, ANALYSED)}
    assert subsets and "score" in sets.values() and "projection" in sets.values()
    add_dataset(analysed_project)  # a second dataset: still no target for the map
    open_project(qtbot, window, analysed_project)

    def inspect(dialog: ParamDialog) -> dict:
        assert dialog.findChild(QComboBox, "targetDataset") is None  # the map compares nothing
        fields = dialog.form.fields
        found = {}
        for name in ("subset", "score", "projection"):
            combo = fields[name]
            assert isinstance(combo, QComboBox) and not combo.isEditable(), name
            found[name] = combo_items(combo)
        for name, spec in ((s.name, s) for s in dialog.form.specs):
            assert dialog.form.helps[name].text() == spec.help.replace("``", ""), name
            assert dialog.form.helps[name].isVisible()
        assert_plain(dialog)
        dialog.form.set_value("color_by", "subset")
        dialog.form.set_value("subset", subsets[0])
        screenshot(dialog, "view-form-map")
        return found

    seen = answer_dialog(qtbot, inspect, accept=True)
    tab = window.plugin_views.open("map", ANALYSED)
    assert seen and not isinstance(seen[0], BaseException), seen
    found = seen[0]
    assert found["subset"][0] == ("(the latest selection's subset)", None)
    assert [v for _t, v in found["subset"][1:]] == subsets
    assert [v for _t, v in found["score"][1:]] == [n for n, k in sets.items() if k == "score"]
    assert [v for _t, v in found["projection"][1:]] == [
        n for n, k in sets.items() if k == "projection"
    ]
    assert all(str(v) in t for t, v in found["subset"][1:])  # "name  (60 records)"
    assert tab is not None and tab.params == {"color_by": "subset", "subset": subsets[0]}
    qtbot.waitUntil(lambda: tab.chart is not None, timeout=20_000)
    assert set(tab.chart["series"][0]["category"]) == {subsets[0], "(not in subset)"}
    assert "Subset: " + subsets[0] in tab.subtitle.text()
    assert "color_by" not in tab.subtitle.text()


def test_the_coverage_form_asks_for_a_target_and_lists_each_dataset_s_sets(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    from PySide6.QtWidgets import QComboBox

    add_dataset(analysed_project)
    open_project(qtbot, window, analysed_project)

    def inspect(dialog: ParamDialog) -> dict:
        target = dialog.findChild(QComboBox, "targetDataset")
        assert target is not None and target.isEnabled()
        assert target.currentData() == "bench"  # the only other dataset is chosen
        fields = dialog.form.fields
        out = {name: combo_items(fields[name])
               for name in ("vector_set", "target_vector_set", "train_subset")}  # fmt: skip
        for name in out:
            assert isinstance(fields[name], QComboBox), name
        labels = [dialog.form.labels[s.name].text() for s in dialog.form.specs]
        assert "Target vector set:" in labels and "Train subset:" in labels
        assert_plain(dialog)
        ok = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
        assert ok.isEnabled()
        screenshot(dialog, "view-form-coverage")
        target.setCurrentIndex(0)  # "(choose a dataset)": nothing to compare with
        out["blocked"] = (ok.isEnabled(), dialog.problem.text())
        target.setCurrentIndex(1)
        out["target_after"] = combo_items(fields["target_vector_set"])
        return out

    seen = answer_dialog(qtbot, inspect)
    assert window.plugin_views.open("coverage", ANALYSED) is None  # cancelled
    assert seen and not isinstance(seen[0], BaseException), seen
    found = seen[0]
    assert [v for _t, v in found["vector_set"]] == [None, "embeddings/planted"]
    assert found["vector_set"][0][0] == "(the latest embeddings)"
    assert found["target_vector_set"] == [
        ("(the target's latest embeddings)", None),
        ("(no embeddings in the target dataset yet)", None),
    ]
    assert found["train_subset"][0] == ("(the whole dataset)", None)
    assert len(found["train_subset"]) > 1
    enabled, problem = found["blocked"]
    assert not enabled and problem == "Choose the target dataset."
    assert found["target_after"] == found["target_vector_set"]


def test_coverage_with_one_dataset_says_to_import_a_target(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    from PySide6.QtWidgets import QComboBox

    open_project(qtbot, window, analysed_project)

    def inspect(dialog: ParamDialog) -> tuple:
        target = dialog.findChild(QComboBox, "targetDataset")
        ok = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
        return target.isEnabled(), target.currentText(), ok.isEnabled(), dialog.problem.text()

    seen = answer_dialog(qtbot, inspect)
    assert window.plugin_views.open("coverage", ANALYSED) is None
    enabled, text, ok, problem = seen[0]
    assert not enabled and text == "(the project has no other dataset)" and not ok
    assert "import the target first (File > Import…)" in problem

    tab = window.plugin_views.open("coverage", ANALYSED, params={}, ask=False)  # e.g. a test
    assert tab is not None and tab.pages.currentWidget() is tab.error_page
    assert tab.error_title.text() == "The view “Coverage of a target set” needs a second dataset"
    assert "File > Import…" in tab.advice_label.text()
    assert not tab.retry_params.isHidden() and tab.details_button.isHidden()
    assert "data[" not in tab.error_label.text() and "--target" not in tab.error_label.text()


def test_only_views_that_declare_a_target_are_asked_for_one(
    window: MainWindow, qtbot, analysed_project: Path
) -> None:
    add_dataset(analysed_project)
    open_project(qtbot, window, analysed_project)
    views = window.plugin_views
    needing = {c.name for c in views.contributions() if views.needs_target(c.name)}
    assert needing == {"coverage"}
    from vendiscope.plugins.views.coverage import CoverageView
    from vendiscope.plugins.views.spectrum import SpectrumView

    assert CoverageView.needs_target and not SpectrumView.needs_target


def test_a_view_failing_when_run_says_so_in_the_tab(
    qtbot, window: MainWindow, analysed_project: Path, registry
) -> None:
    window.plugin_views.set_registry(registry)
    open_project(qtbot, window, analysed_project)
    crashing = show(qtbot, window, "crashing")
    title = crashing.error_title.text()
    assert title == "The view “Crashes” failed when run (plugin gui-test-views)"
    assert "author of the plugin 'gui-test-views'" in crashing.advice_label.text()
    assert "Details…" in crashing.advice_label.text()
    assert not crashing.details_button.isHidden()
    assert registry.status("view", "crashing").state == "run-failed"  # listed as such
    screenshot(window, "view-error-run")

    missing = show(qtbot, window, "missing")
    assert missing.error_title.text().startswith("The view “Not importable” could not be loaded")
    assert "reinstall or update the plugin" in missing.advice_label.text()

    refused = show(qtbot, window, "selection-curves", vector_set="no-such-set")  # a ValueError
    assert refused.error_title.text().startswith("The view “Diversity vs budget” cannot be drawn")
    assert refused.error_label.text().startswith("No selection run measured vector set")
    assert not refused.retry_params.isHidden()
    assert registry.status("view", "selection-curves").state != "run-failed"


def test_param_form_lists_project_names_and_words_problems_with_labels(qtbot) -> None:
    from PySide6.QtWidgets import QComboBox

    from vendiscope.api import describe_params

    class Example:  # hints resolve in this module's globals
        """Parameters
        ----------
        subset_name
            The ``subset`` to save (a new name is fine).
        vector_set
            The vectors.
        top_k
            How many.
        """

        def __init__(
            self,
            subset_name: Annotated[str, FromProject("subset", free_text=True)] = "best",
            vector_set: Annotated[str | None, FromProject("vector_set", ("embedding",))] = None,
            top_k: Annotated[int, Range(1)] = 5,
        ) -> None: ...

    from vendiscope.gui.widgets.param_form import ParamForm

    offered = {"subset": [("a  (3 records)", "a"), ("b  (4 records)", "b")], "vector_set": []}
    form = ParamForm(describe_params(Example), choices=lambda s: offered[s.what], show_help=True)
    qtbot.addWidget(form)
    subset, vectors_ = form.fields["subset_name"], form.fields["vector_set"]
    assert isinstance(subset, QComboBox) and subset.isEditable()
    assert subset.currentText() == "best"  # a default the project does not have yet
    assert form.values() == {}
    subset.setCurrentIndex(1)
    assert form.values() == {"subset_name": "b"}
    subset.setEditText("brand-new")
    assert form.values() == {"subset_name": "brand-new"}
    assert combo_items(vectors_) == [("(none)", None), ("(no embeddings yet)", None)]
    assert form.helps["subset_name"].text() == "The subset to save (a new name is fine)."
    form.set_value("vector_set", "gone")  # a name the project no longer has is kept, marked
    assert vectors_.currentText() == "gone (not in the project)"
    assert form.values()["vector_set"] == "gone"
    form.fields["top_k"].setValue(0)  # below the range: the spin box keeps it at 1
    assert form.values()["top_k"] == 1
    assert form.error() is None


def test_a_form_error_names_the_label_not_the_parameter(qtbot) -> None:
    from vendiscope.api import describe_params
    from vendiscope.gui.widgets.param_form import ParamForm

    class Example:
        def __init__(self, model_name: str, max_shard_size: int | str = 10) -> None: ...

    form = ParamForm(describe_params(Example))
    qtbot.addWidget(form)
    assert form.labels["model_name"].text() == "Model name *:"
    assert form.problem() == "Model name: required: a string"
    assert form.error() == "model_name: required: a string"  # as ParamError says it
    form.set_value("model_name", "m")
    assert form.problem() is None and form.values() == {"model_name": "m"}
    assert "max_shard_size" not in form.fields["max_shard_size"].toolTip()


def test_coverage_offers_to_compute_the_target_s_embeddings(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    add_dataset(analysed_project)  # bench: no embeddings yet
    open_project(qtbot, window, analysed_project)
    tab = window.plugin_views.open("coverage", ANALYSED, params={}, target="bench", ask=False)
    assert tab is not None
    qtbot.waitUntil(lambda: tab.error is not None, timeout=20_000)
    title = tab.error_title.text()
    assert title == "The view “Coverage of a target set” needs embeddings of 'bench'"
    assert tab.fix_button.property("step") == "embed"
    assert tab.fix_button.property("dataset") == "bench"  # the target's, not the dataset's
    assert tab.fix_button.text() == "Compute embeddings of 'bench'…"
    assert tab.subtitle.text() == "demo · Target dataset: bench"


def test_a_view_missing_another_dataset_s_gradients_offers_to_compute_them(
    qtbot, window: MainWindow, analysed_project: Path, registry
) -> None:
    add_dataset(analysed_project)  # bench: no gradients yet
    window.plugin_views.set_registry(registry)
    open_project(qtbot, window, analysed_project)
    tab = show(qtbot, window, "bench-gradients")
    assert isinstance(tab.error, MissingVectors)  # the app reads its fields, not its text
    assert (tab.error.dataset, tab.error.kind) == ("bench", "gradient")
    assert tab.error_title.text() == "The view “Bench” needs the gradient features of bench"
    assert tab.error_label.text() == "bench has no gradient features yet."
    assert not tab.fix_button.isHidden()
    assert tab.fix_button.property("step") == "featurize"
    assert tab.fix_button.property("dataset") == "bench"
    assert tab.fix_button.text() == "Compute the gradient features of bench…"


def test_the_app_acts_on_the_fields_of_what_is_missing(qtbot, window: MainWindow) -> None:
    """The step and dataset come from the error's fields: a G-Vendi score (no ``--metric``),
    embedding-Vendi after its embeddings, and a command a plugin wrote as plain text."""
    views = window.plugin_views
    where = "/tmp/a project.vscope"
    score = NotComputed("G-Vendi score", Command("score", where, "train"))
    assert (views.explain("spectrum", score).step, views.explain("spectrum", score).dataset) == (
        "score-gvendi", "train")  # fmt: skip
    vendi = NotComputed("embedding-Vendi", Command("score", where, "t", ("--metric", "vendi")))
    assert views.explain("spectrum", vendi).step == "score-vendi"
    both = NotComputed("embedding-Vendi", (Command("embed", where, "t"), vendi.commands[0]))
    assert views.explain("spectrum", both).step == "embed"
    text = NotComputed("clustering", f"vendiscope clusters '{where}' train")
    problem = views.explain("spectrum", text)
    assert problem.step is None and "not computed yet" in problem.message  # no guessing
    several = MissingVectors("train", ("gradient", "embedding"))  # no one kind to compute
    assert views.explain("spectrum", several).step is None


def test_save_image_never_writes_over_a_project(
    qtbot, window: MainWindow, analysed_project: Path, tmp_path: Path
) -> None:
    from tests.conftest import table_counts
    from vendiscope.core.store.migrate import copy_project
    from vendiscope.gui.dialogs.error_dialog import ErrorDialog

    team = copy_project(analysed_project, tmp_path / "team.png")  # a project, whatever its name
    before = table_counts(team)
    open_project(qtbot, window, analysed_project)
    tab = show(qtbot, window, "spectrum")
    tab._write_image(team)  # the file dialog has already asked whether to replace it
    shown = tab.findChildren(ErrorDialog)
    assert (
        shown
        and "never writes an output over a project"
        in shown[-1].findChild(QWidget, "errorMessage").text()
    )
    assert table_counts(team) == before
    image = tmp_path / "spectrum.png"
    tab._write_image(image)
    assert image.read_bytes()[:4] == b"\x89PNG"
