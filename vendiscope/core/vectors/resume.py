"""The ``vendiscope`` command that resumes an interrupted vector set with its own settings."""

from __future__ import annotations

import shlex
from typing import Any

from vendiscope.core.store.vectors import DEFAULT_CHUNK_ROWS, VectorSetInfo

_NOT_IDENTITY = ("device", "batch_size")  # parameters that do not change the vectors


def resume_command(
    project_label: str, dataset: str, vector_set: VectorSetInfo, mapping: dict[str, Any]
) -> str | None:
    """The ``vendiscope`` command that resumes ``vector_set`` with its own settings.

    ``mapping`` is the dataset's field mapping (to leave out ``--field`` when ``auto`` gives
    the same). None for sets no single command makes (maps, scores, plugin featurizers).
    """
    from vendiscope.core.vectors.embedding import DEFAULT_EMBEDDER, resolve_field
    from vendiscope.core.vectors.featurizing import FEATURE_CHUNK_ROWS

    params = vector_set.params or {}
    head = ["vendiscope"]
    options: list[str] = []
    if vector_set.kind == "embedding" and "embedder" in params:
        embedder = str(params["embedder"])
        field = str(params.get("field") or "auto")
        head += ["embed", project_label, dataset]
        if embedder != DEFAULT_EMBEDDER:
            options += ["--embedder", embedder]
        if field != resolve_field("auto", mapping):
            options += ["--field", field]
        default_name, default_chunk = f"{embedder}/{field}", DEFAULT_CHUNK_ROWS
        plugin_params = dict(params.get("embedder_params") or {})
    elif vector_set.kind == "gradient" and params.get("featurizer") == "gradients":
        plugin_params = dict(params.get("featurizer_params") or {})
        mode = str(plugin_params.pop("mode", None) or "fast")
        head += ["gradients", project_label, dataset]
        if mode != "fast":
            options += ["--mode", mode]
        plugin_params.update(_pinned_precision(vector_set, plugin_params, mode))
        default_name, default_chunk = f"gradients/{mode}", FEATURE_CHUNK_ROWS
    else:
        return None
    if vector_set.name != default_name:
        options += ["--name", vector_set.name]
    if vector_set.chunk_rows != default_chunk:
        options += ["--chunk-rows", str(vector_set.chunk_rows)]
    model = plugin_params.pop("model", None)
    if model is not None:
        options += ["--model", str(model)]
    for key, value in sorted(plugin_params.items()):
        if key not in _NOT_IDENTITY and value is not None:
            options += ["-p", f"{key}={value}"]
    return " ".join(shlex.quote(part) for part in [*head, *options])


def _pinned_precision(
    vector_set: VectorSetInfo, plugin_params: dict[str, Any], mode: str
) -> dict[str, str]:
    """``{"precision": ...}`` when "auto" would now mean another precision than the set's.

    A set made where "auto" meant float32 (a CPU without native bf16, or an older Vendiscope)
    resumes on a bf16 CPU only with its own precision named.
    """
    from vendiscope.core.gradients.features import gradient_precision, model_id_setting

    made = model_id_setting(vector_set.model or "", "precision")
    chosen = str(plugin_params.get("precision") or "auto")
    if made is None or chosen != "auto":
        return {}
    here = gradient_precision("auto", str(plugin_params.get("device") or "auto"), mode)
    return {} if here == made else {"precision": made}
