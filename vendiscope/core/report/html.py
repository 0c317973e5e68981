"""The report page: self-contained HTML and CSS from the report's numbers and charts.

The page needs nothing else: no external CSS, scripts, fonts or images (charts are embedded
as base64 PNG or SVG images by :func:`chart_image`). Every string taken from the dataset or
the project is escaped, and a Content-Security-Policy forbids scripts, so a record holding
``<script>`` is shown as text, never run.
"""

from __future__ import annotations

import base64
import html
import shlex
from collections.abc import Sequence
from typing import Any

from vendiscope.core.report.options import IMAGE_FORMATS
from vendiscope.core.view_data import data as viewdata

CHART_SIZE = (900, 520)


def chart_image(chart: dict[str, Any], images: str) -> dict[str, str]:
    """``chart`` drawn as ``images`` (png or svg): ``{"src": data URI, "alt": its title}``."""
    from vendiscope.core.view_data.render import render_chart

    width, height = CHART_SIZE
    data = render_chart(
        chart, images, width=width, height=height, dpi=150 if images == "png" else 100
    )
    mime = "image/png" if images == "png" else "image/svg+xml"
    return {
        "src": f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}",
        "alt": chart["title"],
    }


_CSS = """
body{font-family:-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif;color:#1a1a1a;
background:#fff;margin:0 auto;max-width:1000px;padding:24px 28px 60px;line-height:1.45}
h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.25em;margin:36px 0 8px;padding-bottom:4px;
border-bottom:1px solid #ddd}h3{font-size:1.05em;margin:20px 0 6px}
.meta{color:#555;font-size:.9em}.cards{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
.card{border:1px solid #ddd;border-radius:6px;padding:10px 14px;min-width:170px;flex:1}
.card .value{font-size:1.5em;font-weight:600}.card .label{color:#555;font-size:.85em}
.card .note{color:#555;font-size:.8em}.card .spread{font-size:.55em;font-weight:400;color:#555}
.card .verdict{margin-top:3px;font-style:italic}
.card .verdict.saturated,.card .verdict.too_small,.card .verdict.does_not{color:#8a5300}
.verdicts{color:#333;font-size:.9em}
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
        if item.get("commands"):
            commands = " then ".join(f"<code>{_e(c)}</code>" for c in item["commands"])
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


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _when(stamp: str) -> str:
    """An ISO 8601 time for people: ``5 Dec 2026, 14:03 UTC`` (the ISO text stays in the
    ``datetime`` attribute of a ``<time>`` element and in the JSON report)."""
    from datetime import datetime, timezone

    try:
        moment = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return _e(stamp)
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    zone = " UTC" if moment.tzinfo is not None else ""
    shown = f"{moment.day} {_MONTHS[moment.month - 1]} {moment.year}, {moment:%H:%M}{zone}"
    return f'<time datetime="{_e(stamp)}">{shown}</time>'


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
        f" · source {_e(numbers['source_uri'])} · generated {_when(numbers['generated_at'])} by "
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
    parts += _quality_html(numbers)
    parts += _selection_html(numbers, images)
    if numbers.get("synthesis") or any(m["section"] == "synthesis" for m in numbers["missing"]):
        parts += _synthesis_html(numbers, images)
    if numbers.get("studies") or any(m["section"] == "studies" for m in numbers["missing"]):
        parts += _studies_html(numbers, images)
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
    from vendiscope.core.metrics.algorithms.resolution import projection_text, short_verdict

    out = ["<h2>Headline</h2>", '<div class="cards">']
    sample = h.get("sample")
    if sample:  # a sample's scores stand for the sampled dataset's at the sample's size
        said = f"{sample['describe']}: its scores estimate {sample['parent']}'s at n = "
        out.insert(1, f'<p class="meta">({_e(said)}{_num(sample["rows"])})</p>')
    verdicts = []
    for key, label in (("gvendi", "G-Vendi"), ("embedding_vendi", "embedding-Vendi")):
        score = h[key]
        if score is None:
            out.append(_card(label, "—", "not computed"))
            continue
        n = _num(score["n"])
        note = f"of {n} records (n = {n}), {_pct(score['fraction'])} of them distinct"
        if score.get("mean_cosine") is not None:
            note += f"; mean cosine {score['mean_cosine']:.2f}"
        if score.get("ci"):
            note += (
                f"; {_num(score['ci'][0])} to {_num(score['ci'][1])} ({_pct(score['ci_level'])})"
            )
        verdict = score.get("verdict")
        if isinstance(verdict, dict) and verdict.get("text"):
            words = short_verdict(verdict) or str(verdict.get("level", ""))
            note += (
                f'<div class="verdict {_e(verdict.get("level", ""))}" '
                f'title="{_e(verdict["text"])}">{_e(words)}</div>'
            )
            verdicts.append(f"<li><strong>{label}</strong>: {_e(verdict['text'])}</li>")
        spread = projection_text({"projection_error": score.get("projection_error")})
        value = _num(score["value"])
        if spread:
            value += f' <span class="spread">{_e(spread.strip())}</span>'
        out.append(_card(label, value, note))
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
    if verdicts:
        out.append(f'<ul class="verdicts">{"".join(verdicts)}</ul>')
    if h.get("advice"):
        out.append(f'<p class="verdicts"><strong>{_e(h["advice"])}</strong></p>')
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
    from vendiscope.core.metrics.algorithms import equal_n

    basis = table["contribution_basis"]
    at = table.get("equal_n") or {}  # the size each score is compared at (None: older runs)
    header = [("source", False), ("records", True), ("share", True)]
    for metric in ("gvendi", "vendi"):
        header.append((_e(viewdata.METRIC_TITLES[metric]), True))
        if at.get(metric):
            header.append((f"{_e(viewdata.METRIC_TITLES[metric])} at n&nbsp;=&nbsp;"
                           f"{_num(at[metric])}", True))  # fmt: skip
    header.append(("contribution", True))
    rows = []
    for r in table["sources"]:
        cells = [_e(r["source"]), _num(r["records"]), _pct(r["share"])]
        for metric in ("gvendi", "vendi"):
            cells.append(_num(r[metric]))
            if at.get(metric):
                found = r.get(f"{metric}_equal_n")
                cells.append(_e(equal_n.figure(found, digits=1)) if found else "—")
        rows.append([*cells, _num(r["contribution"], 2)])
    out.append(_table(header, rows))
    drawn = [f for r in table["sources"] for m in at if (f := r.get(f"{m}_equal_n"))]
    if drawn:
        draws = max(int(f["draws"]) for f in drawn)
        out.append(
            "<p>A score grows with the number of records, so sources of different sizes are "
            "compared at one size: “at n = …” is each source's score at the smallest scored "
            f"source's size, the mean ± sd of {draws} random draws of that many records from "
            "each larger source. Compare sources by it, not by their own scores.</p>"
        )
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


def _quality_html(numbers: dict[str, Any]) -> list[str]:
    out = ["<h2>Quality</h2>"]
    quality = numbers.get("quality")
    if not quality:
        where = (shlex.quote(str(numbers["project"])), shlex.quote(str(numbers["dataset"])))
        command = "vendiscope signals {} {}".format(*where)
        return [
            *out,
            f'<p class="missing">No curation signals computed (quality heuristics, '
            f"personal data, language, duplicates) — run <code>{_e(command)}</code></p>",
        ]
    flags = [q for q in quality if q["kind"] == "flag"]
    if flags:
        out.append("<p>Records each curation signal flags (and the sources most flagged):</p>")
        rows = [
            [_e(q["column"]), _num(q["flagged"]), _pct(q["share"]),
             _e(", ".join(f"{s or '(none)'} {n:,}" for s, n in list(q["by_source"].items())[:4]))]
            for q in flags
        ]  # fmt: skip
        out.append(_table([("flag", False), ("records", True), ("share", True),
                           ("by source", False)], rows))  # fmt: skip
    values = [q for q in quality if q["kind"] != "flag"]
    if values:
        rows = [
            [_e(q["column"]),
             _e(", ".join(f"{label} {n:,}" for label, n in q["top"])) if q["kind"] == "label"
             else f"{_e(_short(q['median']))} (5-95%: {_e(_short(q['p5']))} to "
                  f"{_e(_short(q['p95']))})"]
            for q in values
        ]  # fmt: skip
        out.append(_table([("value", False), ("median (range), or the commonest", False)], rows))
    return out


def _short(value: Any) -> str:
    return "—" if value is None else f"{value:,.3g}"


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


def _synthesis_html(numbers: dict[str, Any], images: dict[str, dict[str, str]]) -> list[str]:
    out = [
        "<h2>Synthesis</h2>",
        "<p>New examples generated to fill the gaps of the pool (Prismatic Synthesis). The "
        "curve is the G-Vendi of the pool plus the accepted generations after each round; the "
        "baseline is the G-Vendi of the pool plus as many generations taken without the "
        "filter. A curve above its baseline means the filter kept generations that add "
        "diversity.</p>",
    ]
    for run in numbers["synthesis"]:
        out.append(
            f"<h3>Run {_e(run['run_id'])}: <code>{_e(run['pool'])}</code> → "
            f"<code>{_e(run['name'])}</code></h3>"
        )
        out.append(
            f"<p>{_e(run['note'])}. G-Vendi of the pool alone {_num(run['pool_gvendi'], 2)}; "
            f"with the accepted generations {_num(run['gvendi'], 2)}; with as many unfiltered "
            f"ones {_num(run['baseline'], 2)}. Every generation, accepted or not, is in "
            f"<code>{_e(run['all'])}</code>.</p>"
        )
        out.append(_img(images, f"synthesis-{run['run_id']}"))
        header = [
            ("round", True),
            ("accepted", True),
            ("accepted in all", True),
            ("generated", True),
            ("G-Vendi", True),
            ("baseline", True),
            ("gain vs baseline", True),
            ("top reject reasons", False),
        ]
        rows = [
            [
                _num(r["round"]),
                _num(r["accepted"]),
                _num(r["accepted_total"]),
                _num(r["generated"]),
                _num(r["gvendi"], 2),
                _num(r["baseline"], 2),
                "—" if r["gain"] is None else f"{r['gain']:+,.2f}",
                _e(", ".join(f"{x['reason']} ({x['count']:,})" for x in r["reasons"])) or "—",
            ]
            for r in run["rounds"]
        ]
        out.append(_table(header, rows))
    out.append(_missing(numbers, "synthesis"))
    return out


def _studies_html(numbers: dict[str, Any], images: dict[str, dict[str, str]]) -> list[str]:
    from vendiscope.core.report.charts import study_section

    out = [
        "<h2>Studies</h2>",
        "<p>Does a diversity metric of a subset predict how well a model trained on it does? "
        "A study trains a small model on many subsets of the pool (random ones and controls) "
        "and ranks the subsets by each metric and by the improvement of the model's loss on "
        "the target. Spearman and Kendall are rank correlations over the subsets, with "
        "bootstrap intervals; a metric predicts the outcome when its correlation is positive "
        "and its p-value small.</p>",
    ]
    for study in numbers.get("studies") or []:
        out.append(
            f"<h3>Study {_e(study['name'])} (run {_e(study['run_id'])}): "
            f"<code>{_e(study['pool'])}</code> → target <code>{_e(study['target'])}</code></h3>"
        )
        plan = f" Plan: {_e(study['plan'])}." if study.get("plan") else ""
        out.append(f"<p>{_e(study['note'])}.{plan}</p>")
        out.append(f"<p><strong>{_e(study['verdict'])}</strong></p>")
        if study.get("pilot") and study["pilot"].get("detail"):
            pilot = study["pilot"]
            anyway = pilot.get("forced") and not pilot.get("separable")
            forced = " (the study went on anyway: forced)" if anyway else ""
            out.append(f"<p>Pilot: {_e(pilot['detail'])}{_e(forced)}.</p>")
        if study["evidence"]:
            out.append(_evidence_table(study["evidence"]))
        ordinary = study.get("ordinary")
        if ordinary:
            out.append(
                "<p>Without the duplicate-heavy controls (low diversity by construction, they "
                f"lift every metric): {_e(ordinary['verdict'])}</p>"
            )
            if ordinary["evidence"]:
                out.append(_evidence_table(ordinary["evidence"]))
        accuracy = study.get("accuracy")
        if accuracy:
            out.append(f"<p>Target accuracy: {_e(accuracy['verdict'])}</p>")
            if accuracy["evidence"]:
                out.append(_evidence_table(accuracy["evidence"]))
        for metric in study["charts"]:
            out.append(_img(images, study_section(study["run_id"], metric)))
        for note in study.get("notes") or []:
            out.append(f'<p class="meta">{_e(note)}</p>')
    out.append(_missing(numbers, "studies"))
    return out


def _evidence_table(rows: Sequence[dict[str, Any]]) -> str:
    header = [
        ("metric", False),
        ("subsets", True),
        ("Spearman [95% CI]", True),
        ("p", True),
        ("Kendall", True),
        ("p", True),
    ]
    cells = []
    for r in rows:
        low, high = r["spearman_ci"] or (None, None)
        interval = "" if low is None or high is None else f" [{low:.2f}, {high:.2f}]"
        spearman = "—" if r["spearman"] is None else f"{r['spearman']:.2f}{interval}"
        kendall = "—" if r["kendall"] is None else f"{r['kendall']:.2f}"
        cells.append([
            _e(r["label"]), _num(r["n"]), spearman, _p(r["spearman_p"]), kendall,
            _p(r["kendall_p"]),
        ])  # fmt: skip
    return _table(header, cells)


def _p(value: Any) -> str:
    if value is None:
        return "—"
    return "&lt; 0.001" if value < 0.001 else f"{value:.2g}"


__all__ = ["CHART_SIZE", "IMAGE_FORMATS", "chart_image", "report_html"]
