"""The synthesis curve: G-Vendi of the pool plus the accepted generations, round by round,
against as many unfiltered generations (the baseline) and the pool alone."""

from __future__ import annotations

from typing import Annotated, Any

from vendiscope.api import SYNTHESIS_TITLE, Range, View, synthesis_chart, view_data


class SynthesisCurveView(View):
    """G-Vendi as accepted generations grow, for one synthesis run (``vendiscope
    synthesize``): with the filter, without it (the first as many unfiltered generations),
    and the pool alone as a flat reference. Opened on the pool or on the dataset a run
    wrote (``synth-N``).

    Parameters
    ----------
    run
        The synthesis run to draw, by id; 0 (or none) draws the latest.
    """

    def __init__(self, run: Annotated[int | None, Range(0)] = 0) -> None:
        self.run = run

    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        if self.run is not None and (
            isinstance(self.run, bool) or not isinstance(self.run, int) or self.run < 0
        ):
            raise ValueError(f"run must be a run id (or 0 for the latest); got {self.run!r}")
        found = view_data(data)
        runs = found.synthesis_runs()  # NotComputed naming `vendiscope synthesize` if none
        if self.run:
            chosen = [r for r in runs if r["run_id"] == self.run]
            if not chosen:
                ids = ", ".join(str(r["run_id"]) for r in runs)
                raise ValueError(
                    f"run {self.run} is not a synthesis run of {found.dataset} (its runs: {ids})"
                )
            run = chosen[0]
        else:
            run = runs[-1]
        title = f"{SYNTHESIS_TITLE} (run {run['run_id']})"
        return synthesis_chart(run["result"], title=title, status=run["status"])
