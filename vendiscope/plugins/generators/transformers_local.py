"""The ``transformers`` generator: a causal LM run in this process, in batches.

Prompts are rendered with the tokenizer's chat template (``add_generation_prompt=True``),
left-padded into batches and completed with ``model.generate``. Each batch is seeded from the
call's ``seed`` and the batch's index, so the same prompts, seed and batch size give the same
texts on one machine. The model is the bundled SmolLM2-135M-Instruct by default (offline), a
``.gguf`` file, a local Hugging Face folder or a hub id, loaded once per instance by the
loader the gradient featurizer uses (:func:`vendiscope.api.load_proxy`).

**Structured output.** Given the example's JSON schema (``generate(..., schema=...)``, as the
synthesis job does), decoding is constrained to it with ``lm-format-enforcer`` (a token mask
at every step, so even the bundled 135M model writes a well-formed object); without that
package the prompt alone asks for the object, and :attr:`TransformersGenerator.
structured_output_` says so. Progress moves as each example of a batch ends, and a cancel
stops the batch within one token step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal

from vendiscope.api import Generation, Generator, Range
from vendiscope.plugins.generators._common import (
    check_prompts,
    check_schema,
    completion_text,
    derive_seed,
    stop_token_ids,
)

if TYPE_CHECKING:
    from vendiscope.api import CancelToken, Message, Progress

# bump when the way texts are produced changes (seeding, rendering), so provenance tells them apart
VERSION = "v2"  # v2: constrained to the example's JSON schema when one is given
ENFORCER = "lm-format-enforcer"


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
    structured
        ``"auto"``: constrain decoding to the example's JSON schema when one is given (needs
        ``lm-format-enforcer``; without it, the prompt alone); ``"off"``: never.
    """

    def __init__(
        self,
        model: str | None = None,
        device: str = "auto",
        batch_size: Annotated[int, Range(1, 4096)] = 8,
        temperature: Annotated[float, Range(0.0, 10.0)] = 0.8,
        top_p: Annotated[float, Range(gt=0.0, le=1.0)] = 0.95,
        max_new_tokens: Annotated[int, Range(1, 1_000_000)] = 256,
        structured: Literal["auto", "off"] = "auto",
    ) -> None:
        self.model = model
        self.device = device
        self.batch_size = batch_size
        self.temperature = temperature
        self.top_p = top_p
        self.max_new_tokens = max_new_tokens
        self.structured = structured

    @property
    def structured_output_(self) -> str | None:
        """How the last call asked for structure (``None``: no schema was asked for)."""
        return self.__dict__.get("_structured_note")

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
            "structured": self.structured,
            "structured_output": self.structured_output_,
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
        schema: dict[str, Any] | None = None,
    ) -> list[Generation]:
        """One completion per prompt, in batches; ``schema`` (a JSON schema of an object
        with string properties) constrains each completion to it (see the module docstring)."""
        check_prompts(prompts)
        if schema is not None:
            check_schema(schema)
        if self.structured not in ("auto", "off"):
            raise ValueError(f"structured must be auto or off, not {self.structured!r}")
        cancel.raise_if_cancelled()
        if not prompts:
            return []
        lm, tokenizer, _ = self._load()
        constrain = self._constraint(tokenizer, schema)
        size = max(int(self.batch_size), 1)
        total = len(prompts)
        results: list[Generation] = []
        progress.start("Generating", total=total, unit="examples")
        for index, start in enumerate(range(0, total, size)):
            cancel.raise_if_cancelled()
            batch = prompts[start : start + size]
            watch = _Watch(progress, cancel, len(results), total)
            results.extend(
                self._batch(lm, tokenizer, batch, derive_seed(seed, index), constrain, watch)
            )
            cancel.raise_if_cancelled()
            progress.update(len(results), total)
        progress.finish()
        return results

    def _constraint(self, tokenizer: Any, schema: dict[str, Any] | None) -> Any:
        """A factory of per-row token enforcers for ``schema``, or ``None`` (and why, in
        :attr:`structured_output_`)."""
        if schema is None:
            self.__dict__["_structured_note"] = None
            return None
        if self.structured == "off":
            self.__dict__["_structured_note"] = "off: the prompt alone asks for the JSON object"
            return None
        try:
            from lmformatenforcer import JsonSchemaParser, TokenEnforcer
        except ImportError:
            self.__dict__["_structured_note"] = (
                f"off: {ENFORCER} is not installed (pip install {ENFORCER}); the prompt alone "
                "asks for the JSON object"
            )
            return None
        data = self.__dict__.get("_enforcer_data")
        if data is None:
            data = _tokenizer_data(tokenizer)
            self.__dict__["_enforcer_data"] = data
        self.__dict__["_structured_note"] = (
            f"json_schema: decoding constrained to the schema ({ENFORCER})"
        )
        return lambda: TokenEnforcer(data, JsonSchemaParser(schema))

    def _batch(
        self,
        lm: Any,
        tokenizer: Any,
        batch: Sequence[Sequence[Message]],
        seed: int,
        constrain: Any = None,
        watch: _Watch | None = None,
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
        extra: dict[str, Any] = {}
        prompt_length = encoded["input_ids"].shape[1]
        if constrain is not None:
            enforcers: dict[int, Any] = {}

            def allowed(row: int, ids: Any) -> list[int]:
                if row not in enforcers:
                    enforcers[row] = constrain()
                return (
                    enforcers[row].get_allowed_tokens(ids[prompt_length:].tolist()).allowed_tokens
                )

            extra["prefix_allowed_tokens_fn"] = allowed
        if watch is not None:
            from transformers import StoppingCriteriaList

            extra["stopping_criteria"] = StoppingCriteriaList([watch.criteria(stop)])
        torch.manual_seed(seed)
        with torch.inference_mode():
            output = lm.generate(
                **encoded,
                max_new_tokens=int(self.max_new_tokens),
                pad_token_id=tokenizer.pad_token_id,
                eos_token_id=sorted(stop),
                **sampling,
                **extra,
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


class _Watch:
    """Per-example progress and prompt cancellation inside one batch's ``generate``."""

    def __init__(self, progress: Progress, cancel: CancelToken, before: int, total: int):
        self.progress, self.cancel = progress, cancel
        self.before, self.total = before, total
        self.ended: set[int] = set()

    def criteria(self, stop: set[int]) -> Any:
        import torch
        from transformers import StoppingCriteria

        watch = self

        class Watching(StoppingCriteria):
            def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
                last = input_ids[:, -1].tolist()
                for row, token in enumerate(last):
                    if token in stop and row not in watch.ended:
                        watch.ended.add(row)
                        watch.progress.update(watch.before + len(watch.ended), watch.total)
                rows = input_ids.shape[0]
                return torch.full((rows,), watch.cancel.cancelled, dtype=torch.bool)

        return Watching()


def _tokenizer_data(tokenizer: Any) -> Any:
    """``lm-format-enforcer``'s view of the vocabulary (built once per generator, ~2 s).

    Its own ``transformers`` integration imports a module that transformers 5 moved, so the
    table is built here the way that integration does: each regular token's text after a
    ``0`` (which keeps a leading space) and whether it starts a word. Tokens that are not a
    whole character are left out (see below).
    """
    from lmformatenforcer import TokenEnforcerTokenizerData

    special = set(tokenizer.all_special_ids)
    size = len(tokenizer)
    ids = [i for i in range(size) if i not in special]
    zero = tokenizer.encode("0", add_special_tokens=False)[-1]
    after = tokenizer.batch_decode([[zero, i] for i in ids])
    alone = tokenizer.batch_decode([[i] for i in ids])
    # a token that is part of a character (a byte of an emoji's UTF-8) decodes to U+FFFD;
    # the enforcer cannot follow a string through it and would end the output mid-string, so
    # only whole characters are offered (rare characters written byte by byte are lost)
    regular = [
        (i, a[1:], len(a[1:]) > len(b))
        for i, a, b in zip(ids, after, alone, strict=True)
        if "\ufffd" not in a
    ]

    def decode(tokens: list[int]) -> str:
        return str(tokenizer.decode(tokens)).rstrip("\ufffd")

    return TokenEnforcerTokenizerData(regular, decode, tokenizer.eos_token_id, False, size)
