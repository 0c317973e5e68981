"""Machine-readable output: the one JSON document a ``--json`` command prints on stdout.

With ``--json`` a command's stdout carries exactly one JSON document and nothing else:

* on success, the command's result (:func:`emit`): an object with the keys listed in
  docs/user-guide.md ("Machine-readable output");
* on a failure the command reports (an error of Vendiscope, a cancelled job, a bad
  ``--param``, ...), ``{"error": MESSAGE, "kind": KIND, "exit_code": CODE}``
  (:func:`emit_error`), while the message still goes to stderr as without ``--json`` and
  the exit code is the same.

Progress bars, plain progress lines and "waiting: ..." notices go to stderr. While a
``--json`` command runs (:func:`json_session`, entered by
:func:`vendiscope.cli._output.reports_errors`), anything else written to ``sys.stdout`` (a
library's ``print``, a stray message) is sent to stderr, so the document stays the only
thing a script reads. Errors found by the argument parser before a command starts (a
missing argument, an unknown option: exit code 2) are printed by Typer on stderr only.

This module imports nothing of Vendiscope's, so :mod:`vendiscope.cli._output` can use it.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import sys
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import asdict, is_dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, TextIO

JSON_PARAM = "json"
"""The parameter name of ``--json`` (:data:`vendiscope.cli._app.JsonOpt`) in every command."""

_stdout: ContextVar[TextIO | None] = ContextVar("vendiscope_json_stdout", default=None)
_emitted: ContextVar[bool] = ContextVar("vendiscope_json_emitted", default=False)


def wants_json(kwargs: dict[str, Any]) -> bool:
    """Whether a command was called with ``--json`` (its keyword arguments, as Typer gives them)."""
    return kwargs.get(JSON_PARAM) is True


def active() -> bool:
    """Whether a ``--json`` command is running (inside :func:`json_session`)."""
    return _stdout.get() is not None


@contextlib.contextmanager
def json_session(pinned: tuple[Any, ...] = ()) -> Iterator[None]:
    """Run a ``--json`` command: stdout is kept for its one document.

    ``sys.stdout`` is pointed at stderr for the duration, and the document is written to the
    real stdout. ``pinned`` consoles (rich consoles that print to stdout) keep writing to the
    real stdout, so that JSON they print (``_printing.print_json``) still reaches it.
    """
    real = sys.stdout
    saved = [(c, getattr(c, "_file", None)) for c in pinned]
    stdout_token = _stdout.set(real)
    emitted_token = _emitted.set(False)
    for console, _ in saved:
        console.file = real
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        for console, file in saved:
            console.file = file
        _stdout.reset(stdout_token)
        _emitted.reset(emitted_token)


def dumps(document: Any) -> str:
    """``document`` as JSON text: NaN and infinities (not JSON) as null, paths and times as
    strings, dataclasses as objects; indented by two spaces."""
    return json.dumps(
        jsonable(document), indent=2, ensure_ascii=False, allow_nan=False, default=str
    )


def jsonable(value: Any) -> Any:
    """``value`` with every part JSON can hold as is (see :func:`dumps`)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if is_dataclass(value) and not isinstance(value, type):
        return jsonable(asdict(value))
    item = getattr(value, "item", None)  # a NumPy scalar
    if callable(item):
        with contextlib.suppress(TypeError, ValueError):
            return jsonable(item())
    tolist = getattr(value, "tolist", None)  # a NumPy array
    if callable(tolist):
        return jsonable(tolist())
    return str(value)


def emit(document: Any) -> None:
    """Print ``document``, the result of a ``--json`` command, as its one JSON document (an
    object; the listing commands, ``datasets``, ``vectors``, ``subsets list``, ``show``, an
    array)."""
    stream = _stdout.get() or sys.stdout
    stream.write(dumps(document) + "\n")
    stream.flush()
    _emitted.set(True)


def emit_error(message: str, kind: str, exit_code: int) -> None:
    """In a ``--json`` command, the error document ``{"error", "kind", "exit_code"}`` on
    stdout (the message itself is printed on stderr by the caller). Nothing outside one, or
    when the command already printed its document."""
    if not active() or _emitted.get():
        return
    emit({"error": message, "kind": kind, "exit_code": exit_code})


def error_kind(error: BaseException) -> str:
    """The ``kind`` of an error document: the exception's class in kebab case, without
    ``Error``: ``InputError`` -> ``input``, ``NotComputed`` -> ``not-computed``,
    ``PluginRuntimeError`` -> ``plugin-runtime``; ``VendiscopeError`` itself -> ``error``."""
    name = type(error).__name__
    if name == "VendiscopeError":
        return "error"
    name = name.removesuffix("Error") or name
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).lower()


def vector_job_document(
    dataset: str, result: Any, *, next_command: str | None = None
) -> dict[str, Any]:
    """The document of ``embed --json`` and ``gradients --json``: a vector job's result
    (:class:`vendiscope.core.vectors.job.VectorJobResult`)."""
    vs = result.vector_set
    counts = dict(result.counts)
    return {
        "dataset": dataset,
        "vector_set": vs.name,
        "kind": vs.kind,
        "model": vs.model,
        "rows": vs.n_rows,
        "dim": vs.dim,
        "status": vs.status,
        "already_complete": result.already_complete,
        "seconds": round(result.seconds, 3),
        "resumed_from": result.resumed_from,
        "reused": counts.get("reused", 0),
        "counts": counts,
        "run_id": vs.run_id,
        "next": next_command,
    }


def estimate_document(dataset: str, found: Any) -> dict[str, Any]:
    """The document of ``embed --estimate --json`` and ``gradients --estimate --json``
    (:class:`vendiscope.core.vectors.job.JobEstimate`)."""
    return {
        "dataset": dataset,
        "estimate": True,
        "records": found.records,
        "measured": found.measured,
        "measured_seconds": round(found.measured_seconds, 3),
        "load_seconds": round(found.load_seconds, 3),
        "seconds_per_record": found.seconds_per_record,
        "seconds": round(found.seconds, 3),
        "expected_peak_bytes": found.expected_peak_bytes,
        "describe": found.describe(),
    }


def command_line(*words: str) -> str:
    """``words`` as one shell command line (each quoted where the shell needs it)."""
    import shlex

    return " ".join(shlex.quote(str(w)) for w in words)
