"""Calling a generator for examples: with the example's JSON schema where it takes one.

A generator whose ``generate`` accepts a ``schema`` keyword (both built-ins do) is given the
schema of the dataset's keys (:func:`~vendiscope.core.synthesis.algorithms.templates.
example_schema`) and asks its backend for structured output; any other generator is called
as the :class:`~vendiscope.core.plugin_host.interfaces.Generator` interface defines, and the
template alone asks for the object.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vendiscope.core.base.jobs import CancelToken, Progress
    from vendiscope.core.plugin_host.interfaces import Generation, Generator


def takes_schema(generator: Generator) -> bool:
    """Whether ``generator.generate`` accepts a ``schema`` keyword."""
    try:
        parameters = inspect.signature(generator.generate).parameters
    except (TypeError, ValueError):
        return False
    return "schema" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )


def generate(
    generator: Generator,
    prompts: Sequence[Sequence[dict[str, str]]],
    *,
    seed: int,
    progress: Progress,
    cancel: CancelToken,
    schema: dict[str, Any] | None,
) -> list[Generation]:
    """``generator.generate``, passing ``schema`` when the generator takes one."""
    if schema is not None and takes_schema(generator):
        call: Any = generator.generate
        return list(call(prompts, seed=seed, progress=progress, cancel=cancel, schema=schema))
    return generator.generate(prompts, seed=seed, progress=progress, cancel=cancel)


def structured_note(generator: Generator) -> str | None:
    """What the generator's last call did about structure, when it says (``structured_output_``)."""
    note = getattr(generator, "structured_output_", None)
    return note if isinstance(note, str) else None
