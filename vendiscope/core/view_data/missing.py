"""A piece of the audit not computed yet, and the commands that compute it, as fields.

:class:`Command` is a ``vendiscope`` command line that keeps its parts; :class:`NotComputed`
carries the commands that compute what is missing. The message a user reads is written from
the fields, and code that acts on the error (the app's *Compute it* button) reads the fields,
never the text.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError

if TYPE_CHECKING:
    from vendiscope.core.store.project import Project


class Command(str):
    """A ``vendiscope NAME PROJECT DATASET ARGS...`` command line that keeps its parts.

    It is a ``str`` (the line, each word quoted for a shell where it needs it), so it prints,
    compares and formats as the line; its parts are fields: ``name`` (the subcommand:
    ``"clusters"``, ``"map"``, ``"embed"``, ``"gradients"``, ``"score"``, ...), ``project``
    (the project's location), ``dataset`` (None for a command without one) and
    ``arguments`` (further arguments and options, e.g. ``("--metric", "vendi")``).
    """

    name: str
    project: str
    dataset: str | None
    arguments: tuple[str, ...]

    def __new__(
        cls, name: str, project: Any, dataset: str | None = None, arguments: Sequence[Any] = ()
    ) -> Command:
        words = [str(project), *(() if dataset is None else (dataset,)), *map(str, arguments)]
        line = " ".join(["vendiscope", name, *(shlex.quote(w) for w in words)])
        self = super().__new__(cls, line)
        self.name, self.project, self.dataset = name, str(project), dataset
        self.arguments = tuple(map(str, arguments))
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.name, self.project, self.dataset, self.arguments)

    def option(self, flag: str) -> str | None:
        """The value ``arguments`` give option ``flag`` (``"--metric"``), or None."""
        if flag not in self.arguments[:-1]:
            return None
        return self.arguments[self.arguments.index(flag) + 1]


class NotComputed(ProjectError):
    """A piece of the audit that has not been computed yet, and the commands that compute it.

    ``what`` names the piece; ``commands`` are the commands to run, in order (one, or two
    when a score also needs its vectors computed first). ``step``, ``dataset`` and
    ``arguments`` are the fields of the first, the one to run now (None, None and ``()``
    for a command a plugin wrote as plain text rather than with ``data.command(...)``). The
    message is written from them: ``"clustering not computed yet; run `vendiscope clusters
    audit.vscope train`"``.
    """

    def __init__(self, what: str, command: str | Sequence[str]) -> None:
        self.what = what
        self.commands: tuple[str, ...] = (command,) if isinstance(command, str) else tuple(command)
        super().__init__(f"{what} not computed yet; run `{self.command}`")

    def __reduce__(self) -> tuple[Any, ...]:  # rebuilt with its fields in another process
        return type(self), (self.what, self.commands), self.__dict__

    @property
    def command(self) -> str:
        """The commands as the message shows them: ``a`` or ``a` then `b``."""
        return "` then `".join(self.commands)

    @property
    def step(self) -> str | None:
        """The subcommand to run now (``"clusters"``, ``"embed"``, ...), or None."""
        first = self._first()
        return first.name if first is not None else None

    @property
    def dataset(self) -> str | None:
        """The dataset the command to run now runs on, or None."""
        first = self._first()
        return first.dataset if first is not None else None

    @property
    def arguments(self) -> tuple[str, ...]:
        """The further arguments and options of the command to run now."""
        first = self._first()
        return first.arguments if first is not None else ()

    def option(self, flag: str) -> str | None:
        """The value of option ``flag`` in the command to run now, or None."""
        first = self._first()
        return first.option(flag) if first is not None else None

    def _first(self) -> Command | None:
        first = self.commands[0] if self.commands else None
        return first if isinstance(first, Command) else None


def command(project: Project, name: str, dataset: str, *args: str) -> Command:
    """The ``vendiscope NAME PROJECT DATASET ARGS...`` command for this project."""
    return Command(name, project.location, dataset, args)


__all__ = ["Command", "NotComputed", "command"]
