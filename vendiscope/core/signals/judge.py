"""The LLM judge: each record rated 1-5 against a rubric by any generator plugin, with a
reason, and what judging a dataset will cost (:func:`estimate_judge`).

:class:`JudgeSettings` is what the ``llm-judge`` signal is made of: the generator (a plugin
name and its parameters), the rubric and how much of each record is shown. Its
:meth:`~JudgeSettings.judge` sends one chunk of records to the generator in one call, so
the generator's own batching (a local model) or concurrency (a server, measured by the
``openai`` generator) applies, with its progress per record and its cancel between batches
or requests; the chunked signal job around it commits, resumes and cancels.
"""

from __future__ import annotations

import inspect
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import PluginError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.signals.algorithms.judgement import SCHEMA, Judgement, failed, parse_judgement
from vendiscope.core.signals.algorithms.rubric import JUDGED, Rubric, load_rubric

if TYPE_CHECKING:
    from vendiscope.core.plugin_host.interfaces import Generator
    from vendiscope.core.store.project import Project

JUDGE_DEFAULTS: dict[str, Any] = {"temperature": 0.0, "max_new_tokens": 160}
"""Generator parameters the judge sets unless given: greedy decoding (the same record gets
the same rating) and room for a rating and one sentence."""
ESTIMATE_SAMPLE = 64
"""Records spread over the dataset whose rendered prompts are tokenised for the estimate."""
PREFIX = "generator_params: "
_PAIR = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*=(.*)$")


def parse_generator_params(text: str) -> dict[str, str]:
    """``"base_url=http://127.0.0.1:8000/v1, model=qwen"`` as ``{name: text}``: pairs
    separated by commas, semicolons or line breaks. A ``PluginError`` names a bad pair."""
    found: dict[str, str] = {}
    for item in re.split(r"[,;\n]", text or ""):
        if not item.strip():
            continue
        match = _PAIR.match(item)
        if match is None:
            raise PluginError(
                f"generator_params: '{item.strip()}' is not NAME=VALUE "
                "(e.g. base_url=http://127.0.0.1:8000/v1, model=NAME)"
            )
        found[match.group(1).replace("-", "_")] = match.group(2).strip()
    return found


def create_generator(name: str, params: Mapping[str, Any] | None = None) -> Generator:
    """Generator plugin ``name`` created with ``params``; text values (from a command line or
    a form) are converted to the types the plugin declares. Bad ones raise a ``ValueError``
    (:class:`~vendiscope.core.plugin_host.params.ParamError`) naming them; an unknown
    generator, a :class:`~vendiscope.core.base.errors.PluginError` naming those there are."""
    from vendiscope.core.plugin_host import default_registry

    registry = default_registry()
    given = dict(params or {})
    texts = {key: value for key, value in given.items() if isinstance(value, str)}
    typed = registry.coerce("generator", name, texts, prefix=PREFIX) if texts else {}
    generator: Generator = registry.create("generator", name, **{**given, **typed})
    return generator


@dataclass(frozen=True)
class JudgeSettings:
    """What an LLM judge is made of: the ``llm-judge`` signal's parameters (its defaults are
    the plugin's, declared there once)."""

    generator: str
    generator_params: str
    """``NAME=VALUE`` pairs for the generator (:func:`parse_generator_params`)."""
    rubric: str
    """A rubric file; empty: the built-in rubric."""
    max_chars: int
    """Characters of each role shown to the judge (a longer text is cut)."""
    seed: int = 0
    _rubric: list[Rubric] = field(default_factory=list, init=False, compare=False, repr=False)

    def load_rubric(self) -> Rubric:
        """The rubric, read and checked once (:class:`RubricError` names file and line)."""
        if not self._rubric:
            self._rubric.append(load_rubric(self.rubric or None))
        return self._rubric[0]

    def generator_kwargs(self) -> dict[str, Any]:
        """The generator's parameters: the given ones over :data:`JUDGE_DEFAULTS` (those the
        generator has)."""
        from vendiscope.core.plugin_host import default_registry

        given: dict[str, Any] = dict(parse_generator_params(self.generator_params))
        accepted = inspect.signature(
            default_registry().load("generator", self.generator)
        ).parameters
        defaults = {k: v for k, v in JUDGE_DEFAULTS.items() if k in accepted and k not in given}
        return {**defaults, **given}

    def create_generator(self) -> Generator:
        return create_generator(self.generator, self.generator_kwargs())

    def prompts(self, records: Sequence[dict[str, str | None]]) -> list[list[dict[str, str]]]:
        """Each record's chat prompt (rubric rendered)."""
        rubric = self.load_rubric()
        return [rubric.messages(record, self.max_chars) for record in records]

    def judge(
        self,
        generator: Generator,
        records: Sequence[dict[str, str | None]],
        *,
        progress: Progress,
        cancel: CancelToken,
    ) -> list[Judgement]:
        """Rate ``records`` in one generator call (its batching or concurrency applies)."""
        rubric = self.load_rubric()
        used = [role for role in JUDGED if "{" + role + "}" in rubric.template]
        wanted = [
            i for i, r in enumerate(records) if any((r.get(role) or "").strip() for role in used)
        ]
        empty = Judgement(math.nan, "", f"the record has no {' or '.join(used)}", asked=False)
        out = [empty] * len(records)
        if not wanted:
            return out
        prompts = [rubric.messages(records[i], self.max_chars) for i in wanted]
        replies = generate(generator, prompts, seed=self.seed, progress=progress, cancel=cancel)
        for index, reply in zip(wanted, replies, strict=True):
            if reply.error is not None or reply.text is None:
                out[index] = failed(f"the request failed: {reply.error or 'no text'}")
            else:
                out[index] = parse_judgement(reply.text, reply.finish_reason)
        return out


