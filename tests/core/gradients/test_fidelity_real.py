"""G-Vendi against the unprojected kernel, with the bundled SmolLM2 on real demo records.

The reference (``_reference.py``) computes every parameter's gradient without Vendiscope's
gradient code and scores the cosine kernel of the unprojected gradients. Under the automatic
``dim``, Vendiscope's exact mode must come within 3% of it and fast mode within 5%; and the
exact mode's rows must be the projection of the reference's own gradients (the definitions
agree: rendering, labels, loss, parameters).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.core.gradients._reference import exact_gram, reference_gradients, vendi_of_gram
from vendiscope.core.gradients.features import GradientEngine
from vendiscope.core.gradients.sketch import Projector
from vendiscope.core.metrics.algorithms.vendi import vendi_score
from vendiscope.plugins.featurizers.gradients import GradientFeaturizer

DEMO = Path(__file__).resolve().parents[3] / "vendiscope" / "resources" / "demo" / "demo.jsonl"
ROWS = 12


def _demo(domains: int) -> list[dict[str, str]]:
    """``ROWS`` short demo records: from one domain, or spread over several."""
    rows = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines()]
    rows.sort(key=lambda r: (len(r["prompt"]) + len(r["response"]), r["id"]))
    names = sorted({r["domain"] for r in rows})[:domains]
    picked: list[dict[str, str]] = []
    while len(picked) < ROWS:
        for name in names:
            found = next(r for r in rows if r["domain"] == name and r not in picked)
            picked.append(found)
    return [{"prompt": r["prompt"], "response": r["response"]} for r in picked[:ROWS]]


@pytest.fixture(scope="module")
def smollm() -> tuple[Any, Any]:
    import torch

    from vendiscope.core.gradients.proxy import load_proxy

    torch.manual_seed(0)
    model, tokenizer, _ = load_proxy(None)
    return model, tokenizer


@pytest.mark.slow
@pytest.mark.parametrize("domains", [1, 5])
def test_gvendi_under_the_automatic_dim_is_close_to_the_unprojected_kernel(
    smollm: tuple[Any, Any], domains: int
) -> None:
    model, tokenizer = smollm
    records = _demo(domains)
    store, layout = reference_gradients(model, tokenizer, records)
    reference = vendi_of_gram(exact_gram(store))
    dim = GradientFeaturizer(dim=None).params_for_rows(len(records))["dim"]
    assert dim > 1024  # a small set affords a larger projection than the paper's

    exact = GradientEngine(model, tokenizer, mode="exact", dim=dim).features(records)
    projector = Projector(dim, seed=0, cache_bytes=0)
    sketched = projector.project((n, store[:, s : s + k].float()) for n, s, k in layout).numpy()
    del store
    sketched /= np.linalg.norm(sketched, axis=1, keepdims=True)
    assert np.sum(exact * sketched, axis=1).min() > 0.995  # the same gradients, projected

    fast = GradientEngine(model, tokenizer, mode="fast", dim=dim).features(records)
    exact_score, fast_score = vendi_score(exact), vendi_score(fast)
    assert exact_score == pytest.approx(reference, rel=0.03), (reference, exact_score)
    assert fast_score == pytest.approx(reference, rel=0.05), (reference, fast_score)
