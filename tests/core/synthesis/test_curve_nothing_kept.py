"""The synthesis curve of a run that has kept nothing yet, and a tidy title."""

from __future__ import annotations

from typing import Any

from vendiscope.core.plugin_host.charts import validate_chart
from vendiscope.core.synthesis.algorithms.curve import POOL, curve_note, synthesis_chart

POOL_GVENDI = 38.329


def nothing_kept(**changes: Any) -> dict[str, Any]:
    """Two rounds of 8 outputs, none kept; G-Vendi differs from the pool's by float noise."""
    rounds = [
        {"round": n, "prompts": 8, "generated": 8, "parsed": 0, "duplicates": 0, "accepted": 0,
         "rejected": 8, "reasons": {"no JSON object": 8}, "accepted_total": 0,
         "generated_total": 0, "gvendi": POOL_GVENDI + (n + 1) * 1e-12,
         "baseline": POOL_GVENDI - 1e-12}
        for n in range(2)
    ]  # fmt: skip
    base = {
        "filter": "gain", "generator": "openai", "pool_gvendi": POOL_GVENDI, "rounds": rounds,
        "accepted": 0, "generated": 0, "stopped": None,
        "model": "openai model=/tmp/models/SmolLM2-135M-Instruct base_url=http://127.0.0.1:8000/v1 "
                 "temperature=0.8 top_p=0.95 max_new_tokens=256",
        "generator_details": {"model": "/tmp/models/SmolLM2-135M-Instruct", "base_url": "x"},
    }  # fmt: skip
    return {**base, **changes}


def test_nothing_kept_is_said_and_not_drawn_as_noise() -> None:
    chart = synthesis_chart(nothing_kept(), status="failed")
    validate_chart(chart)
    filtered, pool = chart["series"]
    assert filtered["x"] == [0] and filtered["y"] == [POOL_GVENDI]  # one point, the pool's
    assert pool["name"] == POOL and pool["x"] == [0, 1]  # an axis to draw on, not a dot
    title = chart["title"]
    assert "no examples accepted yet (16 outputs, 0 valid)" in title
    assert "0 of 0" not in title and title.endswith("; failed")
    assert "openai SmolLM2-135M-Instruct" in title and "base_url" not in title


def test_rounds_that_keep_nothing_do_not_stack_points() -> None:
    found = nothing_kept()
    found["rounds"][1].update(accepted=2, accepted_total=2, gvendi=39.0, baseline=38.8)
    found["rounds"].append(
        {**found["rounds"][1], "round": 2, "accepted": 0, "gvendi": 39.0 + 1e-12}
    )
    found.update(accepted=2, generated=5)
    filtered = synthesis_chart(found)["series"][0]
    assert filtered["x"] == [0, 2]  # round 3 kept nothing: round 2's point moves, no new one
    assert "2 of 5 generations accepted (openai SmolLM2-135M-Instruct)" in curve_note(found)


def test_the_model_name_is_short() -> None:
    long = {"generator_details": {"model": "org/" + "x" * 80}}
    assert len(curve_note(nothing_kept(**long)).split("(openai ")[1].split(")")[0]) == 40
    assert "(openai)" in curve_note(nothing_kept(generator_details={"model": ""}))
