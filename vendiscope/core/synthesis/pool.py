"""The dataset new examples are judged against: its gradient rows, keys and featurizer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.plugin_host.registry import PluginRegistry
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.synthesis.records import Keys
from vendiscope.core.vectors import resolve

if TYPE_CHECKING:
    from vendiscope.core.plugin_host.interfaces import Featurizer


@dataclass
class Pool:
    """The dataset generations are judged against: its gradient rows and how to make more."""

    dataset: str
    vector_set: VectorSetInfo
    rows: np.ndarray
    keys: Keys
    featurizer: str
    featurizer_params: dict[str, Any]
    hashes: dict[str, int]

    @classmethod
    def load(cls, project: Project, dataset: str, vector_set: str | None) -> Pool:
        found = resolve.resolve(project, dataset, vector_set, ("gradient", "feature"))
        params = found.params or {}
        if "featurizer" not in params:
            raise ProjectError(
                f"vector set '{found.name}' of '{dataset}' was not made by a featurizer; "
                "synthesis needs gradient features (vendiscope gradients)"
            )
        info = project.dataset(dataset)
        try:
            keys = Keys.of(info.field_mapping)
        except ValueError as exc:
            raise ProjectError(f"dataset '{dataset}': {exc}") from None
        rows = vectors.load(project, dataset, found.name).astype(np.float32, copy=False)
        return cls(
            dataset,
            found,
            rows,
            keys,
            params["featurizer"],
            dict(params.get("featurizer_params") or {}),
            project.content_hash_positions(dataset),
        )

    def make_featurizer(self, registry: PluginRegistry) -> Featurizer:
        """The featurizer that made the pool's rows, so new rows compare with them."""
        from vendiscope.core.gradients.features import model_id_setting

        params = dict(self.featurizer_params)
        made: Featurizer = registry.create("featurizer", self.featurizer, **params)
        stored = str(self.vector_set.model)
        pinned = model_id_setting(stored, "precision")
        if made.model_id != stored and pinned and "precision" not in params:
            # "auto" precision means what it meant where the rows were made: pin it
            made = registry.create("featurizer", self.featurizer, **params, precision=pinned)
        if made.model_id != stored:
            old, new = stored.split(" ", 1)[0], made.model_id.split(" ", 1)[0]
            if old == new:
                changed = sorted(set(made.model_id.split()) - set(stored.split()))
                what = f"other settings (here: {', '.join(changed)})"
            else:
                what = f"another version of the featurizer ({old}; this Vendiscope computes {new})"
            raise ProjectError(
                f"the gradients of '{self.dataset}' (vector set '{self.vector_set.name}') were "
                f"computed with {what}, so new examples cannot be compared with them; compute "
                f"them again first (vendiscope gradients PROJECT {self.dataset} --name "
                f"{self.vector_set.name}-{new.rsplit('/', 1)[-1]}, or Gradients… in the app)"
            )
        return made
