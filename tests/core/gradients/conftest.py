"""The tiny randomly initialised causal LM and tokenizer the gradient tests share."""

from __future__ import annotations

from typing import Any

import pytest

from tests.core.gradients.test_gradients import tiny_model, tiny_tokenizer


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return tiny_tokenizer()


@pytest.fixture(scope="module")
def model(tokenizer: Any) -> Any:
    return tiny_model(len(tokenizer))
