"""The report's source table: each source's score at the smallest source's size, with it."""

from __future__ import annotations

from pathlib import Path

from tests.core._planted import planted_dataset
from vendiscope.core.metrics.scoring import score_dataset
from vendiscope.core.report.html import _sources_html
from vendiscope.core.view_data import data as viewdata


def test_the_source_table_carries_and_shows_the_score_at_equal_n(project, tmp_path: Path) -> None:
    planted_dataset(project, tmp_path)  # sources of 396, 274, 178 and 130 records
    result = score_dataset(project, "pool", metric="gvendi", params={"per_record": None})
    table = viewdata.source_table(project, "pool", contributions=None)
    assert table["equal_n"] == {"gvendi": 130, "vendi": None}  # embedding-Vendi: not scored
    rows = {r["source"]: r for r in table["sources"]}
    for source, row in result.per_source.items():
        assert rows[source]["gvendi_equal_n"] == row["equal_n"]
        assert rows[source]["vendi_equal_n"] is None
    page = "".join(_sources_html({"sources": table, "missing": []}, {}))
    assert "G-Vendi at n&nbsp;=&nbsp;130</th>" in page
    at = result.per_source["c0"]["equal_n"]
    assert f'<td class="num">{at["mean"]:,.1f} ± {at["sd"]:,.1f}</td>' in page
    assert f'<td class="num">{result.per_source["c3"]["value"]:,.1f}</td>' in page
    assert "mean ± sd of 5 random draws" in page
    assert "embedding-Vendi at n" not in page  # no column for a score that is not there


def test_numbers_from_before_equal_n_still_render(project, tmp_path: Path) -> None:
    planted_dataset(project, tmp_path)
    result = score_dataset(project, "pool", metric="gvendi", params={"per_record": None})
    table = viewdata.source_table(project, "pool", contributions=None)
    del table["equal_n"]  # the table as it was before: no score at equal n anywhere
    for row in table["sources"]:
        del row["gvendi_equal_n"], row["vendi_equal_n"]
    page = "".join(_sources_html({"sources": table, "missing": []}, {}))
    assert " at n" not in page and "random draws" not in page
    assert f"{result.per_source['c0']['value']:,.1f}" in page  # the sources' own scores
