"""A dataset without the vector set a computation needs: the error, with its fields.

:class:`MissingVectors` says which dataset lacks which kind of vectors (and, where only a set
made by one model will do, that model); its message is written from those fields, and code
that acts on it (the app's *Compute it* button) reads the fields, never the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vendiscope.core.base.errors import ProjectError

COMMAND_FOR_KIND = {"gradient": "gradients", "embedding": "embed"}
"""The ``vendiscope`` command that computes each kind of feature vectors."""


class MissingVectors(ProjectError):
    """``dataset`` has no complete vector set of any of ``kinds`` (best first).

    ``model`` is set when only a set made by that model will do (to compare with the set
    ``reference``). ``kind`` is the one kind the message names, or None when it names
    several; ``commands`` are the ``vendiscope`` commands that compute the kinds it names.

    The message reads ``"dataset 'train' has no complete gradient or embedding vector set;
    run `vendiscope gradients` or `vendiscope embed` first"``, or with a model ``"dataset
    'bench' has no complete embedding vector set made by 'm' (the model of the pool's
    'embeddings/m'); compute one with the same settings first"``.
    """

    def __init__(
        self,
        dataset: str,
        kinds: Sequence[str],
        model: str | None = None,
        reference: str | None = None,
    ) -> None:
        self.dataset = dataset
        self.kinds = tuple(kinds)
        self.model = model
        self.reference = reference
        super().__init__(self._message())

    def __reduce__(self) -> tuple[Any, ...]:  # rebuilt with its fields in another process
        return type(self), (self.dataset, self.kinds, self.model, self.reference), self.__dict__

    @property
    def named(self) -> tuple[str, ...]:
        """The kinds the message names: ``kinds`` without ``feature`` unless it is the only one."""
        return tuple(k for k in self.kinds if k != "feature" or len(self.kinds) == 1)

    @property
    def kind(self) -> str | None:
        """The one kind of vectors missing (``"embedding"``, ``"gradient"``, ...), or None."""
        return self.named[0] if len(self.named) == 1 else None

    @property
    def commands(self) -> tuple[str, ...]:
        """``vendiscope gradients``, ``vendiscope embed``: what computes the kinds named."""
        return tuple(
            f"vendiscope {COMMAND_FOR_KIND[k]}" for k in self.named if k in COMMAND_FOR_KIND
        )

    def _message(self) -> str:
        what = " or ".join(self.named)
        lead = f"dataset '{self.dataset}' has no complete {what} vector set"
        if self.model is not None:
            return (
                f"{lead} made by '{self.model}' (the model of the pool's '{self.reference}'); "
                "compute one with the same settings first"
            )
        commands = " or ".join(f"`{c}`" for c in self.commands)
        return f"{lead}; run {commands} first" if commands else lead


__all__ = ["COMMAND_FOR_KIND", "MissingVectors"]
