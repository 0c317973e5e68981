"""A piece of the audit not computed yet, and the one helper that names the command for it."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from vendiscope.core.base.errors import ProjectError

if TYPE_CHECKING:
    from vendiscope.core.store.project import Project


class NotComputed(ProjectError):
    """A piece of the audit that has not been computed yet; ``command`` computes it.

    The message reads ``"clustering not computed yet; run `vendiscope clusters audit.vscope
    train`"``.
    """

    def __init__(self, what: str, command: str) -> None:
        super().__init__(f"{what} not computed yet; run `{command}`")
        self.what = what
        self.command = command


def command(project: Project, name: str, *args: str) -> str:
    """A ``vendiscope`` command line for this project, quoted for a shell."""
    return " ".join(["vendiscope", name, *(shlex.quote(str(a)) for a in (project.location, *args))])


__all__ = ["NotComputed", "command"]
