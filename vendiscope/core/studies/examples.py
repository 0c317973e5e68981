"""A dataset's records as a trainer's examples: prompt, response, and a checkable answer.

A record trains as a conversation: ``prompt`` is the user turn (its text when it has no
prompt) and ``response`` the assistant turn. A record with a label and no response (NLI,
classification) answers with its label. A target example gets an ``"answer"`` the trainer can
check when there is one: its label (and the target's labels as ``"choices"``), or the final
answer its response states ("The final answer is 12", ``\\boxed{12}``, ``#### 12``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.store.models import RecordRow
from vendiscope.core.store.project import Project
from vendiscope.core.studies.algorithms.answers import final_answer, states_answer

MAX_CHOICES = 20
"""A target with more distinct labels than this is not a classification: no choices."""


@dataclass(frozen=True)
class Examples:
    """A dataset's records as trainer examples, with their texts and sources."""

    dataset: str
    items: list[dict[str, Any]]
    sources: list[str | None]
    hashes: list[str]

    def texts(self, positions: Sequence[int]) -> list[str]:
        """The prompt and response of each position, for lexical metrics."""
        return [f"{self.items[p]['prompt']}\n{self.items[p]['response']}" for p in positions]

    @property
    def checkable(self) -> int:
        """How many examples carry an answer the trainer can check."""
        return sum(1 for item in self.items if "answer" in item)


def load_examples(
    project: Project, dataset: str, *, limit: int | None = None, answers: bool = False
) -> Examples:
    """Every record (or the first ``limit``) of ``dataset`` as an example.

    ``answers`` adds the checkable answers a target has. A record with nothing to train on
    is a :class:`ProjectError` naming the dataset, the record and what it lacks.
    """
    items: list[dict[str, Any]] = []
    sources: list[str | None] = []
    hashes: list[str] = []
    records: list[RecordRow] = []
    for record in project.iter_records(dataset):
        if limit is not None and len(records) >= limit:
            break
        records.append(record)
    if not records:
        raise ProjectError(f"dataset '{dataset}' has no records to train or score on")
    labels = sorted({r.label.strip() for r in records if r.label and r.label.strip()})
    choices = labels if answers and 2 <= len(labels) <= MAX_CHOICES else None
    for record in records:
        items.append(_example(dataset, record, choices, answers))
        sources.append(record.source)
        hashes.append(record.content_hash)
    return Examples(dataset, items, sources, hashes)


def _example(
    dataset: str, record: RecordRow, choices: list[str] | None, answers: bool
) -> dict[str, Any]:
    prompt = _text(record.prompt) or _text(record.text)
    label = _text(record.label)
    response = _text(record.response) or label
    where = f"record {record.seq} of '{dataset}' (line {record.row_index + 1} of its source)"
    if not prompt:
        raise ProjectError(f"{where} has no prompt or text: a study trains on conversations")
    if not response:
        raise ProjectError(
            f"{where} has no response or label: a study trains on a prompt and its response "
            "(map a response column when importing)"
        )
    example: dict[str, Any] = {"prompt": prompt, "response": response}
    if not answers:
        return example
    if choices is not None and label:
        example["answer"] = label
        example["choices"] = list(choices)
    elif states_answer(response):
        stated = final_answer(response)
        if stated is not None:
            example["answer"] = stated
    return example


def _text(value: str | None) -> str:
    return value.strip() if isinstance(value, str) else ""
