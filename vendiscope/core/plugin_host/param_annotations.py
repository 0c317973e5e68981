"""What a contribution writes in ``typing.Annotated`` about a parameter: bounds, choices, origin.

:class:`Range` bounds a number, :class:`Choices` lists the allowed values (like ``Literal``,
for values held in a tuple elsewhere) and :class:`FromProject` says the value names something
of the open project. :func:`~vendiscope.core.plugin_host.params.describe_params` reads them into a
:class:`~vendiscope.core.plugin_host.param_specs.ParamSpec`; see
:mod:`~vendiscope.core.plugin_host.params`
for examples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Range:
    """Bounds of a numeric parameter, for ``Annotated[int, Range(...)]``.

    ``Range(1)`` is ``>= 1``; ``Range(0, 1)`` is ``0 <= x <= 1``; ``gt``/``lt`` give strict
    bounds: ``Range(gt=0)`` is ``> 0``, ``Range(gt=0, lt=1)`` is ``0 < x < 1``.
    """

    ge: float | None = None
    le: float | None = None
    gt: float | None = None
    lt: float | None = None

    def __post_init__(self) -> None:
        if self.ge is not None and self.gt is not None:
            raise ValueError("Range: give ge or gt, not both")
        if self.le is not None and self.lt is not None:
            raise ValueError("Range: give le or lt, not both")

    def __contains__(self, value: Any) -> bool:
        return not (
            (self.ge is not None and not value >= self.ge)
            or (self.gt is not None and not value > self.gt)
            or (self.le is not None and not value <= self.le)
            or (self.lt is not None and not value < self.lt)
        )

    def __str__(self) -> str:
        parts = [
            f"{op} {_number(bound)}"
            for op, bound in ((">=", self.ge), (">", self.gt), ("<=", self.le), ("<", self.lt))
            if bound is not None
        ]
        return " and ".join(parts)

    @property
    def minimum(self) -> float | None:
        return self.ge if self.ge is not None else self.gt

    @property
    def maximum(self) -> float | None:
        return self.le if self.le is not None else self.lt

    def to_dict(self) -> dict[str, float]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


class Choices:
    """The allowed values of a parameter, for ``Annotated[str, Choices(*MODES)]``.

    Same meaning as ``Literal[...]``; use it when the values live in a tuple elsewhere.
    """

    def __init__(self, *values: Any) -> None:
        if not values:
            raise ValueError("Choices needs at least one value")
        self.values = tuple(values)

    def __repr__(self) -> str:
        return f"Choices{self.values!r}"


@dataclass(frozen=True)
class Unit:
    """The unit of a numeric parameter, for ``Annotated[int, Unit("records")]``: forms show
    it beside the field and command lines in the option's help."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Label:
    """What a form calls a parameter, for ``Annotated[int, Label("Neighbours")]`` (default:
    its name in words, ``n_neighbors`` -> "N neighbors")."""

    text: str


PROJECT_THINGS = ("subset", "vector_set", "dataset")
PROJECT_DATASETS = ("dataset", "target")


@dataclass(frozen=True)
class FromProject:
    """A value naming something in the open project: ``Annotated[str, FromProject(...)]``.

    Forms offer the existing names in a list instead of a free-text field; on the command
    line the parameter stays plain text. The value is still checked by the contribution.

    Parameters
    ----------
    what
        ``"subset"`` (a subset of the dataset), ``"vector_set"`` (one of its vector sets)
        or ``"dataset"`` (another dataset of the project).
    kinds
        For vector sets: the kinds offered (``"embedding"``, ``"gradient"``, ``"score"``,
        ``"projection"``, ``"cluster"``); empty offers every complete set.
    dataset
        Whose subsets or vector sets: ``"dataset"`` (the one the contribution runs on) or
        ``"target"`` (a view's target dataset, see ``View.needs_target``).
    free_text
        Names not in the project are accepted too (e.g. a new subset's name): the list is
        then editable.
    none
        What ``None`` means, in words, shown as the first entry of the list (for example
        ``"the latest embedding set"``); used when the parameter is optional.
    """

    what: str
    kinds: tuple[str, ...] = ()
    dataset: str = "dataset"
    free_text: bool = False
    none: str = ""

    def __post_init__(self) -> None:
        if self.what not in PROJECT_THINGS:
            raise ValueError(
                f"FromProject: what must be one of {PROJECT_THINGS}; got {self.what!r}"
            )
        if self.dataset not in PROJECT_DATASETS:
            raise ValueError(
                f"FromProject: dataset must be one of {PROJECT_DATASETS}; got {self.dataset!r}"
            )
        if isinstance(self.kinds, str):
            object.__setattr__(self, "kinds", (self.kinds,))
        else:
            object.__setattr__(self, "kinds", tuple(self.kinds))

    def to_dict(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "kinds": list(self.kinds),
            "dataset": self.dataset,
            "free_text": self.free_text,
            "none": self.none,
        }


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


__all__ = ["PROJECT_DATASETS", "PROJECT_THINGS", "Choices", "FromProject", "Range"]
