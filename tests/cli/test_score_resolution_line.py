"""`vendiscope score` says where the score sits: fraction, mean cosine, verdict, and the
projection error when the result has one."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.core._planted import planted_dataset
from vendiscope.cli import app
from vendiscope.cli._printing import resolution_line
from vendiscope.core.store.project import Project


def test_the_line_with_and_without_the_new_fields() -> None:
    details = {
        "effective_number": 159.94, "effective_fraction": 159.94 / 1245, "mean_cosine": 0.0912,
        "verdict": {"level": "ok", "text": "A plain sentence."},
    }  # fmt: skip
    assert resolution_line(159.94, 1245, details) == (
        "effective number of distinct examples: 159.9 of 1,245 (12.8%), mean cosine 0.09 — "
        "A plain sentence."
    )
    spread = {**details, "projection_error": {"sd": 2.06, "shift": 0.3, "draws": 5}}
    assert "159.9 ± 2.1 (projection) of 1,245" in resolution_line(159.94, 1245, spread)
    lowered = {**details, "projection_error": {"sd": 1.7, "shift": -24.0, "draws": 6}}
    assert "159.9 ± 1.7 (projection, which lowers it by about 24.0) of 1,245" in (
        resolution_line(159.94, 1245, lowered)
    )
    # an older run: only the value
    assert resolution_line(159.94, 1245, {}) == (
        "effective number of distinct examples: 159.9 of 1,245 (12.8%)"
    )


def test_score_prints_the_verdict(tmp_path: Path) -> None:
    path = tmp_path / "p.vscope"
    with Project.create(path) as project:
        planted_dataset(project, tmp_path)
    result = CliRunner().invoke(app, ["score", str(path), "pool"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "effective number of distinct examples:" in result.output
    assert "mean cosine" in result.output and " — " in result.output


@pytest.mark.slow
def test_score_at_n_and_the_advice(tmp_path: Path) -> None:
    import json

    from tests.core._planted import disagreeing_scores

    path = tmp_path / "p.vscope"
    with Project.create(path) as project:
        disagreeing_scores(project, tmp_path)  # G-Vendi blind to the sources, embeddings not
    env = {"COLUMNS": "200"}
    shown = CliRunner().invoke(app, ["score", str(path), "advice", "--at-n", "100"], env=env)
    assert shown.exit_code == 0, shown.output
    assert "at equal n: G-Vendi " in shown.output and "of 100 (n = 100, mean of 5 draws" in (
        shown.output
    )
    assert "At 120 rows G-Vendi does not tell your 4 sources apart" in shown.output
    assert "Compare datasets by embedding-Vendi at this size" in shown.output
    found = json.loads(
        CliRunner().invoke(app, ["score", str(path), "advice", "--json", "--at-n", "50"]).stdout
    )
    assert found["details"]["at_n"]["n"] == 50 and found["details"]["at_n"]["draws"] == 5
    assert found["details"]["group_check"]["level"] == "does_not"
    assert found["details"]["group_check"]["p_value"] > 0.01
    assert found["advice"].startswith("At 120 rows G-Vendi does not")
    refused = CliRunner().invoke(app, ["score", str(path), "advice", "--at-n", "241"])
    assert refused.exit_code != 0 and "more than the 240 rows of 'advice'" in refused.output
