"""What is trained: the last blocks themselves, or LoRA adapters on their linear layers.

Both methods keep the model's frozen layers untouched, so every run can start from the same
untrained model: :meth:`Method.reset` restores the last blocks' initial weights, or draws
fresh LoRA weights from a generator seeded by the run's seed (``B = 0``, so the adapted model
starts equal to the base model, as in the LoRA paper).
"""

from __future__ import annotations

import math
from typing import Any

METHODS = ("last-blocks", "lora")


class Method:
    """The trainable parameters of ``model`` for a method, and how to reset them."""

    def __init__(
        self, model: Any, *, method: str, blocks: int, lora_rank: int, lora_alpha: float
    ) -> None:
        from vendiscope.api import selected_modules, transformer_blocks

        self.method = method
        count = len(transformer_blocks(model))
        self.blocks = min(int(blocks), count)
        self.first = count - self.blocks
        chosen = list(transformer_blocks(model))[self.first :]
        if method == "lora":
            names = sorted(selected_modules(model, f"last-{self.blocks}-blocks-linear"))
            _inject_lora(model, names, rank=int(lora_rank), alpha=float(lora_alpha))
            self.parameters = {name: p for name, p in model.named_parameters() if "lora_" in name}
        else:
            ids = {id(p) for block in chosen for p in block.parameters()}
            self.parameters = {name: p for name, p in model.named_parameters() if id(p) in ids}
        self._initial = (  # LoRA weights are drawn afresh by reset(), never restored
            {} if method == "lora" else {n: p.detach().clone() for n, p in self.parameters.items()}
        )

    @property
    def n_trainable(self) -> int:
        return sum(p.numel() for p in self.parameters.values())

    def reset(self, seed: int) -> None:
        """The untrained state: initial block weights, or fresh LoRA weights drawn with ``seed``."""
        import torch

        with torch.no_grad():
            if self.method != "lora":
                for name, parameter in self.parameters.items():
                    parameter.copy_(self._initial[name])
                return
            generator = torch.Generator().manual_seed(int(seed))
            for name in sorted(self.parameters):
                parameter = self.parameters[name]
                if "lora_A" in name:  # peft's default: Kaiming-uniform A, zero B
                    value = torch.empty(parameter.shape, dtype=torch.float32)
                    torch.nn.init.kaiming_uniform_(value, a=math.sqrt(5), generator=generator)
                    parameter.copy_(value)
                else:
                    parameter.zero_()

    def trainable(self, on: bool) -> None:
        for parameter in self.parameters.values():
            parameter.requires_grad_(on)


def _inject_lora(model: Any, names: list[str], *, rank: int, alpha: float) -> None:
    from peft import LoraConfig, inject_adapter_in_model

    config = LoraConfig(
        r=rank, lora_alpha=alpha, lora_dropout=0.0, target_modules=names, bias="none"
    )
    inject_adapter_in_model(config, model)
    model.requires_grad_(False)
