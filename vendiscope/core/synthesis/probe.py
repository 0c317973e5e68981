"""One real generation before a run (``vendiscope synthesize --check``, the app's Test
connection): does the generator answer, does its answer parse, and how long would ``-n`` take.

The generator's own :meth:`~vendiscope.core.plugin_host.interfaces.Generator.check` runs first
(reachable, key, model); then one prompt rendered from the dataset as the job's first round
would (:func:`~vendiscope.core.synthesis.reading.preview_prompt`) is generated with the
example's JSON schema, timed and parsed. Nothing is written to the project.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.base.text import shorten
from vendiscope.core.plugin_host.registry import PluginRegistry, default_registry
from vendiscope.core.store.project import Project
from vendiscope.core.synthesis import generation
from vendiscope.core.synthesis.algorithms import parsing
from vendiscope.core.synthesis.algorithms.templates import example_schema
from vendiscope.core.synthesis.options import SynthesisOptions
from vendiscope.core.synthesis.reading import preview_prompt
from vendiscope.core.synthesis.records import Keys
from vendiscope.core.synthesis.rounds import ADVICE

SHOWN = 600
"""Characters of the generated text kept in the report."""


@dataclass(frozen=True)
class ProbeReport:
    """What one real generation showed."""

    check: str
    """The generator's own one-line check (server, model)."""
    text: str | None
    values: dict[str, str] | None
    reason: str | None
    detail: str
    error: str | None
    finish_reason: str | None
    tokens: int
    seconds: float
    structured: str | None
    budget: int
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.values is not None

    @property
    def tokens_per_s(self) -> float | None:
        return self.tokens / self.seconds if self.tokens and self.seconds > 0 else None

    @property
    def estimate_s(self) -> float:
        """Seconds for ``budget`` generations at this pace, one at a time (a floor: not
        every generation is kept, and the gradients of each kept one take time too)."""
        return self.seconds * self.budget

    def advice(self) -> str:
        return "" if self.ok else ADVICE

    def summary(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "check": self.check,
            "text": self.text,
            "values": self.values,
            "reason": self.reason,
            "detail": self.detail,
            "error": self.error,
            "finish_reason": self.finish_reason,
            "tokens": self.tokens,
            "seconds": round(self.seconds, 3),
            "tokens_per_s": None if self.tokens_per_s is None else round(self.tokens_per_s, 2),
            "structured": self.structured,
            "budget": self.budget,
            "estimate_s": round(self.estimate_s, 1),
            "advice": self.advice() or None,
            "generator": self.details,
        }


def probe(
    project: Project,
    dataset: str,
    options: SynthesisOptions,
    *,
    registry: PluginRegistry | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> ProbeReport:
    """Check the generator, then generate and parse one example for ``dataset``.

    Raises :class:`~vendiscope.core.base.errors.PluginError` when the generator cannot be
    used at all (its :meth:`check`, or an error that stops every request); an answer that
    does not parse is a report with the reason, not an error.
    """
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    registry = registry or default_registry()
    keys = Keys.of(project.dataset(dataset).field_mapping)
    messages = preview_prompt(project, dataset, options)
    generator = registry.create("generator", options.generator, **options.generator_params)
    progress.start(f"checking the generator '{options.generator}'", total=None)
    line = generator.check()
    progress.finish()
    started = time.perf_counter()
    progress.start("generating one example", total=1, unit="examples")
    output = generation.generate(
        generator,
        [messages],
        seed=options.seed,
        progress=progress,
        cancel=cancel,
        schema=example_schema(keys.names),
    )[0]
    progress.finish()
    seconds = time.perf_counter() - started
    if output.error is not None or output.text is None:
        parsed = parsing.Parsed(None, parsing.REQUEST_FAILED, output.error or "no text")
    else:
        parsed = parsing.parse_example(output.text, keys.names, finish_reason=output.finish_reason)
    return ProbeReport(
        check=line,
        text=None if output.text is None else shorten(output.text, SHOWN),
        values=parsed.values,
        reason=parsed.reason,
        detail=parsed.detail,
        error=output.error,
        finish_reason=output.finish_reason,
        tokens=output.tokens,
        seconds=seconds,
        structured=generation.structured_note(generator),
        budget=options.budget,
        details=generator.describe(),
    )
