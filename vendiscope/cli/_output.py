"""Console output and error reporting shared by the commands."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from rich.console import Console

from vendiscope.core.base.text import printable
from vendiscope.core.base.text import shorten as shorten  # re-exported for the commands


class InertConsole(Console):
    """A console that shows control characters in what it prints instead of obeying them.

    Records, source names and messages quoting them reach the terminal through here (as
    printed strings and as table cells), so ``ESC[2J`` or U+202E in the data is shown as
    ``\\x1b[2J`` or ``\\u202e``. JSON output (``--json``) is escaped by the JSON encoder and
    stays faithful.
    """

    def render_str(self, text: str, **kwargs: Any) -> Any:
        return super().render_str(printable(text), **kwargs)


console = InertConsole(highlight=False)
errors = InertConsole(stderr=True, highlight=False)

F = TypeVar("F", bound=Callable[..., Any])

STOPPED = (
    "nothing was half-written (embeddings and gradients keep their finished chunks: "
    "run the same command again to resume)"
)
T = TypeVar("T")


def reports_errors(command: F) -> F:
    """Turn Vendiscope errors into one clear line on stderr and a non-zero exit code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from vendiscope.core.base.errors import VendiscopeError
        from vendiscope.core.base.jobs import Cancelled
        from vendiscope.core.store import waiting
        from vendiscope.core.store.records import DatabaseError  # SQLAlchemy's, re-exported

        forget = waiting.add_notice(_print_wait)
        try:
            return command(*args, **kwargs)
        except VendiscopeError as exc:
            errors.print(f"[bold red]error:[/] {exc}", soft_wrap=True)
            raise typer.Exit(1) from None
        except Cancelled:
            errors.print(f"[yellow]cancelled[/]; {STOPPED}")
            raise typer.Exit(130) from None
        except KeyboardInterrupt:
            errors.print(f"\n[yellow]interrupted[/]; {STOPPED}")
            raise typer.Exit(130) from None
        except DatabaseError as exc:
            errors.print(f"[bold red]error:[/] the project database failed: {exc.orig}")
            raise typer.Exit(1) from None
        except OSError as exc:
            errors.print(f"[bold red]error:[/] {exc.filename or ''}: {exc.strerror or exc}")
            raise typer.Exit(1) from None
        finally:
            forget()

    return wrapper  # type: ignore[return-value]


def _print_wait(message: str | None) -> None:
    """A wait for another writer (core/store/waiting.py), on stderr."""
    errors.print(f"[yellow]waiting:[/] {message}" if message else "[yellow]going on[/]")


def split_params(items: list[str] | None) -> dict[str, str]:
    """``NAME=VALUE`` strings to a dict of raw strings; a malformed item exits with code 2."""
    params: dict[str, str] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            errors.print(f"[bold red]error:[/] --param '{item}': expected NAME=VALUE")
            raise typer.Exit(2)
        params[name.strip()] = value  # not stripped: a tab may be the value
    return params


def plugin_params(kind: str, name: str, items: list[str] | None) -> dict[str, Any]:
    """``--param NAME=VALUE`` strings as typed, checked parameters of contribution ``kind:name``.

    Values are converted to the types the contribution declares and checked against its
    ranges and choices (:func:`vendiscope.core.plugins.params.coerce_params`); a bad one
    exits with code 2 and a message naming it: ``--param k: expected an integer >= 1, got 'x'``.
    """
    raw = split_params(items)
    if not raw:
        return {}
    from vendiscope.core.plugins import default_registry
    from vendiscope.core.plugins.params import ParamError

    try:
        return default_registry().coerce(kind, name, raw, prefix="--param ")
    except ParamError as exc:
        errors.print(f"[bold red]error:[/] {exc}", soft_wrap=True)
        raise typer.Exit(2) from None


TABLE_ROWS = 20
"""Rows a long table shows unless ``--all`` is given (``--json`` always has every row)."""


def all_option(what: str) -> Any:
    """The ``--all`` option of a command whose table of ``what`` is cut to :data:`TABLE_ROWS`."""
    return typer.Option("--all", help=f"List every {what} (default: the {TABLE_ROWS} largest).")


def cut_rows(rows: list[T], show_all: bool, limit: int = TABLE_ROWS) -> tuple[list[T], list[T]]:
    """``rows`` split into the ones a table shows and the ones it hides (none with ``show_all``).

    Sort ``rows`` first so that the hidden ones are the least informative (e.g. the smallest).
    """
    if show_all or len(rows) <= limit:
        return rows, []
    return rows[:limit], rows[limit:]


def print_hidden(hidden: int, noun: str, plural: str, detail: str = "") -> None:
    """Say that ``hidden`` rows were left out of the table above, and how to see them.

    ``… 25 more sources not shown (DETAIL); use --all (or --json) to see every source``.
    Prints nothing when nothing was hidden.
    """
    if hidden <= 0:
        return
    what = noun if hidden == 1 else plural
    extra = f" ({detail})" if detail else ""
    console.print(
        f"[yellow]… {hidden} more {what} not shown{extra}; "
        f"use --all (or --json) to see every {noun}[/]",
        soft_wrap=True,
    )


def count_range(counts: list[int], unit: str = "records") -> str:
    """``"1-3 records each"`` (or ``"2 records each"``) for the counts of hidden rows."""
    low, high = min(counts), max(counts)
    span = f"{low}" if low == high else f"{low}-{high}"
    return f"{span} {unit if high != 1 else unit.removesuffix('s')} each"
