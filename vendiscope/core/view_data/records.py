"""Records and vector sets as views read them: sources, shortened texts, and which stored set a
view shows when none is named (through :mod:`vendiscope.core.vectors.resolve`, the one rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.text import shorten
from vendiscope.core.store import vectors
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.store.view_queries import record_sources
from vendiscope.core.vectors.resolve import PREFERENCE, resolve
from vendiscope.core.view_data.constants import TEXT_WIDTH
from vendiscope.core.view_data.missing import NotComputed, command

if TYPE_CHECKING:
    from vendiscope.core.store.project import Project

"""The kinds a view's generic ``vectors`` prefer before the others of
:data:`~vendiscope.core.vectors.resolve.PREFERENCE` (API 1.0: the latest embedding set)."""


def record_texts(
    project: Project, dataset: str, positions: Sequence[int], width: int = TEXT_WIDTH
) -> dict[int, dict[str, Any]]:
    """Shortened text and source of the records at ``positions``, by position."""
    from vendiscope.core.neighbors.search import records_at

    found = records_at(project, dataset, [int(p) for p in positions])
    return {
        p: {"position": p, "text": shorten(r.display_text(), width), "source": r.source,
            "id": r.ext_id}
        for p, r in found.items()
    }  # fmt: skip


def feature_set(project: Project, dataset: str, name: str | None = None) -> VectorSetInfo | None:
    """The feature vectors a view reads as ``vectors``: the complete set ``name``, else the
    one every job uses (:func:`resolve`: gradients, then embeddings, then other features);
    None when the dataset has none."""
    if name is not None:
        return resolve(project, dataset, name, PREFERENCE)
    try:
        return resolve(project, dataset, None, PREFERENCE)
    except ProjectError:
        return None


def score_set(project: Project, dataset: str, name: str | None = None) -> VectorSetInfo:
    """A one-column per-record score set: ``name`` or the latest (raises :class:`NotComputed`)."""
    if name is not None:
        found = vectors.complete_set(project, dataset, name)
        if found.dim != 1:
            raise ProjectError(f"vector set '{name}' has {found.dim} columns; a score has one")
        return found
    try:
        return resolve(project, dataset, None, ("score",))
    except ProjectError:
        raise NotComputed("per-record scores", command(project, "score", dataset)) from None


def map_set(project: Project, dataset: str, name: str | None = None) -> VectorSetInfo:
    """The named projection set, or the latest complete map (raises :class:`NotComputed`)."""
    if name is not None:
        found = vectors.complete_set(project, dataset, name)
        if found.kind != "projection" or found.dim != 2:
            raise ProjectError(f"vector set '{name}' is not a 2-D map (kind {found.kind}, "
                               f"{found.dim} columns)")  # fmt: skip
        return found
    try:
        return resolve(project, dataset, None, ("projection",), min_dim=2)
    except ProjectError:
        raise NotComputed("the 2-D map", command(project, "map", dataset)) from None


def map_method(project: Project, info: VectorSetInfo) -> str:
    """``umap`` or ``pca`` (from the map's parameters, else its name)."""
    method = (info.params or {}).get("method")
    if method:
        return str(method)
    parts = info.name.split("/")
    return parts[1] if len(parts) > 2 else "map"


__all__ = [
    "feature_set",
    "map_method",
    "map_set",
    "record_sources",
    "record_texts",
    "score_set",
]
