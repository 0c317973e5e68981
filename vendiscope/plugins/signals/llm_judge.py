"""The ``llm-judge`` signal: each record rated 1-5 against a rubric by a generator plugin."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from vendiscope.api import CancelToken, Label, Progress, Range, Signal, SignalColumn, Unit

if TYPE_CHECKING:
    import numpy as np


class LlmJudge(Signal):
    """A language model rates each record from 1 to 5 against a rubric and says why in one
    sentence (``reason``, kept beside the rating). Any generator plugin judges: the local
    model (the bundled SmolLM2-135M-Instruct by default: weak, see the guide) or an
    OpenAI-compatible server. The reply is asked for as structured output where the backend
    has it and read as plain text otherwise; a reply that cannot be read gives no rating
    (NaN) and the reason why.

    Parameters
    ----------
    generator
        The generator plugin that judges: ``transformers`` (a local model) or ``openai``
        (a server), or any installed one.
    generator_params
        The generator's parameters as ``NAME=VALUE`` pairs, separated by commas:
        ``base_url=http://127.0.0.1:8000/v1, model=NAME``. Unless given, ``temperature=0``
        and ``max_new_tokens=160``.
    rubric
        A rubric file (Markdown: instructions, the 1-5 scale, the template); empty: the
        built-in rubric (``vendiscope signals ... --write-rubric FILE`` writes it to edit).
    max_chars
        Characters of the prompt and of the response shown to the judge (longer: cut).
    """

    text_columns: ClassVar[tuple[str, ...]] = ("reason",)

    def __init__(
        self,
        generator: Annotated[str, Label("Judge")] = "transformers",
        generator_params: Annotated[str, Label("Judge settings")] = "",
        rubric: Annotated[str, Label("Rubric file")] = "",
        max_chars: Annotated[
            int, Range(100, 1_000_000), Unit("characters"), Label("Text shown")
        ] = 4000,
    ) -> None:
        self.generator = generator
        self.generator_params = generator_params
        self.rubric = rubric
        self.max_chars = max_chars

    @property
    def settings(self) -> Any:
        """What judges (:class:`vendiscope.api.JudgeSettings`), made once."""
        made = self.__dict__.get("_settings")
        if made is None:
            from vendiscope.api import JudgeSettings

            made = JudgeSettings(
                self.generator, self.generator_params, self.rubric, int(self.max_chars)
            )
            self.__dict__["_settings"] = made
        return made

    @property
    def columns(self) -> tuple[SignalColumn, ...]:
        return (SignalColumn("rating", "number", "the judge's rating, 1 (bad) to 5 (excellent)"),)

    @property
    def model_id(self) -> str:
        rubric = self.settings.load_rubric()
        return (
            f"llm-judge/v1 {self._generator().model_id} rubric={rubric.name}:"
            f"{rubric.digest[:12]} max_chars={int(self.max_chars)}"
        )

    def _generator(self) -> Any:
        made = self.__dict__.get("_made")
        if made is None:
            made = self.settings.create_generator()
            self.__dict__["_made"] = made
        return made

    def compute(
        self,
        records: Sequence[dict[str, str | None]],
        *,
        progress: Progress,
        cancel: CancelToken,
    ) -> np.ndarray:
        import numpy as np

        judged = self.settings.judge(self._generator(), records, progress=progress, cancel=cancel)
        self.texts_ = {"reason": [j.text for j in judged]}
        return np.array([[j.rating] for j in judged], dtype=np.float32).reshape(len(records), 1)

    def describe(self) -> dict[str, object]:
        rubric = self.settings.load_rubric()
        facts: dict[str, Any] = {"generator": self.generator, "rubric": rubric.name}
        facts["rubric_sha256"] = rubric.digest
        facts["generator_facts"] = self._generator().describe()
        return facts
