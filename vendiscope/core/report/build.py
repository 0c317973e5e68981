"""The diversity audit report: one self-contained HTML file (or JSON) about one dataset.

:func:`audit_numbers` gathers the numbers from what the project already holds — headline
scores (G-Vendi, embedding-Vendi, the effective number of distinct examples, exact and
near-duplicates), the per-source breakdown, sparse clusters with example records, coverage
of a target set, and the selection runs — through :mod:`vendiscope.core.views.data`. A piece
that was not computed is listed under ``"missing"`` with the command that computes it; the
report never fails for it. :func:`write_report` adds the charts (the built-in view plugins,
rendered by :mod:`vendiscope.core.views.render` and embedded as base64 PNG or SVG images) and
writes the file atomically.

The HTML needs nothing else: no external CSS, scripts, fonts or images. Every string taken
from the dataset or the project is escaped, and a Content-Security-Policy forbids scripts,
so a record holding ``<script>`` is shown as text, never run.

The report computes nothing heavy by itself. Two things are computed when asked: coverage
of ``target`` (a coverage run, as ``vendiscope coverage`` records it) and, with
``compute=``, the missing cheap steps from existing vector sets (scores, near-duplicates,
clusters, a map); embeddings and gradients are never computed here.
"""

from __future__ import annotations

import base64
import html
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from vendiscope import __version__
from vendiscope.core.base.errors import ProjectError, VendiscopeError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.store.project import Project
from vendiscope.core.views import data as viewdata

FORMATS = ("html", "json")
IMAGE_FORMATS = ("png", "svg")
COMPUTE_STEPS = ("scores", "near-duplicates", "clusters", "map")
"""What ``compute=`` may run, all from existing vector sets (never embeddings or gradients)."""
LISTED_SPARSE = 10
LISTED_GROUPS = 5
LISTED_UNCOVERED = 25
CHART_SIZE = (900, 520)


@dataclass(frozen=True)
class ReportResult:
    destination: Path
    format: str
    numbers: dict[str, Any]
    charts: list[str]
    computed: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def missing(self) -> list[dict[str, Any]]:
        return self.numbers["missing"]


# ----------------------------------------------------------------------------- numbers
def audit_numbers(
    project: Project,
    dataset: str,
    *,
    target: str | None = None,
    radius: float = 0.8,
    target_vector_set: str | None = None,
    vector_set: str | None = None,
    listed_sparse: int = LISTED_SPARSE,
    listed_groups: int = LISTED_GROUPS,
    listed_uncovered: int = LISTED_UNCOVERED,
    contributions: bool = True,
) -> dict[str, Any]:
    """Every number of the audit as plain JSON-serialisable data (the ``--format json``).

    ``contributions``: compute each source's contribution to the whole score (one pass over
    the score's vector set and one eigendecomposition per source); off, those are None.
    """
    info = project.dataset(dataset)
    if target is not None:
        project.dataset(target)  # fail early for a target that does not exist
    stats = project.stats(dataset)
    missing: list[dict[str, Any]] = []

    def piece(section: str, get: Callable[[], Any]) -> Any:
        try:
            return get()
        except viewdata.NotComputed as exc:
            missing.append(
                {"section": section, "what": exc.what, "command": exc.command, "message": str(exc)}
            )
        except VendiscopeError as exc:
            missing.append(
                {"section": section, "what": section, "command": None, "message": str(exc)}
            )
        return None

    gvendi = piece("headline", lambda: viewdata.score_summary(project, dataset, "gvendi"))
    vendi = piece("headline", lambda: viewdata.score_summary(project, dataset, "vendi"))
    near = piece("near-duplicates", lambda: viewdata.near_duplicate_summary(project, dataset))
    rows = int(stats["rows"])
    basis = gvendi or vendi
    numbers: dict[str, Any] = {
        "vendiscope": __version__,
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "project": project.location,
        "dataset": dataset,
        "source_uri": info.source_uri,
        "records": rows,
        "headline": {
            "records": rows,
            "gvendi": _score_numbers(gvendi),
            "embedding_vendi": _score_numbers(vendi),
            "effective_number": basis["value"] if basis else None,
            "effective_fraction": basis["fraction"] if basis else None,
            "effective_number_basis": basis["title"] if basis else None,
            "exact_duplicates": int(stats["exact_duplicates"]),
            "exact_duplicate_fraction": stats["exact_duplicates"] / rows if rows else 0.0,
            "unique": int(stats["unique"]),
            "near_duplicates": _near_numbers(near),
        },
        "stats": {k: stats[k] for k in ("filled", "mean_chars", "skipped_rows")},
    }
    numbers["sources"] = piece(
        "sources",
        lambda: viewdata.source_table(
            project, dataset, contributions="auto" if contributions else None
        ),
    )
    numbers["spectrum"] = {
        s["title"]: s["spectrum_top"] for s in (gvendi, vendi) if s and s["spectrum_top"]
    }
    clusters = piece("clusters", lambda: _clusters(project, dataset, listed_sparse))
    numbers["clusters"] = clusters
    numbers["near_duplicates"] = None
    if near is not None:
        groups = viewdata.near_duplicate_groups(project, dataset, top=listed_groups)
        numbers["near_duplicates"] = {**_near_numbers(near), "largest_groups": groups}
    numbers["map"] = piece("map", lambda: _map_numbers(project, dataset))
    numbers["coverage"] = None
    if target is not None:
        numbers["coverage"] = piece(
            "coverage",
            lambda: viewdata.coverage_data(
                project,
                dataset,
                target,
                radius=radius,
                vector_set=vector_set,
                target_vector_set=target_vector_set,
                listed=listed_uncovered,
            ),
        )
    selections = viewdata.selection_runs(project, dataset)
    numbers["selections"] = [_selection_numbers(s) for s in selections]
    if not selections:
        missing.append(
            {
                "section": "selections",
                "what": "selection runs",
                "command": viewdata.command(project, "select", dataset, "-k", "K"),
                "message": "no selection runs yet",
            }
        )
    numbers["missing"] = missing
    numbers["runs"] = _runs_used(numbers)
    return _finite(numbers)


