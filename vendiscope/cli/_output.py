"""Console output and error reporting shared by the commands."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from rich.console import Console

console = Console(highlight=False)
errors = Console(stderr=True, highlight=False)

F = TypeVar("F", bound=Callable[..., Any])


def reports_errors(command: F) -> F:
    """Turn Vendiscope errors into one clear line on stderr and a non-zero exit code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from sqlalchemy.exc import DatabaseError

        from vendiscope.core.errors import VendiscopeError
        from vendiscope.core.jobs import Cancelled

        try:
            return command(*args, **kwargs)
        except VendiscopeError as exc:
            errors.print(f"[bold red]error:[/] {exc}", soft_wrap=True)
            raise typer.Exit(1) from None
        except Cancelled:
            errors.print("[yellow]cancelled[/]; nothing was changed")
            raise typer.Exit(130) from None
        except KeyboardInterrupt:
            errors.print("\n[yellow]interrupted[/]; nothing was changed")
            raise typer.Exit(130) from None
        except DatabaseError as exc:
            errors.print(f"[bold red]error:[/] the project database failed: {exc.orig}")
            raise typer.Exit(1) from None
        except OSError as exc:
            errors.print(f"[bold red]error:[/] {exc.filename or ''}: {exc.strerror or exc}")
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


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


def parse_params(items: list[str] | None) -> dict[str, Any]:
    """``name=value`` strings guessed as int, float, bool, None or str, without a contribution.

    Prefer :func:`plugin_params`, which uses the types the contribution declares.
    """
    from vendiscope.core.plugins.conversion import guess_value

    return {name: guess_value(value) for name, value in split_params(items).items()}


def shorten(value: str | None, width: int = 80) -> str:
    if value is None:
        return ""
    flat = " ".join(value.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def exit_if_not_tty_safe() -> None:  # pragma: no cover - guard for odd terminals
    if sys.stdout.encoding is None:
        sys.stdout.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