def generate(
    generator: Generator,
    prompts: Sequence[Sequence[dict[str, str]]],
    *,
    seed: int,
    progress: Progress,
    cancel: CancelToken,
) -> list[Any]:
    """``generator.generate`` asking for the judge's :data:`SCHEMA` where it takes a schema
    (structured output); other generators get the prompt alone, which asks for the object."""
    try:
        accepted = inspect.signature(generator.generate).parameters
    except (TypeError, ValueError):
        accepted = {}  # type: ignore[assignment]
    call: Any = generator.generate
    if "schema" in accepted or any(p.kind is p.VAR_KEYWORD for p in accepted.values()):
        return list(call(prompts, seed=seed, progress=progress, cancel=cancel, schema=SCHEMA))
    return list(call(prompts, seed=seed, progress=progress, cancel=cancel))


# ----------------------------------------------------------------------------- the estimate
@dataclass(frozen=True)
class JudgeEstimate:
    """What judging the records left will take: tokens counted on a sample, time measured on
    one real judgement."""

    records: int
    """Records left to judge (the dataset, less those already judged)."""
    sampled: int
    prompt_tokens: int
    new_tokens: int
    tokenizer: str
    """What counted the tokens, in words."""
    seconds_per_record: float
    check: str
    """The generator's own one-line check."""
    reply: Judgement | None
    """The measured record's judgement (``None``: nothing left to judge)."""
    structured: str | None = None

    @property
    def seconds(self) -> float:
        return self.seconds_per_record * self.records

    def summary(self) -> dict[str, Any]:
        """JSON for ``--json``."""
        return {
            "records": self.records,
            "sampled": self.sampled,
            "prompt_tokens": self.prompt_tokens,
            "new_tokens": self.new_tokens,
            "tokenizer": self.tokenizer,
            "seconds_per_record": round(self.seconds_per_record, 3),
            "seconds": round(self.seconds, 1),
            "generator": self.check,
            "structured_output": self.structured,
            "measured": None
            if self.reply is None
            else {
                "rating": None if self.reply.failure else self.reply.rating,
                "reason": self.reply.text,
            },
        }

    def lines(self) -> list[str]:
        """The estimate in plain words, a line each."""
        if not self.records:
            return ["nothing to judge: every record is judged already"]
        found = [
            f"generator: {self.check}",
            f"{self.records:,} records to judge: about {self.prompt_tokens:,} prompt tokens and "
            f"{self.new_tokens:,} new tokens ({self.tokenizer}; prompts of {self.sampled} "
            "records counted)",
            f"time: about {_about(self.seconds)} at {self.seconds_per_record:.2g} s per record, "
            "measured on one record alone (batches and concurrent requests go faster)",
        ]
        if self.structured:
            found.append(f"structured output: {self.structured}")
        if self.reply is not None:
            rating = "no rating" if self.reply.failure else f"rating {self.reply.rating:.0f}"
            found.append(f"measured record: {rating}: {self.reply.text}")
        return found


