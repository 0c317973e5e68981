"""Every command names a vector set with the one option of ``cli/_vector_sets.py``: the same
help, saying which set is used when none is named."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer

from vendiscope.cli import app
from vendiscope.cli._vector_sets import newest, vector_set_help

CLI = Path(__file__).resolve().parents[2] / "vendiscope" / "cli"


def _commands(group: Any, prefix: str = "") -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, command in group.commands.items():
        if hasattr(command, "commands"):  # a group of commands
            found |= _commands(command, f"{prefix}{name} ")
        else:
            found[f"{prefix}{name}"] = command
    return found


def _vector_options() -> dict[tuple[str, str], str]:
    """``(command, flag)``: help, for every option that names a vector set."""
    root = typer.main.get_command(app)
    return {
        (name, flag): param.help or ""
        for name, command in _commands(root).items()
        for param in command.params
        if param.param_type_name == "option"
        for flag in param.opts
        if flag.endswith("vectors") or flag == "--embeddings"
    }


def test_every_vector_set_option_has_the_one_help() -> None:
    found = _vector_options()
    assert {"select", "neighbors", "near-dups", "coverage", "study", "map"} <= {
        command for command, _ in found
    }
    prefix = vector_set_help("").split("(")[0]
    assert all(text.startswith(prefix) for text in found.values()), found


def test_the_help_names_the_kinds_the_job_uses() -> None:
    found = _vector_options()
    assert found[("select", "--vectors")] == vector_set_help(newest("gradient", "embedding"))
    assert found[("study", "--vectors")] == vector_set_help(newest("gradient", "feature"))
    assert found[("study", "--embeddings")] == vector_set_help(newest("embedding"))
    assert found[("coverage", "--target-vectors")] == vector_set_help(newest("embedding"))
    assert newest("gradient", "embedding") == "the newest gradient set, else embedding set"


def test_no_command_module_writes_its_own_vector_set_help() -> None:
    """(``--name`` of ``embed`` and ``gradients`` names the set they make: another meaning.)"""
    own = re.compile(r'help="[^"]*(?:vector|gradient|embedding) set \(default', re.IGNORECASE)
    for path in CLI.glob("_*.py"):
        if path.name != "_vector_sets.py":
            assert not own.search(path.read_text(encoding="utf-8")), path.name
