"""What a synthesis job is asked to do, checked once, in one place (CLI, API and GUI share it)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

FILTERS = ("gain", "sparse-cluster", "none")
"""How a generation is judged: marginal G-Vendi gain (the default: it beats the paper's rule
in ``docs/benchmarks.md``), the paper's sparse-cluster rule, or nothing (the baseline)."""
SEED_CHOICES = ("sparse", "uniform")
"""Where a prompt's seed examples come from: one sparse cluster (aim at a gap), or anywhere."""
DEFAULT_GENERATOR = "transformers"
RUN_KIND = "synthesis"


@dataclass(frozen=True)
class SynthesisOptions:
    """The settings of one synthesis job.

    Attributes
    ----------
    generator, generator_params
        The generator plugin and its parameters (never secrets: keys come from the
        environment).
    budget
        Stop when this many generations have been accepted.
    rounds
        Stop after this many rounds (``None``: no limit besides the budget).
    target
        Stop once the G-Vendi of pool + accepted rows reaches this value.
    filter
        One of :data:`FILTERS`. ``threshold`` is the ``gain`` rule's minimum gain; ``None``
        (the default) means the running median of the gains judged so far.
    seeds
        One of :data:`SEED_CHOICES`; ``examples_per_prompt`` seed examples per prompt.
    prompts_per_round
        Prompts sent to the generator per round (one request batch).
    recluster_every
        Re-cluster pool + accepted rows every this many rounds.
    near_duplicate
        A generation whose gradient cosine to a pool row, an earlier generation or another
        of its batch is at least this is dropped as a near duplicate.
    patience
        Stop (with the commonest reasons) when this many rounds in a row gave no usable
        output: the generator is not following the template.
    template
        A template family name, a template file, or ``None`` for the dataset's family.
    name
        The new dataset (default ``synth-N``); its unfiltered stream is ``NAME-all``.
    vector_set
        The pool's gradient set (default: the preferred complete one).
    seed
        Seeds the seed choice, the clustering and the generator.
    """

    generator: str = DEFAULT_GENERATOR
    generator_params: dict[str, Any] = field(default_factory=dict)
    budget: int = 200
    rounds: int | None = None
    target: float | None = None
    filter: str = "gain"
    threshold: float | None = None
    seeds: str = "sparse"
    examples_per_prompt: int = 3
    prompts_per_round: int = 8
    recluster_every: int = 5
    near_duplicate: float = 0.98
    patience: int = 3
    template: str | None = None
    name: str | None = None
    vector_set: str | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        _whole("budget", self.budget, 1)
        if self.rounds is not None:
            _whole("rounds", self.rounds, 1)
        _whole("examples_per_prompt", self.examples_per_prompt, 1)
        _whole("prompts_per_round", self.prompts_per_round, 1)
        _whole("recluster_every", self.recluster_every, 1)
        _whole("patience", self.patience, 1)
        _whole("seed", self.seed, 0)
        if self.filter not in FILTERS:
            raise ValueError(f"filter must be one of {', '.join(FILTERS)}; got {self.filter!r}")
        if self.seeds not in SEED_CHOICES:
            choices = ", ".join(SEED_CHOICES)
            raise ValueError(f"seeds must be one of {choices}; got {self.seeds!r}")
        if not 0.0 < float(self.near_duplicate) <= 1.0:
            raise ValueError(f"near_duplicate must be in (0, 1]; got {self.near_duplicate!r}")
        if self.target is not None and not float(self.target) > 0:
            raise ValueError(f"target must be a positive G-Vendi value; got {self.target!r}")

    def to_json(self) -> dict[str, Any]:
        """The options as recorded with the run (a resumed run must match them)."""
        return asdict(self)


def _whole(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}; got {value!r}")
