"""Which vector set is used when none is named: one rule for every job, view, command and the app.

The rule: a named set is used if it is complete; otherwise the dataset's complete sets of the
kinds asked for, **in the order of** :data:`PREFERENCE` **and the newest first within a
kind**, and the first of them is used. Gradients come first because G-Vendi — the diversity
Vendiscope reports — is measured on them; a selection, a map and a score of the same dataset
are then computed on the same vectors unless the user names others. A purpose that needs one
kind (embedding-Vendi and neighbour search need embeddings) asks for that kind only.

What was used is said with :func:`describe` (``gradients/fast (gradient, 300 x 1,024)``) in
every result, so a user never reads a number without knowing the vectors behind it.
"""

from __future__ import annotations

from collections.abc import Sequence

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.vectors.missing import MissingVectors

PREFERENCE: tuple[str, ...] = ("gradient", "embedding", "feature")
"""Kinds of feature vectors, most preferred first."""

ANY_KIND: tuple[str, ...] = ()
"""``named=ANY_KIND``: a set named by the user is taken whatever it holds."""


def feature_sets(
    project: Project,
    dataset: str,
    kinds: Sequence[str] = PREFERENCE,
    *,
    min_dim: int = 1,
) -> list[VectorSetInfo]:
    """The complete sets of ``kinds`` with at least ``min_dim`` columns, best first."""
    rank = {kind: at for at, kind in enumerate(_ordered(kinds))}
    found = [
        s for s in vectors.complete_sets(project, dataset) if s.kind in rank and s.dim >= min_dim
    ]
    return sorted(found, key=lambda s: (rank[s.kind], -s.id))


def resolve(
    project: Project,
    dataset: str,
    name: str | None = None,
    kinds: Sequence[str] = PREFERENCE,
    *,
    min_dim: int = 1,
    named: Sequence[str] | None = None,
) -> VectorSetInfo:
    """The complete set ``name``, or the best of :func:`feature_sets`.

    A :class:`MissingVectors` says what is missing (and which command makes it); a named set
    that is incomplete, of another kind, or too narrow is refused with its reason. ``named``
    are the kinds a named set may hold (default ``kinds``; :data:`ANY_KIND`: any).
    """
    if name is not None:
        found = vectors.complete_set(project, dataset, name)
        allowed = kinds if named is None else named
        if allowed and found.kind not in allowed:
            raise ProjectError(
                f"vector set '{name}' holds {found.kind}s; this needs a {_either(allowed)} set"
            )
        if found.dim < min_dim:
            raise ProjectError(
                f"vector set '{name}' has {found.dim} column(s); this needs >= {min_dim}"
            )
        return found
    candidates = feature_sets(project, dataset, kinds, min_dim=min_dim)
    if candidates:
        return candidates[0]
    raise MissingVectors(dataset, _ordered(kinds))


def missing_message(dataset: str, kinds: Sequence[str] = PREFERENCE) -> str:
    """``dataset 'x' has no complete gradient or embedding vector set; run ... first``."""
    return str(MissingVectors(dataset, _ordered(kinds)))


def describe(vector_set: VectorSetInfo, run_id: int | None = None) -> str:
    """How results name the vectors they were computed on: ``NAME (KIND, ROWS x DIM)``.

    With ``run_id`` (the run that used them), ``..., run 3`` is added.
    """
    text = f"{vector_set.name} ({vector_set.kind}, {vector_set.n_rows:,} x {vector_set.dim:,})"
    return text if run_id is None else f"{text}, run {run_id}"


def _either(kinds: Sequence[str]) -> str:
    ordered = _ordered(kinds)
    if len(ordered) < 3:
        return " or ".join(ordered)
    return ", ".join(ordered[:-1]) + f" or {ordered[-1]}"


def _ordered(kinds: Sequence[str]) -> list[str]:
    known = [k for k in PREFERENCE if k in kinds]
    return known + [k for k in kinds if k not in PREFERENCE]
