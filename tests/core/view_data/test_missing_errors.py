"""What is missing, as fields: NotComputed and MissingVectors carry the step, the dataset, the
vector kind and the arguments; their messages are written from them, and they survive a trip
through pickle (jobs run in child processes)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from tests.conftest import qa_rows, write_jsonl
from tests.core._planted import planted_dataset
from vendiscope.api import Contribution, PluginManifest, View
from vendiscope.core.base.errors import PluginRuntimeError, ProjectError
from vendiscope.core.clusters.jobs import cluster_dataset, filter_candidates
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.plugin_host.registry import PluginRegistry
from vendiscope.core.vectors.missing import MissingVectors
from vendiscope.core.vectors.resolve import missing_message, resolve
from vendiscope.core.view_data import data as viewdata
from vendiscope.core.view_data.missing import Command, NotComputed


def round_trip(error: BaseException) -> BaseException:
    again = pickle.loads(pickle.dumps(error, protocol=pickle.HIGHEST_PROTOCOL))
    assert type(again) is type(error) and str(again) == str(error)
    return again


def test_a_command_is_its_line_and_keeps_its_parts(tmp_path: Path) -> None:
    where = tmp_path / "my audit.vscope"
    found = Command("score", where, "train", ("--metric", "vendi"))
    assert found == f"vendiscope score '{where}' train --metric vendi"
    assert (found.name, found.project, found.dataset) == ("score", str(where), "train")
    assert found.arguments == ("--metric", "vendi") and found.option("--metric") == "vendi"
    assert found.option("-k") is None
    again = pickle.loads(pickle.dumps(found))
    assert again == found and type(again) is Command and again.arguments == found.arguments


def test_not_computed_carries_the_step_dataset_and_arguments(project, tmp_path: Path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(10)), name="d")
    where = project.location
    with pytest.raises(NotComputed) as caught:
        viewdata.cluster_run(project, "d")
    error = caught.value
    assert str(error) == f"clustering not computed yet; run `vendiscope clusters {where} d`"
    assert (error.what, error.step, error.dataset, error.arguments) == ("clustering", "clusters",
                                                                         "d", ())  # fmt: skip
    assert error.command == f"vendiscope clusters {where} d"
    again = round_trip(error)
    assert (again.what, again.step, again.dataset, again.command) == (
        error.what, error.step, error.dataset, error.command)  # fmt: skip

    # a score without its vectors: two commands, the vectors' first
    with pytest.raises(NotComputed) as caught:
        viewdata.score_summary(project, "d", "vendi")
    error = caught.value
    score = error.commands[1]
    assert str(error) == (
        f"embedding-Vendi not computed yet; run `vendiscope embed {where} d` then "
        f"`vendiscope score {where} d --metric vendi`"
    )
    assert (error.step, error.dataset, error.arguments) == ("embed", "d", ())
    assert (score.name, score.arguments, score.option("--metric")) == ("score",
                                                                       ("--metric", "vendi"),
                                                                       "vendi")  # fmt: skip
    again = round_trip(error)
    assert [c.name for c in again.commands] == ["embed", "score"]
    assert again.commands[1].option("--metric") == "vendi"


def test_a_command_a_plugin_wrote_as_text_still_works() -> None:
    error = NotComputed("x", "vendiscope map P D")
    assert str(error) == "x not computed yet; run `vendiscope map P D`"
    assert error.command == "vendiscope map P D"
    assert (error.step, error.dataset, error.arguments) == (None, None, ())  # no fields: no guess
    assert round_trip(error).command == error.command


def test_missing_vectors_names_the_dataset_and_kind(project, tmp_path: Path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(10)), name="d")
    with pytest.raises(MissingVectors) as caught:
        resolve(project, "d", None, ("embedding",))
    error = caught.value
    assert isinstance(error, ProjectError)  # callers that catch ProjectError still do
    assert str(error) == (
        "dataset 'd' has no complete embedding vector set; run `vendiscope embed` first"
    )
    assert (error.dataset, error.kind, error.kinds) == ("d", "embedding", ("embedding",))
    assert error.model is None
    again = round_trip(error)
    assert (again.dataset, again.kind) == ("d", "embedding")

    with pytest.raises(MissingVectors) as caught:
        resolve(project, "d")  # any feature kind would do: no single kind to compute
    error = caught.value
    assert (
        str(error)
        == missing_message("d")
        == (
            "dataset 'd' has no complete gradient or embedding vector set; run "
            "`vendiscope gradients` or `vendiscope embed` first"
        )
    )
    assert error.kind is None and error.commands == ("vendiscope gradients", "vendiscope embed")


def test_candidates_without_the_pool_s_model_say_so_with_fields(project, tmp_path: Path) -> None:
    planted_dataset(project, tmp_path)  # "pool", with gradients/planted (model "planted")
    cluster_dataset(project, "pool", n_clusters=4)
    import_dataset(project, write_jsonl(tmp_path / "c.jsonl", qa_rows(10)), name="cands")
    with pytest.raises(MissingVectors) as caught:
        filter_candidates(project, "pool", "cands")
    error = caught.value
    assert str(error) == (
        "dataset 'cands' has no complete gradient vector set made by 'planted' (the model of "
        "the pool's 'gradients/planted'); compute one with the same settings first"
    )
    assert (error.dataset, error.kind, error.model, error.reference) == (
        "cands", "gradient", "planted", "gradients/planted")  # fmt: skip
    again = round_trip(error)
    assert (again.model, again.reference) == ("planted", "gradients/planted")


class _Refusing(View):
    def build(self, data):
        raise ValueError("needs at least 3 records")


def test_a_view_refusing_its_input_is_marked_as_such() -> None:
    registry = PluginRegistry()
    registry.add_manifest(PluginManifest(name="refusing", contributions=(
        Contribution("view", "refusing", f"{__name__}:_Refusing", "Refuses"),)))  # fmt: skip
    view = registry.create("view", "refusing")
    with pytest.raises(PluginRuntimeError) as caught, registry.running("view", "refusing"):
        view.build({})
    error = caught.value
    assert str(error) == "view 'refusing': needs at least 3 records"
    assert (error.kind, error.name, error.reason) == (
        "view",
        "refusing",
        "needs at least 3 records",
    )
    assert round_trip(error).reason == error.reason
