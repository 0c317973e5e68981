"""Atomic writes: write to a temporary sibling, then rename into place (never half-written)."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from vendiscope.core.errors import ExportError


def check_destination(destination: Path, *, force: bool) -> None:
    if destination.exists() and not force:
        raise ExportError(f"{destination}: already exists (use --force to overwrite)")
    if not destination.parent.exists():
        raise ExportError(f"{destination}: folder {destination.parent} does not exist")


@contextlib.contextmanager
def atomic_path(destination: Path, *, directory: bool = False) -> Iterator[Path]:
    """Yield a temporary path beside ``destination``; on success move it into place.

    On any exception the temporary file or folder is removed and ``destination`` is untouched.
    """
    destination = Path(destination)
    parent = destination.parent
    prefix = f".{destination.name}."
    if directory:
        temporary = Path(tempfile.mkdtemp(prefix=prefix, suffix=".tmp", dir=parent))
        shutil.rmtree(temporary)
    else:
        handle, name = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=parent)
        os.close(handle)
        temporary = Path(name)
    try:
        yield temporary
        _replace(temporary, destination)
    except BaseException:
        _remove(temporary)
        raise


def _replace(temporary: Path, destination: Path) -> None:
    if temporary.is_dir():
        if destination.exists():
            old = destination.with_name(f".{destination.name}.old")
            _remove(old)
            destination.rename(old)
            temporary.rename(destination)
            _remove(old)
        else:
            temporary.rename(destination)
    else:
        if destination.is_dir():
            shutil.rmtree(destination)
        os.replace(temporary, destination)


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
