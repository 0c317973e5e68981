"""An operation's options, declared once: a frozen dataclass read as parameter specs.

Each job (import, embed, gradients, score, select, near-duplicates, coverage, clusters, map,
report, export...) has one options class. A field declares everything about one option, in
one declaration, with the same annotations a plugin's parameters use
(:mod:`~vendiscope.core.plugin_host.params`)::

    @dataclass(frozen=True)
    class TilingOptions(OperationOptions):
        overlap: Annotated[float, Range(0, 1), Unit("share of a tile"), "How much tiles..."] = 0.25

From that one declaration:

- the class checks a value once, when it is built (:meth:`OperationOptions.__post_init__`),
  converting it to the declared type (``numpy.int64(5)`` becomes ``5``) and raising one
  :class:`~vendiscope.core.plugin_host.param_specs.ParamError` that names the parameter;
- the command line builds its option (default, range, help, unit) with
  ``vendiscope.cli._options.flag``;
- the app builds its form with :class:`~vendiscope.gui.widgets.param_form.ParamForm` from
  :meth:`OperationOptions.specs`, as it does for a plugin's parameters;
- the Python API's signatures use the class attributes as defaults
  (``overlap: float = TilingOptions.overlap``).

No caller writes a default, a range or a help text of its own.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from vendiscope.core.plugin_host.param_specs import ParamError, ParamSpec
from vendiscope.core.plugin_host.params import describe_params


class OperationOptions:
    """Base of an operation's frozen options dataclass: checks and converts every field."""

    OPERATION: ClassVar[str] = "operation"
    """What the options are for, in words (``"near-duplicates"``), for error messages."""

    def __post_init__(self) -> None:
        for spec in self.specs():
            value = getattr(self, spec.name)
            object.__setattr__(self, spec.name, spec.coerce(value))
        self.check()

    def check(self) -> None:
        """Rules that tie fields together; raise :meth:`error` naming the field at fault."""

    @classmethod
    def error(cls, name: str, problem: str) -> ParamError:
        """The one error type of a bad option: ``"NAME: PROBLEM"``."""
        return ParamError(name, problem)

    @classmethod
    def specs(cls) -> list[ParamSpec]:
        """Every option as a :class:`ParamSpec` (type, default, range, choices, unit, help)."""
        return list(_specs(cls))

    @classmethod
    def spec(cls, name: str) -> ParamSpec:
        """The spec of option ``name`` (a ``KeyError`` for an unknown name is a bug)."""
        for found in _specs(cls):
            if found.name == name:
                return found
        raise KeyError(f"{cls.__name__} has no option {name!r}")

    @classmethod
    def default(cls, name: str) -> Any:
        """The default of option ``name``."""
        return cls.spec(name).default

    def changed(self) -> dict[str, Any]:
        """The options that differ from their defaults (what a run records as asked)."""
        return {
            spec.name: getattr(self, spec.name)
            for spec in self.specs()
            if getattr(self, spec.name) != spec.default
        }

    def as_dict(self) -> dict[str, Any]:
        """Every option by name."""
        return {spec.name: getattr(self, spec.name) for spec in self.specs()}


_SPECS: dict[type, tuple[ParamSpec, ...]] = {}


def _specs(cls: type) -> tuple[ParamSpec, ...]:
    if cls not in _SPECS:
        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"{cls.__name__} must be a dataclass")
        _SPECS[cls] = tuple(describe_params(cls))
    return _SPECS[cls]


__all__ = ["OperationOptions"]
