"""``vendiscope score``: a dataset's diversity (G-Vendi, embedding-Vendi or a metric plugin).

With ``--subset NAME`` (repeatable) the subsets are scored too and shown side by side with
the whole dataset (its row first, unless ``--only-subsets``); ``--vs-random`` compares each
subset with random subsets of its size. Side by side, every set is also scored at the
smallest set's size (:mod:`vendiscope.core.metrics.compare_sets`): scores at different sizes
are not comparable.
"""

from __future__ import annotations

from typing import Annotated

import typer

from vendiscope.cli._app import DatasetArg, JsonOpt, ProjectArg, app
from vendiscope.cli._options import flag
from vendiscope.cli._output import all_option, plugin_params, reports_errors
from vendiscope.cli._vector_sets import MetricSetOpt
from vendiscope.core.metrics.options import ScoreOptions


@app.command()
@reports_errors
def score(
    project: ProjectArg,
    dataset: DatasetArg,
    metric: Annotated[str, flag(ScoreOptions, "metric")] = ScoreOptions.metric,
    vectors: MetricSetOpt = None,
    q: Annotated[float, typer.Option(help="Order of the Vendi score (0.5, 1, 2, inf).")] = 1.0,
    bootstrap: Annotated[
        int, typer.Option(min=0, help="Bootstrap resamples for a confidence interval.")
    ] = 0,
    quality: Annotated[
        str | None,
        typer.Option(help="Weight records by a numeric field or a one-column score set."),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="Other metric parameter NAME=VALUE, repeatable."),
    ] = None,
    subset: Annotated[
        list[str] | None,
        typer.Option("--subset", "-s", help="Also score this subset, side by side; repeatable."),
    ] = None,
    only_subsets: Annotated[
        bool, typer.Option(help="With --subset: leave out the whole dataset's row.")
    ] = False,
    vs_random: Annotated[
        bool,
        typer.Option(help="Compare each subset with random subsets of its size."),
    ] = False,
    random_draws: Annotated[int, flag(ScoreOptions, "random_draws")] = ScoreOptions.random_draws,
    random_seed: Annotated[int, flag(ScoreOptions, "random_seed")] = ScoreOptions.random_seed,
    at_n: Annotated[
        int | None,
        typer.Option(
            "--at-n",
            min=2,
            help="Also score the dataset at N rows (the mean of random draws), to compare it "
            "with a dataset of N rows.",
        ),
    ] = None,
    all_: Annotated[bool, all_option("source")] = False,
    json: JsonOpt = False,
) -> None:
    """Score a dataset's diversity: the score, n, the effective number of distinct examples."""
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.base.errors import ProjectError
    from vendiscope.core.metrics.scoring import KIND_FOR_METRIC, score_dataset
    from vendiscope.core.metrics.subset_scoring import check_request
    from vendiscope.core.store.project import Project

    names = list(dict.fromkeys(subset or []))
    if (vs_random or only_subsets) and not names:
        flag = "--vs-random" if vs_random else "--only-subsets"
        raise ProjectError(f"{flag} compares subsets: name one with --subset NAME")
    plugin = "vendi" if metric in KIND_FOR_METRIC else metric
    check_request(plugin, names[0] if names else None, vs_random, random_draws)  # before any run
    params = plugin_params("metric", plugin, param)
    if metric in ("gvendi", "vendi"):
        params.setdefault("q", q)
        if bootstrap:
            params.setdefault("bootstrap", bootstrap)
    with Project.open(project) as opened:
        for name in names:  # every name checked before any run starts
            opened.subset(dataset, name)
        common = {"metric": metric, "vector_set": vectors, "quality": quality}
        results = []
        if not (names and only_subsets):
            whole = score_dataset(
                opened, dataset, params=params, progress=RichProgress(), at_n=at_n,
                random_seed=random_seed, **common,
            )  # fmt: skip
            results.append(whole)
        for name in names:
            scored = score_dataset(
                opened, dataset, params=params, subset=name, vs_random=vs_random,
                random_draws=random_draws, random_seed=random_seed, progress=RichProgress(),
                **common,
            )  # fmt: skip
            results.append(scored)
        equal = None
        if len(results) > 1 and plugin == "vendi":  # every set also at the smallest one's n
            from vendiscope.core.metrics.compare_sets import scores_at_common_size

            equal = scores_at_common_size(
                opened, dataset, [r.subset for r in results],
                vector_set=results[0].vector_set.name, q=params.get("q", 1.0),
                normalize=params.get("normalize", True), quality=quality,
            )  # fmt: skip
        # Every source with its record count, so the table can list the ones too small for
        # a score of their own instead of leaving them out.
        source_counts = None if json or names else opened.stats(dataset)["sources"]
        advice = ""
        if results and results[0].subset is None:
            from vendiscope.core.view_data.runs import resolution_advice

            advice = resolution_advice(opened, dataset)
        from vendiscope.core.io.sampling import sample_origin

        sample = sample_origin(opened, dataset)
    _show(results, project=project, dataset=dataset, as_json=json, show_all=all_,
          source_counts=source_counts, equal=equal, advice=advice, sample=sample)  # fmt: skip


def _show(
    results: list, *, project: str, dataset: str, as_json: bool, show_all: bool,
    source_counts: dict[str, int] | None, equal: list[dict] | None = None, advice: str = "",
    sample: dict | None = None,
) -> None:  # fmt: skip
    """Print the scored sets; ``equal``: each one's score at the smallest set's size;
    ``advice``: which score tells the data's groups apart, when G-Vendi and embedding-Vendi
    disagree; ``sample``: where the dataset was sampled from, if it is a sample."""
    from vendiscope.cli._compare_printing import print_comparison, score_json
    from vendiscope.cli._output import console
    from vendiscope.cli._printing import print_json, print_score

    at_n = equal or [None] * len(results)
    if as_json:
        found = [score_json(r, equal_n=e) for r, e in zip(results, at_n, strict=True)]
        if found[0]["subset"] is None:
            found[0]["advice"] = advice or None
            found[0]["sample"] = sample
        print_json(found[0] if len(found) == 1 else found)
    elif len(results) == 1 and results[0].subset is None:
        print_score(results[0], show_all=show_all, source_counts=source_counts, sample=sample)
        if advice:
            console.print(advice, soft_wrap=True)
    else:
        print_comparison(results, project=project, dataset=dataset, equal_n=equal)
