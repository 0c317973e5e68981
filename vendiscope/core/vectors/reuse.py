"""Reusing rows already computed: the same record, the same model, another vector set.

A vector job looks its records up by content hash (prompt, response and text: every field
the built-in embedders and featurizers read) in the committed chunks of the project's other
vector sets — any dataset, complete or not — made with the same settings (the same
``model_id``, which names the model and every setting that changes the vectors, and for
embeddings the same field). The rows found are copied byte for byte instead of computed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.store.vectors import VectorSetInfo

if TYPE_CHECKING:
    import numpy as np


class ReuseCache:
    """Rows of identical records (same content hash) in matching sets' committed chunks.

    ``same`` are the set parameters that must be equal (``model_id``, ``field``...);
    ``kinds`` the set kinds that may be reused; the job's own set (``dataset``, ``name``)
    is never a source (its committed chunks are skipped anyway).
    """

    def __init__(
        self,
        project: Project,
        *,
        dataset: str,
        name: str,
        dim: int,
        same: Mapping[str, Any],
        kinds: Iterable[str],
    ) -> None:
        self._project = project
        self._sources: list[tuple[VectorSetInfo, dict[str, int]]] = []
        kinds = set(kinds)
        for info in project.datasets():
            for found in vectors.list_sets(project, info.name):
                if not found.committed_rows or found.dim != dim or found.kind not in kinds:
                    continue
                if info.name == dataset and found.name == name:
                    continue
                if any(found.params.get(key) != value for key, value in same.items()):
                    continue
                positions = project.content_hash_positions(info.name)
                if found.status != vectors.COMPLETE:  # only rows of committed chunks
                    done = vectors.committed_chunks(project, found)
                    positions = {
                        h: p for h, p in positions.items() if p // found.chunk_rows in done
                    }
                if positions:
                    self._sources.append((found, positions))

    @property
    def sources(self) -> list[VectorSetInfo]:
        """The vector sets rows may come from."""
        return [source for source, _ in self._sources]

    def covers(self, hashes: Iterable[str]) -> bool:
        """Whether every one of ``hashes`` has a row in some source."""
        return all(any(h in positions for _, positions in self._sources) for h in hashes)

    def lookup(self, hashes: Sequence[str]) -> dict[int, np.ndarray]:
        """Slot -> row for the ``hashes`` some source already has."""
        found: dict[int, np.ndarray] = {}
        for source, positions in self._sources:
            wanted = [
                (slot, positions[h])
                for slot, h in enumerate(hashes)
                if slot not in found and h in positions
            ]
            if wanted:
                rows = vectors.read_rows(self._project, source, [p for _, p in wanted])
                for (slot, _), row in zip(wanted, rows, strict=True):
                    found[slot] = row
        return found


def covers_dataset(project: Project, dataset: str, cache: ReuseCache | None) -> bool:
    """Whether ``cache`` holds a row for every record of ``dataset`` (nothing to compute)."""
    if cache is None or not cache.sources:
        return False
    return cache.covers(project.content_hash_positions(dataset))


def assemble_rows(
    size: int,
    dim: int,
    hits: Mapping[int, np.ndarray],
    computed: np.ndarray | None,
    distinct: Mapping[Any, list[int]],
) -> np.ndarray:
    """A chunk's ``(size, dim)`` rows: reused ``hits`` by slot, and each computed row at the
    slots of the records it stands for (``distinct``, in the order they were computed)."""
    import numpy as np

    chunk = np.empty((size, dim), dtype=np.float32)
    for slot, row in hits.items():
        chunk[slot] = row
    if computed is not None:
        for row, slots in zip(computed, distinct.values(), strict=True):
            chunk[slots] = row
    return chunk
