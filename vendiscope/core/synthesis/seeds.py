"""Which examples a prompt shows: members of one sparse cluster (aim at a gap), or any rows."""

from __future__ import annotations

import numpy as np


def choose_seeds(
    labels: np.ndarray,
    sizes: np.ndarray,
    median: float,
    *,
    prompts: int,
    per_prompt: int,
    rule: str,
    rng: np.random.Generator,
    rows: np.ndarray | None = None,
    centroids: np.ndarray | None = None,
) -> list[np.ndarray]:
    """Member indices (into ``labels``) of the seed examples of each prompt.

    ``rule="sparse"``: each prompt draws a cluster uniformly from the sparse clusters (size
    below ``median``) that have members, then up to ``per_prompt`` of its members. A cluster
    smaller than that (sparse clusters often hold one or two rows) is topped up with the
    rows most cosine-similar to its centroid, when ``rows`` (unit, one per label) and
    ``centroids`` are given, so the prompt still shows that region. With no sparse cluster
    it falls back to ``"uniform"``: ``per_prompt`` rows drawn from all. Draws are without
    replacement within a prompt.
    """
    labels = np.asarray(labels, dtype=np.int64)
    n = len(labels)
    if n == 0:
        raise ValueError("there are no rows to take seed examples from")
    per_prompt = min(per_prompt, n)
    if rule == "sparse":
        sparse = np.flatnonzero(np.asarray(sizes) < median)
        members = {int(c): np.flatnonzero(labels == c) for c in sparse}
        usable = [c for c, found in members.items() if len(found)]
        if usable:
            chosen = rng.choice(len(usable), size=prompts, replace=True)
            return [
                _cluster_seeds(usable[c], members[usable[c]], per_prompt, rng, rows, centroids)
                for c in chosen
            ]
    elif rule != "uniform":
        raise ValueError(f"seeds must be 'sparse' or 'uniform'; got {rule!r}")
    return [rng.choice(n, size=per_prompt, replace=False) for _ in range(prompts)]


def _cluster_seeds(
    cluster: int,
    members: np.ndarray,
    per_prompt: int,
    rng: np.random.Generator,
    rows: np.ndarray | None,
    centroids: np.ndarray | None,
) -> np.ndarray:
    picked = rng.choice(members, size=min(per_prompt, len(members)), replace=False)
    missing = per_prompt - len(picked)
    if missing <= 0 or rows is None or centroids is None:
        return picked
    similarity = rows @ centroids[cluster]
    similarity[members] = -np.inf
    nearest = np.argsort(-similarity, kind="stable")[:missing]
    return np.concatenate([picked, nearest])
