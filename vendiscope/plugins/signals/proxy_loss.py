"""The ``proxy-loss`` signal: each record's loss (and perplexity) under the proxy LM."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

from vendiscope.api import CancelToken, Progress, Range, Signal, SignalColumn

if TYPE_CHECKING:
    import numpy as np


class ProxyLoss(Signal):
    """How surprising each record is to a small language model: the mean cross-entropy of its
    response tokens (of its text, for a record without one) under the proxy LM, rendered as
    the gradient features render it (the chat template, the end-of-turn token), and its
    perplexity. Forward passes only: no gradients. High values mark garbled, off-language or
    unusual records; very low ones, boilerplate.

    Parameters
    ----------
    model
        The proxy LM: a local folder, a ``.gguf`` file or a hub id; empty: the bundled
        SmolLM2-135M-Instruct (the G-Vendi proxy).
    max_length
        Tokens per record at most (a longer record is cut: its loss is of the first tokens).
    batch_size
        Records per forward pass.
    """

    def __init__(
        self,
        model: str = "",
        max_length: Annotated[int, Range(8, 8192)] = 512,
        batch_size: Annotated[int, Range(1, 1024)] = 8,
    ) -> None:
        self.model = model
        self.max_length = max_length
        self.batch_size = batch_size
        self._loaded: Any = None

    @property
    def columns(self) -> tuple[SignalColumn, ...]:
        return (
            SignalColumn("loss", "number", "mean cross-entropy of the response tokens (nats)"),
            SignalColumn("perplexity", "number", "exp(loss)"),
        )

    @property
    def model_id(self) -> str:
        return f"proxy-loss/v1/{self.model or 'bundled'}/max_length={self.max_length}"

    def _proxy(self) -> Any:
        if self._loaded is None:
            from vendiscope.api import load_proxy

            self._loaded = load_proxy(self.model or None)
        return self._loaded

    def compute(
        self,
        records: Sequence[dict[str, str | None]],
        *,
        progress: Progress,
        cancel: CancelToken,
    ) -> np.ndarray:
        import numpy as np
        import torch

        from vendiscope.api import (
            collate,
            encode_examples,
            has_chat_template,
            length_buckets,
            loss_columns,
            pad_token_id,
            per_example_loss,
        )

        out = np.full((len(records), 2), np.nan, dtype=np.float32)
        if not records:
            return out
        model, tokenizer, _ = self._proxy()
        examples = encode_examples(
            tokenizer, records, max_length=self.max_length,
            chat_template=has_chat_template(tokenizer),
        )  # fmt: skip
        wanted = [i for i, e in enumerate(examples) if not e.empty]
        batches = length_buckets([len(examples[i]) for i in wanted], self.batch_size)
        pad = pad_token_id(tokenizer)
        progress.start("Proxy-LM loss", total=len(wanted), unit="records")
        done = 0
        model.eval()
        for batch_index in batches:
            cancel.raise_if_cancelled()
            chosen = [wanted[i] for i in batch_index]
            batch = collate([examples[i] for i in chosen], chosen, pad_id=pad)
            with torch.no_grad():
                losses = per_example_loss(model, batch).losses.float().cpu().numpy()
            out[chosen] = loss_columns(losses)
            done += len(chosen)
            progress.update(done, len(wanted))
        progress.finish()
        return out

    def describe(self) -> dict[str, object]:
        return {"model": self.model or "bundled", "max_length": self.max_length}