def _score_numbers(score: dict[str, Any] | None) -> dict[str, Any] | None:
    if score is None:
        return None
    keys = ("value", "n", "fraction", "ci", "ci_level", "vector_set", "run_id", "finished_at")
    return {k: score[k] for k in keys}


def _near_numbers(near: dict[str, Any] | None) -> dict[str, Any] | None:
    if near is None:
        return None
    keys = (
        "threshold",
        "groups",
        "records_in_groups",
        "redundant",
        "largest_group",
        "vector_set",
        "subset",
        "run_id",
    )
    out = {k: near[k] for k in keys}
    out["redundant_fraction"] = near["redundant"] / near["records"] if near["records"] else 0.0
    return out


def _clusters(project: Project, dataset: str, listed: int) -> dict[str, Any]:
    table = viewdata.cluster_table(project, dataset)
    sizes = table.pop("sizes")
    sparse = table.pop("sparse")
    return {
        **table,
        "sparse_clusters": len(sparse),
        "sparse_fraction_of_records": table["records_in_sparse"] / table["records"]
        if table["records"]
        else 0.0,
        "largest_size": max(sizes) if sizes else 0,
        "smallest_size": min(sizes) if sizes else 0,
        "smallest_sparse": viewdata.sparse_cluster_examples(project, dataset, limit=listed),
    }


def _map_numbers(project: Project, dataset: str) -> dict[str, Any]:
    info = viewdata.map_set(project, dataset)
    run = project.run(info.run_id) if info.run_id is not None else None
    result = (run.result if run else None) or {}
    return {
        "map": info.name,
        "method": viewdata.map_method(project, info),
        "vector_set": (info.params or {}).get("vector_set"),
        "trustworthiness": result.get("trustworthiness"),
        "fitted_rows": result.get("fitted_rows"),
        "run_id": info.run_id,
    }


def _selection_numbers(run: dict[str, Any]) -> dict[str, Any]:
    ratios = {
        name: (value / run["random_vendi"][name]) if run["random_vendi"].get(name) else None
        for name, value in run["vendi"].items()
    }
    keep = (
        "run_id",
        "method",
        "k",
        "candidates",
        "vector_set",
        "subset",
        "subset_exists",
        "objective",
        "vendi",
        "random_vendi",
        "kinds",
    )
    return {**{k: run[k] for k in keep}, "vs_random": ratios}