def estimate_judge(
    project: Project,
    dataset: str,
    settings: JudgeSettings,
    *,
    vector_set: str = "signals/llm-judge",
    sample: int = ESTIMATE_SAMPLE,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> JudgeEstimate:
    """Estimate judging ``dataset`` with ``settings``; nothing is written to the project.

    The rubric is checked first; prompts of ``sample`` records spread over the dataset are
    rendered and tokenised (the local model's tokenizer, else the bundled SmolLM2 one as an
    approximation of a server's); one record of typical length is judged for real, timed,
    and its reply's tokens counted.
    """
    from vendiscope.core.store import vectors

    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    settings.load_rubric()  # a bad rubric: refused before anything else
    n = project.dataset(dataset).row_count
    existing = next((s for s in vectors.list_sets(project, dataset) if s.name == vector_set), None)
    left = n - (existing.committed_rows if existing is not None else 0)
    if not left:  # a complete set: no generator needed
        return JudgeEstimate(0, 0, 0, 0, "", 0.0, "", None)
    generator = settings.create_generator()
    progress.start(f"checking the generator '{settings.generator}'", total=None)
    check = generator.check()
    progress.finish()
    positions = sorted({(i * n) // min(n, sample) for i in range(min(n, sample))})
    records = [project.records(dataset, p, 1)[0].roles() for p in positions]
    count, counted_with = _token_counter(settings)
    prompts = settings.prompts(records)
    lengths = [count(messages) for messages in prompts]
    typical = sorted(range(len(lengths)), key=lambda i: abs(lengths[i] - _median(lengths)))[0]
    started = time.perf_counter()
    progress.start("judging one record", total=1, unit="records")
    reply = generate(
        generator, [prompts[typical]], seed=settings.seed, progress=progress, cancel=cancel
    )[0]
    progress.finish()
    seconds = time.perf_counter() - started
    judged = (
        failed(f"the request failed: {reply.error or 'no text'}")
        if reply.error is not None or reply.text is None
        else parse_judgement(reply.text, reply.finish_reason)
    )
    new = reply.tokens or count([{"role": "assistant", "content": reply.text or ""}])
    note = getattr(generator, "structured_output_", None)
    return JudgeEstimate(
        records=left,
        sampled=len(records),
        prompt_tokens=round(sum(lengths) / len(lengths) * left),
        new_tokens=int(new) * left,
        tokenizer=counted_with,
        seconds_per_record=seconds,
        check=check,
        reply=judged,
        structured=note if isinstance(note, str) else None,
    )


def _token_counter(settings: JudgeSettings) -> tuple[Callable[[list[dict[str, str]]], int], str]:
    """A function counting a chat prompt's tokens, and what it counts with in words."""
    model = None
    if settings.generator == "transformers":
        model = settings.generator_kwargs().get("model") or None
    try:
        tokenizer = _tokenizer(model)
    except Exception:  # no tokenizer to be had: count characters
        return (
            lambda messages: sum(len(m["content"]) for m in messages) // 4 + 1,
            "about 4 characters per token: no tokenizer could be loaded",
        )
    name = "bundled SmolLM2-135M-Instruct" if model is None else Path(str(model)).name
    label = f"counted with the {name} tokenizer"
    if settings.generator != "transformers":
        label += ", an approximation of the server model's"

    def count(messages: list[dict[str, str]]) -> int:
        if getattr(tokenizer, "chat_template", None):
            ids = tokenizer.apply_chat_template(messages, tokenize=True, add_generation_prompt=True)
            ids = ids["input_ids"] if isinstance(ids, Mapping) else ids
            return len(ids)
        return len(tokenizer("\n\n".join(m["content"] for m in messages))["input_ids"])

    return count, label


def _tokenizer(model: str | None) -> Any:
    """The tokenizer of ``model`` (None: the bundled SmolLM2)."""
    if model is None or str(model).endswith(".gguf"):
        from vendiscope.core.gradients.proxy import load_proxy

        return load_proxy(model)[1]
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(model)


def _median(values: Sequence[int]) -> float:
    ordered = sorted(values)
    return float(ordered[len(ordered) // 2])


def _about(seconds: float) -> str:
    if seconds < 90:
        return "1 second" if seconds < 1.5 else f"{round(seconds)} seconds"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} minutes"
    return f"{seconds / 3600:.1f} hours"


__all__ = [
    "JUDGE_DEFAULTS",
    "JudgeEstimate",
    "JudgeSettings",
    "create_generator",
    "estimate_judge",
    "generate",
    "parse_generator_params",
]
