"""`vendiscope map`, `view` and `report`, driven as a user drives them."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.core._planted import N_ROWS, planted_dataset
from tests.core.view_data.test_views import build_audited
from vendiscope.cli import app
from vendiscope.core.plugin_host import default_registry
from vendiscope.core.plugin_host.charts import validate_chart
from vendiscope.core.store.project import Project

runner = CliRunner()


def run(*args: object, ok: bool = True):
    result = runner.invoke(app, [str(a) for a in args])
    if ok:
        assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_audited(tmp_path_factory.mktemp("cli"))


def test_map_command_stores_a_map_and_prints_its_summary(tmp_path: Path) -> None:
    location = tmp_path / "m.vscope"
    with Project.create(location) as project:
        planted_dataset(project, tmp_path)
    out = run("map", location, "pool", "--method", "pca", "--seed", "2").output
    assert f"mapped {N_ROWS:,} records of pool" in out and "map/pca/run-" in out
    assert "trustworthiness" in out
    got = json.loads(run("map", location, "pool", "--method", "pca", "--json").output)
    assert got["method"] == "pca" and got["fitted_rows"] == N_ROWS and got["trustworthiness"] > 0.5
    with Project.open(location) as project:
        maps = [s for s in project.runs("pool") if s.kind == "projection"]
    assert len(maps) == 2
    bad = run("map", location, "pool", "--method", "tsne", ok=False)
    assert bad.exit_code == 1 and "method: expected one of 'umap', 'pca', got 'tsne'" in bad.output


@pytest.mark.slow
def test_view_command_renders_png_svg_and_json(audited: Path, tmp_path: Path) -> None:
    png = tmp_path / "map.png"
    out = run("view", "map", audited, "pool", "-o", png, "--param", "color_by=source").output
    assert "scatter chart" in out and png.read_bytes().startswith(b"\x89PNG")
    svg = tmp_path / "cov.svg"
    run("view", "coverage", audited, "pool", "--target", "bench", "-o", svg, "-p", "radius=0.9")
    assert b"<svg" in svg.read_bytes()[:600]
    chart_file = tmp_path / "spectrum.json"
    run("view", "spectrum", audited, "pool", "-o", chart_file, "-p", "top=5")
    chart = json.loads(chart_file.read_text())
    validate_chart(chart)
    assert all(len(s["y"]) == 5 for s in chart["series"])
    again = run("view", "spectrum", audited, "pool", "-o", chart_file, ok=False)
    assert again.exit_code == 1 and "already exists" in again.output
    bad = run("view", "map", audited, "pool", "-o", png, "--force", "-p", "max_points=x", ok=False)
    assert bad.exit_code == 2 and "--param max_points" in bad.output
    bad = run("view", "map", audited, "pool", "-o", tmp_path / "m.gif", ok=False)
    assert bad.exit_code == 1 and "use .png, .svg or .json" in bad.output
    bad = run("view", "no-such-view", audited, "pool", "-o", tmp_path / "x.png", ok=False)
    assert bad.exit_code == 1 and "no view named 'no-such-view'" in bad.output


THIRD_PARTY = '''
    import numpy as np
    from vendiscope.api import Contribution, PluginManifest, View

    class LengthHistogram(View):
        """How the dataset's records spread over a score; written against the generic keys."""

        def __init__(self, bins: int = 12):
            self.bins = bins

        def build(self, data):
            if "scores" not in data:
                raise ValueError("data['scores'] is missing")
            values = np.asarray(data["scores"], dtype=float)
            return {"kind": "histogram", "title": f"scores of {data['title']}",
                    "bins": self.bins, "series": [{"name": "score", "values": values.tolist()}]}

    manifest = PluginManifest(
        name="acme-views",
        contributions=(
            Contribution("view", "acme-histogram", "vendiscope_user_plugins.acme:LengthHistogram"),
        ),
    )
'''


def test_a_third_party_view_renders_for_free(
    audited: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "acme.py").write_text(textwrap.dedent(THIRD_PARTY))
    monkeypatch.setenv("VENDISCOPE_PLUGIN_DIR", str(folder))
    default_registry(refresh=True)
    try:
        image = tmp_path / "acme.png"
        out = run("view", "acme-histogram", audited, "pool", "-o", image, "-p", "bins=5").output
        assert "histogram chart scores of pool" in out
        assert image.read_bytes().startswith(b"\x89PNG")
        chart_file = tmp_path / "acme.json"
        run("view", "acme-histogram", audited, "pool", "-o", chart_file)
        chart = json.loads(chart_file.read_text())
        assert len(chart["series"][0]["values"]) == N_ROWS and chart["bins"] == 12
    finally:
        monkeypatch.delenv("VENDISCOPE_PLUGIN_DIR")
        default_registry(refresh=True)


@pytest.mark.slow
def test_report_command_writes_html_and_json(audited: Path, tmp_path: Path) -> None:
    html = tmp_path / "audit.html"
    out = run("report", audited, "pool", "-o", html, "--target", "bench").output
    assert "wrote the HTML audit of pool" in out and "8 charts" in out
    assert "not in the report" not in out
    text = html.read_text()
    assert text.startswith("<!DOCTYPE html>") and "75.0%" in text and "G-Vendi" in text
    data = tmp_path / "audit.json"
    run("report", audited, "pool", "-o", data, "--format", "json")
    numbers = json.loads(data.read_text())
    assert numbers["headline"]["near_duplicates"]["redundant"] == 4
    again = run("report", audited, "pool", "-o", html, ok=False)
    assert again.exit_code == 1 and "already exists" in again.output
    run("report", audited, "pool", "-o", html, "--force", "--images", "svg")
    assert "data:image/svg+xml;base64," in html.read_text()


def test_report_command_names_what_is_missing(tmp_path: Path) -> None:
    location = tmp_path / "bare.vscope"
    with Project.create(location) as project:
        planted_dataset(project, tmp_path)
    out = run("report", location, "pool", "-o", tmp_path / "bare.html").output
    assert "not in the report" in out and "vendiscope clusters" in out
    assert "vendiscope map" in out
