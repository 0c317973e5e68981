"""The report says where each score sits (fraction, mean cosine), whether it can separate
datasets (the verdict) and its projection error when measured; older runs still render."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from tests.core._planted import planted_dataset
from vendiscope.core.metrics.scoring import score_dataset
from vendiscope.core.report.build import audit_numbers, write_report
from vendiscope.core.report.html import _headline_html


@pytest.mark.slow
def test_the_report_shows_mean_cosine_and_verdict(project, tmp_path: Path) -> None:
    planted_dataset(project, tmp_path)
    scored = score_dataset(project, "pool", metric="gvendi")
    numbers = audit_numbers(project, "pool", contributions=False)
    gvendi = numbers["headline"]["gvendi"]
    assert gvendi["mean_cosine"] == scored.details["mean_cosine"]
    assert gvendi["verdict"] == scored.details["verdict"]
    assert gvendi["fraction"] == scored.details["effective_fraction"]
    error = scored.details.get("projection_error")  # when the scoring measured it
    assert gvendi["projection_error"] == error
    page = write_report(project, "pool", tmp_path / "r.html").destination.read_text()
    assert f"mean cosine {scored.details['mean_cosine']:.2f}" in page
    assert html.escape(scored.details["verdict"]["text"]) in page
    if error is not None and error.get("sd") is not None:
        assert f"± {error['sd']:,.1f} (projection" in page
    else:
        assert "(projection)" not in page


def _headline(**score: object) -> str:
    base = {"value": 159.94, "n": 1245, "fraction": 0.1285, "ci": None, "ci_level": None}
    h = {
        "gvendi": {**base, **score}, "embedding_vendi": None, "effective_number": 159.94,
        "effective_fraction": 0.1285, "effective_number_basis": "G-Vendi",
        "exact_duplicates": 0, "exact_duplicate_fraction": 0.0, "near_duplicates": None,
    }  # fmt: skip
    return "".join(_headline_html({"missing": []}, h, {}))


def test_projection_error_and_old_runs() -> None:
    old = _headline()  # a run from before the fields: no mean cosine, no verdict
    assert "159.9" in old and "of 1,245 records (n = 1,245), 12.8% of them distinct" in old
    assert "mean cosine" not in old and "verdict" not in old and "projection" not in old
    new = _headline(
        mean_cosine=0.0912,
        verdict={"level": "saturated", "text": 'Mostly counts <copies> & "such".'},
        projection_error={"sd": 2.345, "shift": 0.1, "draws": 5},
    )
    assert "± 2.3 (projection)" in new and "mean cosine 0.09" in new
    assert "Mostly counts &lt;copies&gt; &amp; &quot;such&quot;." in new
    assert "<copies>" not in new


@pytest.mark.slow
def test_the_report_says_which_score_sees_the_sources(project, tmp_path: Path) -> None:
    from tests.core._planted import disagreeing_scores

    disagreeing_scores(project, tmp_path)
    numbers = audit_numbers(project, "advice", contributions=False)
    headline = numbers["headline"]
    assert headline["gvendi"]["group_check"]["level"] == "does_not"
    assert headline["embedding_vendi"]["group_check"]["level"] == "resolves"
    assert "Compare datasets by embedding-Vendi at this size" in headline["advice"]
    page = write_report(project, "advice", tmp_path / "r.html").destination.read_text()
    assert html.escape(headline["advice"]) in page
    assert "does not tell your 4 sources apart" in page
