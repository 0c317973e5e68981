"""Named gradient settings: the paper's definition (the default) and a lighter one.

What each costs and how well it tells real groups apart is measured in ``docs/gvendi.md``
("Resolution"): the paper's setting resolved groups at the smallest sizes of every gradient
setting measured, so it is the default; ``light`` (the linear layers of the last 4 blocks)
takes about half the time and memory and needs more rows to see the same groups.
"""

from __future__ import annotations

from typing import Any

from vendiscope.core.base.errors import InputError
from vendiscope.core.gradients.dims import PAPER_DIM

PRESETS: dict[str, dict[str, Any]] = {
    "paper": {"parameters": "all", "dim": PAPER_DIM, "end_of_turn": True},
    "light": {"parameters": "last-4-blocks-linear", "dim": PAPER_DIM, "end_of_turn": True},
}
"""Preset name -> the gradient featurizer parameters it sets."""

DEFAULT_PRESET = "paper"

DESCRIPTIONS = {
    "paper": "all parameters, d = 1,024, response and end-of-turn loss (Jung et al. 2025)",
    "light": "the linear layers of the last 4 blocks: about half the time and memory, "
    "needs more rows to tell groups apart",
}


def preset_params(name: str) -> dict[str, Any]:
    """The parameters of preset ``name``; an unknown name is refused, listing the presets."""
    if name not in PRESETS:
        raise InputError(f"unknown preset '{name}' (choose one of: {', '.join(PRESETS)})")
    return dict(PRESETS[name])


def with_preset(name: str | None, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` over preset ``name``'s (explicit parameters win); ``None``: ``params``."""
    return params if name is None else {**preset_params(name), **params}


def set_name(name: str | None, preset: str | None, mode: str) -> str | None:
    """The vector set a preset writes to: ``name`` if given; ``gradients/MODE-PRESET`` for a
    preset other than the default (so its rows never mix with the default's); else ``None``
    (the featurizer's default name)."""
    if name is not None or preset in (None, DEFAULT_PRESET):
        return name
    return f"gradients/{mode}-{preset}"
