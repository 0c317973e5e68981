"""Diversity-vs-budget curves of the selection runs, with a random order as the baseline."""

from __future__ import annotations

from typing import Annotated, Any

from vendiscope.api import FromProject, NotComputed, Range, View, view_data
from vendiscope.plugins.views._common import chart, check_count, rounded

KIND_TITLES = {"gradient": "G-Vendi", "embedding": "embedding-Vendi"}
BASELINE = "(random)"


class SelectionCurvesView(View):
    """The Vendi score of the first ``b`` records each selection run chose, for every budget
    ``b`` up to its ``k``; the same for a random order of the candidates as the baseline.

    Parameters
    ----------
    vector_set
        Whose Vendi score the curves show: a gradient set (G-Vendi) or an embedding set
        (embedding-Vendi). Each selection run measured its curve on the set it selected on
        and on the latest gradient and embedding sets.
    max_runs
        Draw the latest this many selection runs.
    """

    def __init__(
        self,
        vector_set: Annotated[
            str | None,
            FromProject(
                "vector_set",
                ("gradient", "embedding"),
                none="the gradient set most runs were measured on",
            ),
        ] = None,
        max_runs: Annotated[int, Range(1)] = 8,
    ) -> None:
        self.vector_set = vector_set
        self.max_runs = max_runs

    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        check_count("max_runs", self.max_runs)
        found = view_data(data)
        dataset = found.dataset
        runs = found.selections()
        if not runs:
            raise NotComputed("selection runs", found.command("select", "-k", "K"))
        name, kind = self._choose_set(runs)
        drawn = [r for r in runs if name in (r["curve"].get("vendi") or {})][-self.max_runs :]
        if not drawn:
            raise ValueError(f"no selection run measured its curve on vector set '{name}'")
        series = [
            {"name": f"{r['method']} (k={r['k']:,}, run {r['run_id']})",
             "x": [int(b) for b in r["curve"]["budgets"]],
             "y": rounded(r["curve"]["vendi"][name])}
            for r in drawn
        ]  # fmt: skip
        widest = max(drawn, key=lambda r: (r["k"] or 0, r["run_id"]))
        if name in (widest["curve"].get("random") or {}):
            series.append({"name": BASELINE, "x": [int(b) for b in widest["curve"]["budgets"]],
                           "y": rounded(widest["curve"]["random"][name])})  # fmt: skip
        score = KIND_TITLES.get(kind, "Vendi score")
        title = f"Diversity vs budget on {dataset}: {score} of the first b selected ({name})"
        return chart("line", title, series, x_label="budget b (records selected)",
                     y_label=score)  # fmt: skip

    def _choose_set(self, runs: list[dict[str, Any]]) -> tuple[str, str]:
        kinds: dict[str, str] = {}
        counts: dict[str, int] = {}
        for run in runs:
            for set_name in run["curve"].get("vendi") or {}:
                kinds.setdefault(set_name, run["kinds"].get(set_name, ""))
                counts[set_name] = counts.get(set_name, 0) + 1
        if self.vector_set is not None:
            if self.vector_set not in kinds:
                raise ValueError(f"no selection run measured vector set '{self.vector_set}' "
                                 f"(measured: {', '.join(kinds) or 'none'})")  # fmt: skip
            return self.vector_set, kinds[self.vector_set]
        if not kinds:
            raise ValueError("the selection runs hold no curves")
        for kind in ("gradient", "embedding"):
            of_kind = [n for n in kinds if kinds[n] == kind]
            if of_kind:
                best = max(of_kind, key=lambda n: (counts[n], n))
                return best, kind
        best = max(kinds, key=lambda n: (counts[n], n))
        return best, kinds[best]