def _runs_used(numbers: dict[str, Any]) -> list[int]:
    found: set[int] = set()

    def walk(value: Any, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif key == "run_id" and isinstance(value, int):
            found.add(value)

    walk(numbers)
    return sorted(found)


def _finite(value: Any) -> Any:
    """NaN and infinities (e.g. an undefined objective) become None, so JSON stays strict."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


# ----------------------------------------------------------------------------- charts
def audit_charts(
    project: Project,
    dataset: str,
    numbers: dict[str, Any],
    *,
    registry: Any = None,
    max_points: int = 200_000,
) -> dict[str, dict[str, Any]]:
    """The report's chart descriptions, by section, built by the built-in view plugins.

    Sections whose data is missing get no chart; a view that fails for another reason is
    noted under ``numbers["missing"]``. Coverage and composition charts reuse the numbers
    already gathered (no second coverage run, no second pass over the vectors).
    """
    from vendiscope.core.plugins import default_registry
    from vendiscope.plugins.views.composition import composition_chart
    from vendiscope.plugins.views.coverage import coverage_chart

    registry = registry or default_registry()
    data = viewdata.ViewData(project, dataset)
    charts: dict[str, dict[str, Any]] = {}
    headline = numbers["headline"]
    has_sources = len((numbers.get("sources") or {}).get("sources") or []) > 1

    def view(section: str, name: str, **params: Any) -> None:
        try:
            chart = registry.create("view", name, **params).build(data)
        except viewdata.NotComputed:
            return  # already listed as missing
        except (VendiscopeError, ValueError) as exc:
            numbers["missing"].append(
                {
                    "section": section,
                    "what": f"the {name} chart",
                    "command": None,
                    "message": str(exc),
                }
            )
            return
        charts[section] = chart

    sources = numbers.get("sources")
    basis = (sources or {}).get("contribution_basis")
    if basis is None:
        basis = "gvendi" if headline["gvendi"] else "vendi" if headline["embedding_vendi"] else None
    if sources and basis:
        key = "gvendi" if basis == "gvendi" else "embedding_vendi"
        charts["sources"] = composition_chart(sources, {**headline[key], "metric": basis})
    if headline["gvendi"] or headline["embedding_vendi"]:
        view("spectrum", "spectrum")
    if numbers.get("map"):
        color_by = "sparse" if numbers.get("clusters") else "source" if has_sources else "none"
        view("map", "map", color_by=color_by, max_points=max_points)
    if numbers.get("clusters"):
        view("clusters", "cluster-coverage")
    if numbers.get("near_duplicates") and numbers["near_duplicates"]["groups"]:
        view("near-duplicates", "near-duplicates")
    if numbers.get("coverage"):
        charts["coverage"] = coverage_chart(numbers["coverage"])
    if numbers.get("selections"):
        view("selections", "selection-curves")
        subset = viewdata.latest_selection_subset(project, dataset)
        if subset is not None and numbers.get("map"):
            view("selection-map", "map", color_by="subset", subset=subset, max_points=max_points)
    return charts


# ----------------------------------------------------------------------------- compute
def compute_missing(
    project: Project,
    dataset: str,
    steps: Sequence[str] = COMPUTE_STEPS,
    *,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> list[str]:
    """Run the missing cheap steps (from existing vector sets) among ``steps``; return what
    ran. Scores need a gradient or embedding set, near-duplicates an embedding set,
    clusters and the map any feature set."""
    unknown = [s for s in steps if s not in COMPUTE_STEPS]
    if unknown:
        raise ProjectError(f"unknown step '{unknown[0]}'; steps: {', '.join(COMPUTE_STEPS)}")
    done: list[str] = []
    has = {
        kind: bool(viewdata.complete_sets(project, dataset, kind))
        for kind in ("gradient", "embedding")
    }
    jobs = {"progress": progress, "cancel": cancel}
    if "scores" in steps:
        from vendiscope.core.metrics.scoring import score_dataset

        for metric, kind in viewdata.VENDI_METRICS.items():
            if has[kind] and viewdata.score_run(project, dataset, metric) is None:
                score_dataset(project, dataset, metric=metric, **jobs)
                done.append(f"score ({viewdata.METRIC_TITLES[metric]})")
    features = has["gradient"] or has["embedding"]
    if (
        "near-duplicates" in steps
        and has["embedding"]
        and viewdata.latest_run(project, dataset, "near-duplicates") is None
    ):
        from vendiscope.core.neighbors.search import find_near_duplicates

        find_near_duplicates(project, dataset, save=False, **jobs)
        done.append("near-duplicates")
    if (
        "clusters" in steps
        and features
        and viewdata.latest_run(project, dataset, "clusters") is None
    ):
        from vendiscope.core.gaps.jobs import cluster_dataset

        cluster_dataset(project, dataset, **jobs)
        done.append("clusters")
    if "map" in steps and features:
        from vendiscope.core.maps.jobs import latest_map, map_dataset

        if latest_map(project, dataset) is None:
            map_dataset(project, dataset, **jobs)
            done.append("map")
    return done


# ----------------------------------------------------------------------------- writing
def write_report(
    project: Project,
    dataset: str,
    destination: Path | str,
    *,
    format: str | None = None,
    force: bool = False,
    target: str | None = None,
    radius: float = 0.8,
    target_vector_set: str | None = None,
    vector_set: str | None = None,
    compute: Sequence[str] = (),
    images: str = "png",
    max_points: int = 200_000,
    contributions: bool = True,
    registry: Any = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> ReportResult:
    """Write the audit of ``dataset`` as HTML (charts embedded) or JSON, atomically.

    ``format`` defaults to the suffix (``.json`` gives JSON, anything else HTML). An existing
    file is refused unless ``force``. ``compute`` names missing steps to run first (see
    :func:`compute_missing`); ``target`` adds coverage of that dataset within ``radius``;
    ``contributions=False`` skips the sources' contributions (see :func:`audit_numbers`).
    """
    from vendiscope.core.base.atomic import atomic_path, check_destination

    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    destination = Path(destination)
    chosen = format or ("json" if destination.suffix.lower() == ".json" else "html")
    if chosen not in FORMATS:
        raise ProjectError(f"format must be one of {', '.join(FORMATS)}; got '{chosen}'")
    if images not in IMAGE_FORMATS:
        raise ProjectError(f"images must be one of {', '.join(IMAGE_FORMATS)}; got '{images}'")
    if not -1.0 <= radius <= 1.0:
        raise ProjectError(f"radius must be a cosine similarity in [-1, 1]; got {radius}")
    check_destination(destination, force=force)
    project.dataset(dataset)
    computed = []
    if compute:
        computed = compute_missing(project, dataset, compute, progress=progress, cancel=cancel)
    progress.start(f"gathering the audit of {dataset}", total=None)
    numbers = audit_numbers(
        project,
        dataset,
        target=target,
        radius=radius,
        target_vector_set=target_vector_set,
        vector_set=vector_set,
        contributions=contributions,
    )
    if target is not None and numbers.get("coverage"):
        computed = [*computed, f"coverage of {target} (run {numbers['coverage']['run_id']})"]
    numbers["computed"] = computed
    progress.finish()
    cancel.raise_if_cancelled()
    charts: dict[str, dict[str, Any]] = {}
    if chosen == "html":
        charts = audit_charts(project, dataset, numbers, registry=registry, max_points=max_points)
        progress.start("drawing the charts", total=len(charts), unit="charts")
        rendered = {}
        for done, (section, chart) in enumerate(charts.items(), 1):
            cancel.raise_if_cancelled()
            rendered[section] = _image(chart, images)
            progress.update(done)
        progress.finish()
        text = report_html(numbers, rendered)
    else:
        text = json.dumps(numbers, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    with atomic_path(destination) as temporary:
        temporary.write_text(text, encoding="utf-8")
    return ReportResult(
        destination, chosen, numbers, list(charts), computed, time.perf_counter() - started
    )


def _image(chart: dict[str, Any], images: str) -> dict[str, str]:
    from vendiscope.core.views.render import render_chart

    width, height = CHART_SIZE
    data = render_chart(
        chart, images, width=width, height=height, dpi=150 if images == "png" else 100
    )
    mime = "image/png" if images == "png" else "image/svg+xml"
    return {
        "src": f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}",
        "alt": chart["title"],
    }


# ----------------------------------------------------------------------------- HTML
_CSS = """
body{font-family:-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif;color:#1a1a1a;
background:#fff;margin:0 auto;max-width:1000px;padding:24px 28px 60px;line-height:1.45}
h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.25em;margin:36px 0 8px;padding-bottom:4px;
border-bottom:1px solid #ddd}h3{font-size:1.05em;margin:20px 0 6px}
.meta{color:#555;font-size:.9em}.cards{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
.card{border:1px solid #ddd;border-radius:6px;padding:10px 14px;min-width:170px;flex:1}
.card .value{font-size:1.5em;font-weight:600}.card .label{color:#555;font-size:.85em}
.card .note{color:#555;font-size:.8em}
table{border-collapse:collapse;width:100%;font-size:.9em;margin:8px 0}
th,td{border-bottom:1px solid #e5e5e5;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#f5f5f5}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.missing{color:#7a4b00;background:#fff7e6;border:1px solid #f0d9a8;border-radius:4px;
padding:6px 10px}code{background:#f2f2f2;border-radius:3px;padding:1px 4px;font-size:.9em;
word-break:break-all}img{max-width:100%;height:auto;display:block;margin:8px 0}
.text{white-space:pre-wrap;word-break:break-word}footer{margin-top:40px;color:#666;font-size:.8em}
"""


def _e(value: Any) -> str:
    """Escape anything for HTML text or attributes."""
    return html.escape("" if value is None else str(value), quote=True)


def _num(value: Any, digits: int = 1) -> str:
    if value is None:
        return "—"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def _pct(value: Any) -> str:
    return "—" if value is None else f"{value:.1%}"


def _missing(numbers: dict[str, Any], section: str) -> str:
    parts = []
    for item in numbers["missing"]:
        if item["section"] != section:
            continue
        if item.get("command"):
            commands = " then ".join(
                f"<code>{_e(c)}</code>" for c in item["command"].split("` then `")
            )
            parts.append(
                f'<p class="missing">{_e(item["what"])}: not computed — run {commands}</p>'
            )
        else:
            parts.append(f'<p class="missing">{_e(item["message"])}</p>')
    return "".join(parts)


def _img(images: dict[str, dict[str, str]], section: str) -> str:
    image = images.get(section)
    if image is None:
        return ""
    return f'<img src="{image["src"]}" alt="{_e(image["alt"])}">'


def _card(label: str, value: str, note: str = "") -> str:
    note_html = f'<div class="note">{note}</div>' if note else ""
    return (
        f'<div class="card"><div class="label">{label}</div><div class="value">{value}'
        f"</div>{note_html}</div>"
    )


def _table(header: Sequence[tuple[str, bool]], rows: Sequence[Sequence[str]]) -> str:
    """``header``: (title, numeric) pairs; cells are already escaped HTML."""
    head = "".join(f'<th class="num">{t}</th>' if n else f"<th>{t}</th>" for t, n in header)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{c}</td>' if header[i][1] else f"<td>{c}</td>"
            for i, c in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _records(records: Sequence[dict[str, Any]]) -> str:
    return "".join(
        f'<div class="text">#{_e(r.get("position"))}'
        + (f" [{_e(r['source'])}]" if r.get("source") else "")
        + f": {_e(r.get('text'))}</div>"
        for r in records
    )


def report_html(numbers: dict[str, Any], images: dict[str, dict[str, str]]) -> str:
    """The report page: ``numbers`` from :func:`audit_numbers`, ``images`` by section
    (``{"src": data URI, "alt": text}``). Every dataset-derived string is escaped."""
    h = numbers["headline"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "img-src data:; style-src 'unsafe-inline'\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Diversity audit: {_e(numbers['dataset'])}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>Diversity audit of {_e(numbers['dataset'])}</h1>",
        f'<p class="meta">{_num(numbers["records"])} records · project {_e(numbers["project"])}'
        f" · source {_e(numbers['source_uri'])} · generated {_e(numbers['generated_at'])} by "
        f"Vendiscope {_e(numbers['vendiscope'])}</p>",
    ]
    parts += _headline_html(numbers, h, images)
    parts += _sources_html(numbers, images)
    parts += _clusters_html(numbers, images)
    parts += _near_html(numbers, images)
    if numbers.get("coverage") is not None or any(
        m["section"] == "coverage" for m in numbers["missing"]
    ):
        parts += _coverage_html(numbers, images)
    parts += _selection_html(numbers, images)
    parts.append("<h2>Provenance</h2>")
    runs = ", ".join(str(r) for r in numbers["runs"]) or "none"
    computed = ", ".join(numbers.get("computed") or []) or "nothing"
    parts.append(
        f"<p>Runs of the project this report draws on (their parameters, seeds and "
        f"library versions are recorded there): {_e(runs)}. Computed for this report: "
        f"{_e(computed)}.</p>"
    )
    parts.append(
        "<footer>Vendi scores are effective numbers of distinct examples (Friedman "
        "&amp; Dieng 2023); G-Vendi uses projected gradients of a proxy language "
        "model (Jung et al. 2025, Prismatic Synthesis).</footer></body></html>"
    )
    return "\n".join(parts)


def _headline_html(
    numbers: dict[str, Any], h: dict[str, Any], images: dict[str, dict[str, str]]
) -> list[str]:
    out = ["<h2>Headline</h2>", '<div class="cards">']
    for key, label in (("gvendi", "G-Vendi"), ("embedding_vendi", "embedding-Vendi")):
        score = h[key]
        if score is None:
            out.append(_card(label, "—", "not computed"))
            continue
        note = f"{_pct(score['fraction'])} of {_num(score['n'])} records"
        if score.get("ci"):
            note += (
                f"; {_num(score['ci'][0])} to {_num(score['ci'][1])} ({_pct(score['ci_level'])})"
            )
        out.append(_card(label, _num(score["value"]), note))
    effective = h["effective_number"]
    out.append(
        _card(
            "effective number of distinct examples",
            _num(effective),
            f"by {_e(h['effective_number_basis'])}: {_pct(h['effective_fraction'])} of the records"
            if effective is not None
            else "needs a Vendi score",
        )
    )
    out.append(
        _card(
            "exact duplicates",
            _num(h["exact_duplicates"]),
            f"{_pct(h['exact_duplicate_fraction'])} of the records",
        )
    )
    near = h["near_duplicates"]
    if near is None:
        out.append(_card("near-duplicates", "—", "not computed"))
    else:
        out.append(
            _card(
                "near-duplicates (redundant)",
                _num(near["redundant"]),
                f"{_num(near['groups'])} groups at cosine ≥ {_e(near['threshold'])}; "
                f"{_pct(near['redundant_fraction'])} of the records",
            )
        )
    out.append("</div>")
    out.append(_missing(numbers, "headline"))
    if "spectrum" in images:
        out.append(
            "<p>The Vendi score is the exponential of the entropy of these eigenvalues: a flat "
            "spectrum means many equally important directions, a steep one a few dominant "
            "themes.</p>"
        )
        out.append(_img(images, "spectrum"))
    return out


def _sources_html(numbers: dict[str, Any], images: dict[str, dict[str, str]]) -> list[str]:
    out = ["<h2>Sources</h2>"]
    table = numbers.get("sources")
    if table is None:
        return [*out, _missing(numbers, "sources")]
    basis = table["contribution_basis"]
    header = [
        ("source", False),
        ("records", True),
        ("share", True),
        ("G-Vendi", True),
        ("embedding-Vendi", True),
        ("contribution", True),
    ]
    rows = [
        [
            _e(r["source"]),
            _num(r["records"]),
            _pct(r["share"]),
            _num(r["gvendi"]),
            _num(r["vendi"]),
            _num(r["contribution"], 2),
        ]
        for r in table["sources"]
    ]
    out.append(_table(header, rows))
    if basis:
        out.append(
            f"<p>Each source's own score is the Vendi score of that source alone. Its "
            f"contribution is how much the whole dataset's {_e(viewdata.METRIC_TITLES[basis])} "
            f"({_num(table['whole'])}, on <code>{_e(table['contribution_vector_set'])}</code>) "
            "drops without it; a negative contribution means the rest is more diverse "
            "without it.</p>"
        )
    out.append(_img(images, "sources"))
    return out


def _clusters_html(numbers: dict[str, Any], images: dict[str, dict[str, str]]) -> list[str]:
    out = ["<h2>Map and sparse clusters</h2>"]
    if numbers.get("map"):
        m = numbers["map"]
        trust = m.get("trustworthiness")
        out.append(
            f"<p>Map <code>{_e(m['map'])}</code> ({_e(m['method'])} of "
            f"<code>{_e(m['vector_set'])}</code>"
            + (f"; trustworthiness {trust:.3f}" if trust is not None else "")
            + ").</p>"
        )
    out.append(_img(images, "map"))
    out.append(_missing(numbers, "map"))
    c = numbers.get("clusters")
    if c is None:
        return [*out, _missing(numbers, "clusters")]
    out.append(
        f"<p>{_num(c['n_clusters'])} clusters of <code>{_e(c['vector_set'])}</code> (median size "
        f"{_num(c['median_size'])}); <strong>{_num(c['sparse_clusters'])} sparse clusters</strong>"
        f" (smaller than the median: under-represented regions) hold "
        f"{_num(c['records_in_sparse'])} records ({_pct(c['sparse_fraction_of_records'])}).</p>"
    )
    out.append(_img(images, "clusters"))
    if c["smallest_sparse"]:
        out.append("<h3>The smallest sparse clusters, with example records</h3>")
        rows = [
            [_e(s["cluster"]), _num(s["size"]), _records(s["records"])]
            for s in c["smallest_sparse"]
        ]
        out.append(_table([("cluster", True), ("size", True), ("example records", False)], rows))
    return out


def _near_html(numbers: dict[str, Any], images: dict[str, dict[str, str]]) -> list[str]:
    out = ["<h2>Near-duplicates</h2>"]
    near = numbers.get("near_duplicates")
    if near is None:
        return [*out, _missing(numbers, "near-duplicates")]
    out.append(
        f"<p>At cosine ≥ {_e(near['threshold'])} on <code>{_e(near['vector_set'])}</code>: "
        f"{_num(near['groups'])} groups hold {_num(near['records_in_groups'])} records, of which "
        f"{_num(near['redundant'])} are redundant (all but one per group); the largest group has "
        f"{_num(near['largest_group'])} records.</p>"
    )
    out.append(_img(images, "near-duplicates"))
    if near["largest_groups"]:
        rows = [[_num(g["size"]), _records(g["records"])] for g in near["largest_groups"]]
        out.append("<h3>The largest groups</h3>")
        out.append(_table([("records", True), ("first members", False)], rows))
    return out


def _coverage_html(numbers: dict[str, Any], images: dict[str, dict[str, str]]) -> list[str]:
    out = ["<h2>Coverage of the target set</h2>"]
    cov = numbers.get("coverage")
    if cov is None:
        return [*out, _missing(numbers, "coverage")]
    q = cov.get("similarity_quantiles") or {}
    out.append(
        f"<p><strong>{_pct(cov['fraction'])}</strong> of the {_num(cov['targets'])} records of "
        f"<code>{_e(cov['target_dataset'])}</code> have a record of "
        f"<code>{_e(cov['train_dataset'])}</code> within cosine {_e(cov['radius'])} "
        f"({_num(cov['covered'])} covered, {_num(cov['uncovered_count'])} not). "
        "Nearest-record similarity: "
        + ", ".join(f"{_e(k)} {v:.3f}" for k, v in q.items())
        + ".</p>"
    )
    out.append(_img(images, "coverage"))
    if cov["least_covered"]:
        out.append(
            f"<h3>Uncovered target records (the {len(cov['least_covered'])} least covered)</h3>"
        )
        rows = [
            [_records([i["target"]]), f"{i['similarity']:.3f}", _records([i["nearest"]])]
            for i in cov["least_covered"]
        ]
        out.append(
            _table(
                [
                    ("target record", False),
                    ("similarity", True),
                    ("nearest training record", False),
                ],
                rows,
            )
        )
    return out


def _selection_html(numbers: dict[str, Any], images: dict[str, dict[str, str]]) -> list[str]:
    out = ["<h2>Selections</h2>"]
    runs = numbers.get("selections") or []
    if not runs:
        return [*out, _missing(numbers, "selections")]
    sets: list[str] = []
    for run in runs:
        for name in run["vendi"]:
            if name not in sets:
                sets.append(name)
    header = [("run", True), ("method", False), ("k", True), ("subset", False)]
    for name in sets:
        header += [(f"Vendi on {_e(name)}", True), ("random", True), ("&times; random", True)]
    rows = []
    for run in runs:
        subset = _e(run["subset"]) + ("" if run["subset_exists"] else " (deleted)")
        row = [_e(run["run_id"]), _e(run["method"]), _num(run["k"]), subset]
        for name in sets:
            ratio = run["vs_random"].get(name)
            row += [
                _num(run["vendi"].get(name), 2),
                _num(run["random_vendi"].get(name), 2),
                "—" if ratio is None else f"{ratio:.2f}&times;",
            ]
        rows.append(row)
    out.append(_table(header, rows))
    out.append(
        "<p>Vendi of the selected records against a random sample of as many "
        "candidates (the baseline): the higher the ratio, the more diversity the method "
        "keeps.</p>"
    )
    out.append(_img(images, "selections"))
    out.append(_img(images, "selection-map"))
    return out


__all__ = [
    "COMPUTE_STEPS",
    "FORMATS",
    "ReportResult",
    "audit_charts",
    "audit_numbers",
    "compute_missing",
    "report_html",
    "write_report",
]
