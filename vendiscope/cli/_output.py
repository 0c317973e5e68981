"""Console output and error reporting shared by the commands.

Messages never wrap a suggested command: :class:`InertConsole` prints every string with
``soft_wrap=True`` unless told otherwise, so a long line is left for the terminal to fold
instead of being cut by rich at a space (which split `vendiscope score PROJECT DATASET
--metric gvendi` over two lines: one a script or a user copies half of). Tables and other
renderables lay themselves out as before.

Output that is not a terminal (``vendiscope show ... > out.txt``, a pipe) is laid out
:data:`UNWRAPPED_WIDTH` wide instead of 80 columns (or the terminal's width that rich finds
on stdin), so a table's rows reach the file whole; ``COLUMNS`` still chooses a width.

``--json`` (:mod:`vendiscope.cli._json_output`): :func:`reports_errors` runs a command called
with it in a JSON session and turns its errors into an error document too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import typer
from rich.console import Console, ConsoleDimensions
from rich.markup import escape

from vendiscope.cli import _json_output as _json
from vendiscope.core.base.text import printable
from vendiscope.core.base.text import shorten as shorten  # re-exported for the commands

UNWRAPPED_WIDTH = 10_000
"""The width a console lays tables out in when its output is not a terminal: wide enough that
no table is cut or wrapped (a table only takes the width its cells need)."""


class InertConsole(Console):
    """A console that shows control characters in what it prints instead of obeying them.

    Records, source names and messages quoting them reach the terminal through here (as
    printed strings and as table cells), so ``ESC[2J`` or U+202E in the data is shown as
    ``\\x1b[2J`` or ``\\u202e``. JSON output (``--json``) is escaped by the JSON encoder and
    stays faithful.
    """

    def render_str(self, text: str, **kwargs: Any) -> Any:
        return super().render_str(printable(text), **kwargs)

    def print(self, *objects: Any, soft_wrap: bool | None = None, **kwargs: Any) -> None:
        """As rich prints, but strings (messages) are soft-wrapped by default: a suggested
        command in one is never split over two lines."""
        if soft_wrap is None and objects and all(isinstance(o, str) for o in objects):
            soft_wrap = True
        super().print(*objects, soft_wrap=soft_wrap, **kwargs)

    @property
    def size(self) -> ConsoleDimensions:
        """As rich's, but :data:`UNWRAPPED_WIDTH` wide when the output is not a terminal and
        no width was set (``COLUMNS`` or ``width=``)."""
        found = super().size
        if self._width is None and not self.is_terminal:
            return ConsoleDimensions(UNWRAPPED_WIDTH, found.height)
        return found

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        # mypy, on the next line: rich's stubs lack the property's fset
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]


console = InertConsole(highlight=False)
errors = InertConsole(stderr=True, highlight=False)

F = TypeVar("F", bound=Callable[..., Any])

STOPPED = (
    "nothing was half-written (finished work is kept: embedding, gradient and signal chunks, "
    "synthesis rounds, study runs; run the same command again to resume)"
)
T = TypeVar("T")


def reports_errors(command: F) -> F:
    """Turn Vendiscope errors into one clear line on stderr and a non-zero exit code.

    With ``--json`` the command runs in a JSON session (stdout holds only its document) and
    an error is also written on stdout as ``{"error", "kind", "exit_code"}``
    (:mod:`vendiscope.cli._json_output`).
    """

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _json.wants_json(kwargs):
            with _json.json_session(pinned=(console,)):
                return _run_reporting(command, args, kwargs)
        return _run_reporting(command, args, kwargs)

    return wrapper  # type: ignore[return-value]  # the wrapper keeps the command's signature


def fail(message: str, kind: str, code: int, *, markup: str | None = None) -> NoReturn:
    """Report a failure and exit with ``code``: ``error: MESSAGE`` on stderr (``markup``, a
    rich-markup version of the message, if given), and the error document with ``--json``."""
    errors.print(markup or f"[bold red]error:[/] {escape(message)}")
    _json.emit_error(message, kind, code)
    raise typer.Exit(code) from None


def _run_reporting(command: Callable[..., Any], args: Any, kwargs: dict[str, Any]) -> Any:
    from vendiscope.core.base.errors import VendiscopeError
    from vendiscope.core.base.jobs import Cancelled
    from vendiscope.core.store import waiting
    from vendiscope.core.store.record_lookup import DatabaseError  # SQLAlchemy's, re-exported

    forget = waiting.add_notice(_print_wait)
    try:
        return command(*args, **kwargs)
    except VendiscopeError as exc:
        fail(str(exc), _json.error_kind(exc), 1)
    except Cancelled:
        fail(f"cancelled; {STOPPED}", "cancelled", 130, markup=f"[yellow]cancelled[/]; {STOPPED}")
    except KeyboardInterrupt:
        fail(
            f"interrupted; {STOPPED}",
            "interrupted",
            130,
            markup=f"\n[yellow]interrupted[/]; {STOPPED}",
        )
    except DatabaseError as exc:
        fail(_database_failed(exc), "database", 1)
    except OSError as exc:
        fail(f"{exc.filename or ''}: {exc.strerror or exc}", "os", 1)
    finally:
        forget()


def _database_failed(exc: Exception) -> str:
    """What failed in the project's database, with what to do when the cause is known (a full
    disk, a read-only or damaged file: :func:`vendiscope.core.store.health.store_failure`)."""
    from vendiscope.core.store.health import store_failure

    message = f"the project database failed: {getattr(exc, 'orig', None) or exc}"
    failure = store_failure(exc)
    return message if failure is None else f"{message}. {failure.advice('PROJECT')}"


def _print_wait(message: str | None) -> None:
    """A wait for another writer (core/store/waiting.py), on stderr."""
    errors.print(f"[yellow]waiting:[/] {message}" if message else "[yellow]going on[/]")


def split_params(items: list[str] | None) -> dict[str, str]:
    """``NAME=VALUE`` strings to a dict of raw strings; a malformed item exits with code 2."""
    params: dict[str, str] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            fail(f"--param '{item}': expected NAME=VALUE", "usage", 2)
        params[name.strip()] = value  # not stripped: a tab may be the value
    return params


def plugin_params(kind: str, name: str, items: list[str] | None) -> dict[str, Any]:
    """``--param NAME=VALUE`` strings as typed, checked parameters of contribution ``kind:name``.

    Values are converted to the types the contribution declares and checked against its
    ranges and choices (:func:`vendiscope.core.plugin_host.params.coerce_params`); a bad one
    exits with code 2 and a message naming it: ``--param k: expected an integer >= 1, got 'x'``.
    """
    raw = split_params(items)
    if not raw:
        return {}
    from vendiscope.core.plugin_host import default_registry
    from vendiscope.core.plugin_host.params import ParamError

    try:
        return default_registry().coerce(kind, name, raw, prefix="--param ")
    except ParamError as exc:
        fail(str(exc), "usage", 2)


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
