"""Every file Vendiscope writes goes through here: checked first, then written atomically.

The rules, enforced for exports, manifests, reports, images and bad-row reports alike:

- never write onto a project (any ``*.vscope`` file or its ``-wal``/``-shm``/``-journal``,
  any project this process has open, and any file that holds a project's tables, whatever
  its name), onto any other SQLite database or a file with ``-wal``/``-shm`` beside it
  (``--force`` or not), nor onto an input of the same command;
- never replace a folder with a file or a file with a folder, and never replace anything
  that is not a regular file (a device, a pipe, a socket, a symbolic link);
- an existing regular file is replaced only with ``force``; an existing folder only with
  ``force`` and only when the caller knows it made it (``replaceable_folder``);
- the output is written to a temporary sibling and renamed into place, so it is whole or
  absent; it gets the permissions the user's umask gives a new file;
- temporary files left by a killed writer are removed by the next write to that path.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from vendiscope.core.base.errors import ExportError
from vendiscope.core.base.text import shown_path

TEMPORARY_SUFFIX = ".tmp"


def check_destination(
    destination: Path,
    *,
    force: bool,
    directory: bool = False,
    inputs: Iterable[str | Path] = (),
    replaceable_folder: bool = False,
    overwrite_hint: str = "use --force to overwrite",
) -> None:
    """Refuse ``destination`` unless writing there destroys nothing that should stay.

    ``directory`` says the output is a folder; ``inputs`` are the command's own inputs;
    ``overwrite_hint`` tells the user how to replace an existing file.
    """
    from vendiscope.core.base.project_files import (
        belongs_to,
        looks_like_project_file,
        open_projects,
    )

    destination = Path(destination)
    where = shown_path(destination)
    if not destination.parent.is_dir():
        raise ExportError(f"{where}: folder {destination.parent} does not exist")
    project = belongs_to(destination, open_projects())
    if project is not None or looks_like_project_file(destination):
        raise ExportError(
            f"{where}: is a Vendiscope project file (or one of its SQLite files); "
            "Vendiscope never writes an output over a project. Choose another name"
        )
    for source in inputs:
        if _same(destination, Path(source)):
            raise ExportError(
                f"{where}: is an input of this command ({source}); choose another name"
            )
    try:
        found = destination.lstat()
    except FileNotFoundError:
        return
    kind = _kind(found.st_mode)
    if kind == "folder" and not directory:
        raise ExportError(
            f"{where}: is a folder; Vendiscope never replaces a folder with a file. "
            "Give a file name (inside the folder, perhaps)"
        )
    if kind == "file" and directory:
        raise ExportError(f"{where}: is a file, and this output is a folder; choose another name")
    if kind == "file":
        _refuse_a_database(destination)
    if kind not in ("file", "folder"):
        raise ExportError(
            f"{where}: is a {kind}, not a regular file; Vendiscope writes regular "
            "files only. Choose another name"
        )
    if not force:
        raise ExportError(f"{where}: already exists ({overwrite_hint})")
    if kind == "folder" and not replaceable_folder:
        raise ExportError(
            f"{where}: is a folder that Vendiscope did not write; --force replaces "
            "only a previous export. Choose another name, or remove the folder yourself"
        )


def _refuse_a_database(destination: Path) -> None:
    """A project or any SQLite database is recognised by its content and its ``-wal``/``-shm``
    siblings, whatever its name, and never replaced: ``--force`` or not."""
    from vendiscope.core.base.project_files import database_kind, sidecars_present

    where = shown_path(destination)
    found = database_kind(destination)
    beside = sidecars_present(destination)
    in_use = f" ({', '.join(m.name for m in beside)} beside it: it may be open)" if beside else ""
    if found == "project":
        raise ExportError(
            f"{where}: is a Vendiscope project (whatever its name){in_use}; Vendiscope "
            "never writes an output over a project, --force or not. Choose another name"
        )
    if beside:
        raise ExportError(
            f"{where}: is a database in use, or left by a writer that was stopped"
            f"{in_use}; Vendiscope never writes an output over a database, --force or not. "
            "Choose another name"
        )
    if found == "database":
        raise ExportError(
            f"{where}: is a SQLite database; Vendiscope never writes an output over a "
            "database, --force or not. Choose another name, or remove it yourself"
        )


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISLNK(mode):
        return "symbolic link"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISFIFO(mode):
        return "named pipe"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def _same(a: Path, b: Path) -> bool:
    from vendiscope.core.base.project_files import same_file

    return same_file(a, b)


@contextlib.contextmanager
def atomic_path(destination: Path, *, directory: bool = False) -> Iterator[Path]:
    """Yield a temporary path beside ``destination``; on success move it into place.

    On any exception the temporary file or folder is removed and ``destination`` is
    untouched; a failure of the disk is reported with the destination's name.
    """
    with atomic_paths((Path(destination), directory)) as (temporary,):
        yield temporary


@contextlib.contextmanager
def atomic_paths(*outputs: tuple[Path, bool]) -> Iterator[list[Path]]:
    """Like :func:`atomic_path` for several outputs that land together or not at all.

    ``outputs`` are ``(destination, is_directory)`` pairs. All are written to temporaries
    first; then a journal beside the first destination lists the renames, the renames run
    in order, and the journal goes. A process killed between two renames leaves the
    journal: the next write to that destination finishes the renames (the data was
    complete) — see :func:`remove_stale_temporaries`.
    """
    destinations = [Path(destination) for destination, _ in outputs]
    for destination in destinations:
        remove_stale_temporaries(destination)
    temporaries: list[Path] = []
    journal: Path | None = None
    try:
        for destination, directory in outputs:
            temporaries.append(_temporary(Path(destination), directory=directory))
        yield temporaries
        for temporary in temporaries:
            _give_umask_permissions(temporary)
        if len(temporaries) > 1:
            journal = _write_journal(
                destinations[0], list(zip(temporaries, destinations, strict=True))
            )
        for temporary, destination in zip(temporaries, destinations, strict=True):
            replace(temporary, destination)
        if journal is not None:
            journal.unlink()
    except OSError as exc:
        for temporary in temporaries:
            _remove(temporary)
        where = next((d for d in destinations if not d.exists()), destinations[0])
        raise ExportError(
            f"{where}: could not be written ({exc.strerror or exc}); nothing was changed"
        ) from exc
    except BaseException:
        for temporary in temporaries:
            _remove(temporary)
        raise


JOURNAL_SUFFIX = ".renames" + TEMPORARY_SUFFIX


def _write_journal(first: Path, renames: list[tuple[Path, Path]]) -> Path:
    import json

    journal = first.with_name(f".{first.name}.{os.getpid()}{JOURNAL_SUFFIX}")
    text = json.dumps([[str(temporary), str(final)] for temporary, final in renames])
    partial = journal.with_name(journal.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, journal)
    return journal


def _finish_journal(journal: Path) -> None:
    """Complete the renames a killed writer had started (its outputs were all complete)."""
    import json

    try:
        renames = json.loads(journal.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        renames = []
    for temporary, final in renames:
        if Path(temporary).exists():
            replace(Path(temporary), Path(final))
    journal.unlink(missing_ok=True)


def _temporary(destination: Path, *, directory: bool) -> Path:
    """A new hidden sibling named ``.NAME.PID.RANDOM.tmp`` (the pid tells a stale one)."""
    prefix = f".{destination.name}.{os.getpid()}."
    if directory:  # a unique name, which the exporter then creates as its folder
        folder = Path(
            tempfile.mkdtemp(prefix=prefix, suffix=TEMPORARY_SUFFIX, dir=destination.parent)
        )
        folder.rmdir()
        return folder
    handle, name = tempfile.mkstemp(prefix=prefix, suffix=TEMPORARY_SUFFIX, dir=destination.parent)
    os.close(handle)
    return Path(name)


def remove_stale_temporaries(destination: Path) -> list[Path]:
    """Clean up after writers of ``destination`` that were killed.

    A journal of renames left by a killed :func:`atomic_paths` is finished first; then
    every temporary of ``destination`` whose writing process no longer exists is removed.
    """
    prefix = f".{destination.name}."
    try:
        stale = [
            sibling
            for sibling in destination.parent.iterdir()
            if sibling.name.startswith(prefix)
            and TEMPORARY_SUFFIX in sibling.name[len(prefix) :]
            and _writer_gone(sibling.name[len(prefix) :])
        ]
    except OSError:
        return []
    for journal in [path for path in stale if path.name.endswith(JOURNAL_SUFFIX)]:
        _finish_journal(journal)
    removed = []
    for sibling in stale:
        if sibling.exists() or sibling.is_symlink():
            _remove(sibling)
            removed.append(sibling)
    return removed


def _writer_gone(rest: str) -> bool:
    pid = rest.partition(".")[0]
    return pid.isdigit() and not _alive(int(pid))


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def current_umask() -> int:
    """The process's umask, read without changing it where the system allows."""
    with contextlib.suppress(OSError, ValueError, StopIteration):
        with open("/proc/self/status", encoding="ascii") as status:
            line = next(line for line in status if line.startswith("Umask:"))
        return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _give_umask_permissions(path: Path) -> None:
    """mkstemp/mkdtemp make private files (0600/0700); give what a plain open() would."""
    mask = current_umask()
    path.chmod((0o777 if path.is_dir() else 0o666) & ~mask)


def replace(temporary: Path, destination: Path) -> None:
    """Rename ``temporary`` over ``destination`` (a previous folder is moved aside first)."""
    if temporary.is_dir() and destination.is_dir():
        old = destination.with_name(f".{destination.name}.{os.getpid()}.old{TEMPORARY_SUFFIX}")
        _remove(old)
        destination.rename(old)
        temporary.rename(destination)
        _remove(old)
        return
    os.replace(temporary, destination)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
