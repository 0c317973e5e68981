"""An independent reference for G-Vendi: unprojected per-example gradients, plain Hugging Face.

Nothing of Vendiscope's gradient code is used: the chat template is rendered by the
tokenizer's ``apply_chat_template``; the labels are every token after the generation prompt
(what the paper's code labels with TRL's completion-only collator), or those tokens less the
template's tail after the response; the loss is Hugging Face's own mean loss; one backward
per example over every parameter (a tied embedding once). Gradients are kept unprojected in
bfloat16 (half the memory of float32; the products are summed in float64) and the score is
the Vendi score of their cosine kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

IGNORE = -100
BLOCK = 1 << 23


def reference_encoding(
    tokenizer: Any,
    record: dict[str, str],
    *,
    end_of_turn: bool = True,
    system_prompt: str | None = None,
) -> tuple[list[int], list[int]]:
    """Token ids and labels of one prompt/response record."""
    messages = [
        {"role": "user", "content": record["prompt"]},
        {"role": "assistant", "content": record["response"]},
    ]
    if system_prompt is not None:
        messages.insert(0, {"role": "system", "content": system_prompt})

    def ids(conversation: list[dict[str, str]], **options: Any) -> list[int]:
        out = tokenizer.apply_chat_template(conversation, tokenize=True, **options)
        return list(out["input_ids"] if hasattr(out, "keys") else out)

    head = ids(messages[:-1], add_generation_prompt=True)
    full = ids(messages)
    assert full[: len(head)] == head, "the template's generation prompt is not a prefix"
    if not end_of_turn:  # the shortest prefix that decodes to the whole response
        keep = len(head) + 1
        while keep < len(full) and tokenizer.decode(full[len(head) : keep]) != record["response"]:
            keep += 1
        assert keep < len(full), "the response's tokens were not found in the rendering"
        full = full[:keep]
    return full, [IGNORE] * len(head) + full[len(head) :]


def reference_gradients(
    model: Any, tokenizer: Any, records: list[dict[str, str]], **rendering: Any
) -> tuple[Any, list[tuple[str, int, int]]]:
    """``(n, P)`` bfloat16 gradients and the layout ``(name, offset, size)`` of the parameters."""
    import torch

    named = dict(model.named_parameters())  # tied weights appear once
    layout, offset = [], 0
    for name, parameter in named.items():
        layout.append((name, offset, parameter.numel()))
        offset += parameter.numel()
    store = torch.empty((len(records), offset), dtype=torch.bfloat16)
    model.requires_grad_(True)
    try:
        for row, record in enumerate(records):
            ids, labels = reference_encoding(tokenizer, record, **rendering)
            model.zero_grad(set_to_none=True)
            out = model(
                input_ids=torch.tensor([ids]), labels=torch.tensor([labels]), use_cache=False
            )
            out.loss.backward()
            for name, start, size in layout:
                grad = named[name].grad
                target = store[row, start : start + size]
                target.copy_(grad.reshape(-1) if grad is not None else torch.zeros(size))
    finally:
        model.requires_grad_(False)
        model.zero_grad(set_to_none=True)
    return store, layout


def exact_gram(store: Any) -> np.ndarray:
    """``G G^T`` of the stored gradients, in float64."""
    import torch

    gram = torch.zeros((store.shape[0], store.shape[0]), dtype=torch.float64)
    for start in range(0, store.shape[1], BLOCK):
        block = store[:, start : start + BLOCK].to(torch.float32)
        gram += (block @ block.T).to(torch.float64)
    return gram.numpy()


def cosine_of_gram(gram: np.ndarray) -> np.ndarray:
    norms = np.sqrt(np.diag(gram))
    return gram / np.outer(norms, norms)


def vendi_of_gram(gram: np.ndarray) -> float:
    """The Vendi score (q = 1) of the cosine kernel of a Gram matrix."""
    from vendiscope.core.metrics.algorithms.vendi import vendi_from_eigenvalues

    cosine = cosine_of_gram(gram)
    return vendi_from_eigenvalues(np.linalg.eigvalsh(cosine / len(cosine)))
