"""The "Fill gaps…" dialog: generators and their forms, Test connection, the prompt preview."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.gui.conftest import screenshot
from vendiscope.core.plugin_host.registry import default_registry
from vendiscope.gui.synthesis.dialog import SynthesisDialog
from vendiscope.gui.windows.document import ProjectDocument


@pytest.fixture
def document(demo_project: Path) -> Any:
    opened = ProjectDocument()
    opened.open(str(demo_project))
    yield opened
    opened.close()


@pytest.fixture
def dialog(qtbot: Any, document: ProjectDocument) -> SynthesisDialog:
    made = SynthesisDialog(document, "demo")
    qtbot.addWidget(made)
    made.show()
    qtbot.waitExposed(made)
    return made


def _choose(dialog: SynthesisDialog, name: str) -> None:
    index = dialog.generator.findData(name)
    assert index >= 0, f"no generator {name!r} in the dialog"
    dialog.generator.setCurrentIndex(index)


def test_the_dialog_lists_the_generators_with_a_form_each(dialog: SynthesisDialog) -> None:
    registry = default_registry()
    offered = [dialog.generator.itemData(i) for i in range(dialog.generator.count())]
    assert offered == [c.name for c in registry.contributions("generator")]
    assert {"transformers", "openai"} <= set(offered)
    assert dialog.current_generator() == "transformers"  # the default, as for the CLI
    for name in offered:
        _choose(dialog, name)
        form = dialog.current_form()
        assert form is not None and form.isVisible()
        assert set(form.fields) == {s.name for s in registry.describe("generator", name)}
    _choose(dialog, "openai")
    assert "base_url" in dialog.current_form().fields
    options = dialog.options()
    assert options["generator"] == "openai" and options["budget"] == 200
    assert options["rounds"] is None and options["filter"] == "gain"


def test_test_connection_names_the_url_it_cannot_reach(qtbot: Any, dialog: SynthesisDialog) -> None:
    _choose(dialog, "openai")
    form = dialog.current_form()
    form.set_value("base_url", "http://127.0.0.1:9/v1")
    if "model" in form.fields and form.raw_value("model") is None:
        form.set_value("model", "tiny-model")
    dialog.test_button.click()
    assert dialog.test_result.text() == "Connecting…" and not dialog.test_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.check_job is None, timeout=90_000)
    text = dialog.test_result.text()
    assert text.startswith("Could not connect: ") and "127.0.0.1:9" in text, text
    assert dialog.test_button.isEnabled()
    screenshot(dialog, "synthesis-dialog-test-connection")


def test_the_preview_shows_the_seed_examples(
    qtbot: Any, dialog: SynthesisDialog, demo_project: Path
) -> None:
    from vendiscope.core.store.project import Project

    qtbot.waitUntil(lambda: dialog.seed_record.count() > 1, timeout=20_000)
    position = dialog.seed_record.currentData()
    assert isinstance(position, int)
    with Project.open(demo_project) as project:
        record = project.records("demo", position, 1)[0]
    dialog.preview_button.click()
    qtbot.waitUntil(lambda: "── Prompt ──" in dialog.preview_text.toPlainText(), timeout=60_000)
    shown = dialog.preview_text.toPlainText()
    words = " ".join((record.prompt or record.text or "").split()[:6])
    assert words and words in shown, (words, shown[:2000])
    screenshot(dialog, "synthesis-dialog-preview")


def test_start_waits_for_gradient_features(qtbot: Any, small_project: Path) -> None:
    document = ProjectDocument()
    document.open(str(small_project))
    try:
        dialog = SynthesisDialog(document, "tiny")
        qtbot.addWidget(dialog)
        assert not dialog.start_button.isEnabled()
        assert "needs gradient features first" in dialog.problem.text()
    finally:
        document.close()


def test_test_connection_makes_one_real_example(qtbot: Any, dialog: SynthesisDialog) -> None:
    """Against a real (scripted) server: one generation, parsed, timed, with the budget's
    time; nothing written to the project."""
    from tests.conftest import demo_rows
    from tests.core.synthesis._server import example_server

    rows = [{"prompt": r["prompt"], "response": r["response"]} for r in demo_rows(300, 340)]
    with example_server(rows) as server:
        _choose(dialog, "openai")
        form = dialog.current_form()
        form.set_value("base_url", server["url"])
        form.set_value("model", "scripted")
        dialog.test_button.click()
        qtbot.waitUntil(lambda: dialog.check_job is None, timeout=120_000)
    text = dialog.test_result.text()
    assert text.startswith("Connected: ") and "serves 'scripted'" in text, text
    assert "one example in" in text and "200 examples: at least" in text
    assert "Structured output: fields" in text and "Parsed: prompt: " in text
