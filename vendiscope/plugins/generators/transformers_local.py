"""The ``transformers`` generator: a causal LM run in this process, in batches.

Prompts are rendered with the tokenizer's chat template (``add_generation_prompt=True``),
left-padded into batches and completed with ``model.generate``. Each batch is seeded from the
call's ``seed`` and the batch's index, so the same prompts, seed and batch size give the same
texts on one machine. The model is the bundled SmolLM2-135M-Instruct by default (offline), a
``.gguf`` file, a local Hugging Face folder or a hub id, loaded once per instance by the
loader the gradient featurizer uses (:func:`vendiscope.api.load_proxy`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

from vendiscope.api import Generation, Generator, Range
from vendiscope.plugins.generators._common import (
    check_prompts,
    completion_text,
    derive_seed,
    stop_token_ids,
)

if TYPE_CHECKING:
    from vendiscope.api import CancelToken, Message, Progress

# bump when the way texts are produced changes (seeding, rendering), so provenance tells them apart
VERSION = "v1"


class TransformersGenerator(Generator):
    """A local causal language model that completes chat prompts, several at a time.

    Parameters
    ----------
    model
        ``None`` for the bundled SmolLM2-135M-Instruct, else a ``.gguf`` file, a local Hugging
        Face causal-LM folder or a hub id (downloaded only when asked for by id).
    device
        ``"auto"`` (CUDA when available), ``"cpu"``, ``"cuda"``, ``"cuda:1"``...
    batch_size
        Prompts completed together (left-padded). The batch is the unit of seeding, so a
        different batch size gives different (equally valid) samples.
    temperature
        Sampling temperature; ``0`` means greedy decoding (no sampling).
    top_p
        Nucleus sampling: sample from the smallest set of tokens whose probability reaches it.
    max_new_tokens
        The most tokens generated per prompt; a completion cut there has finish reason
        ``"length"``.
    """

    def __init__(
        self,
        model: str | None = None,
        device: str = "auto",
        batch_size: Annotated[int, Range(1, 4096)] = 8,
        temperature: Annotated[float, Range(0.0, 10.0)] = 0.8,
        top_p: Annotated[float, Range(gt=0.0, le=1.0)] = 0.95,
        max_new_tokens: Annotated[int, Range(1, 1_000_000)] = 256,
    ) -> None:
        self.model = model
        self.device = device
        self.batch_size = batch_size
        self.temperature = temperature
        self.top_p = top_p
        self.max_new_tokens = max_new_tokens

    # ------------------------------------------------------------------ identity
    @property
    def model_id(self) -> str:
        from vendiscope.api import model_label

        return (
            f"transformers/{VERSION} model={model_label(self.model)} "
            f"temperature={float(self.temperature):g} top_p={float(self.top_p):g} "
            f"max_new_tokens={int(self.max_new_tokens)} batch_size={int(self.batch_size)}"
        )

    def describe(self) -> dict[str, Any]:
        """Model, settings and, once loaded, the model's type, size and device."""
        from vendiscope.api import model_label

        facts: dict[str, Any] = {
            "model": model_label(self.model),
            "temperature": float(self.temperature),
            "top_p": float(self.top_p),
            "max_new_tokens": int(self.max_new_tokens),
            "batch_size": int(self.batch_size),
            "sampling": "greedy" if float(self.temperature) == 0 else "sampled",
        }
        loaded = self.__dict__.get("_loaded")
        if loaded is not None:
            info = loaded[2]
            for key in ("source", "model_type", "n_parameters", "device"):
                facts[key] = info.get(key)
        return facts

    def check(self) -> str:
        """Load the model (once) and describe it in one line."""
        _, _, info = self._load()
        return (
            f"{info.get('model')} ({info.get('model_type')}, "
            f"{info.get('n_parameters', 0) / 1e6:.0f}M parameters) on {info.get('device')}"
        )

    # ------------------------------------------------------------------ generation
    def _load(self) -> tuple[Any, Any, dict[str, Any]]:
        """``(model, tokenizer, info)``, loaded on first use and kept by this instance."""
        loaded = self.__dict__.get("_loaded")
        if loaded is None:
            import torch

            from vendiscope.api import load_proxy, resolve_device

            device = resolve_device(self.device)
            dtype = torch.float32
            if device.type == "cuda" and torch.cuda.is_bf16_supported():
                dtype = torch.bfloat16
            lm, tokenizer, info = load_proxy(self.model, device=device, dtype=dtype)
            tokenizer.padding_side = "left"
            if tokenizer.pad_token_id is None:
                tokenizer.pad_token = tokenizer.eos_token
            if not getattr(tokenizer, "chat_template", None):
                from vendiscope.api import PluginError

                raise PluginError(
                    f"generator model '{info.get('model')}' has no chat template; use an "
                    "instruction-tuned (chat) model"
                )
            loaded = (lm, tokenizer, info)
            self.__dict__["_loaded"] = loaded
        return loaded

    def generate(
        self,
        prompts: Sequence[Sequence[Message]],
        *,
        seed: int,
        progress: Progress,
        cancel: CancelToken,
    ) -> list[Generation]:
        check_prompts(prompts)
        cancel.raise_if_cancelled()
        if not prompts:
            return []
        lm, tokenizer, _ = self._load()
        size = max(int(self.batch_size), 1)
        total = len(prompts)
        results: list[Generation] = []
        progress.start("Generating", total=total, unit="prompts")
        for index, start in enumerate(range(0, total, size)):
            cancel.raise_if_cancelled()
            batch = prompts[start : start + size]
            results.extend(self._batch(lm, tokenizer, batch, derive_seed(seed, index)))
            progress.update(len(results), total)
        progress.finish()
        return results

    def _batch(
        self, lm: Any, tokenizer: Any, batch: Sequence[Sequence[Message]], seed: int
    ) -> list[Generation]:
        import torch

        texts = [
            tokenizer.apply_chat_template(
                [dict(m) for m in messages], tokenize=False, add_generation_prompt=True
            )
            for messages in batch
        ]
        encoded = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False).to(
            lm.device
        )
        stop = stop_token_ids(lm, tokenizer)
        sampling: dict[str, Any]
        if float(self.temperature) > 0:
            sampling = {
                "do_sample": True,
                "temperature": float(self.temperature),
                "top_p": float(self.top_p),
                "top_k": 0,
            }
        else:
            sampling = {"do_sample": False, "temperature": None, "top_p": None, "top_k": None}
        torch.manual_seed(seed)
        with torch.inference_mode():
            output = lm.generate(
                **encoded,
                max_new_tokens=int(self.max_new_tokens),
                pad_token_id=tokenizer.pad_token_id,
                eos_token_id=sorted(stop),
                **sampling,
            )
        completions = output[:, encoded["input_ids"].shape[1] :].tolist()
        results = []
        for ids in completions:
            text, end = completion_text(ids, stop, tokenizer)
            if end is None:
                results.append(Generation(text, "length", tokens=len(ids)))
            else:
                results.append(Generation(text, "stop", tokens=end + 1))
        return results
