"""How a project file can be opened here: read-write, or read-only and why.

A project on read-only storage, in a folder this user cannot write, with a read-only file,
or on a full disk is still readable: every read command works, and a command that would
change it says why it cannot. SQLite keeps a ``-shm`` file beside a WAL database; where it
cannot make one (read-only storage or folder, a full disk) and none is there, the file is
read as ``immutable``: nothing else can be changing it then, for nobody has it open.
"""

from __future__ import annotations

import os
from pathlib import Path

FULL_BYTES = 1 << 20
"""Less free space than this on the project's disk: the disk is full (SQLite cannot even
make its 32 KiB ``-shm`` file, and would report a "disk I/O error")."""

FULL = "the disk holding it is full"


def read_only_reason(path: Path) -> str | None:
    """Why the project at ``path`` can only be read here, or ``None`` when it can be written."""
    reason = folder_refuses_new_files(path.resolve().parent)
    if reason is not None:
        return reason
    if not os.access(path, os.W_OK):
        return "the file is read-only"
    return None


def read_uri(path: Path) -> str:
    """An SQLite URI that reads ``path`` without changing anything, wherever it lies."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    shm = path.with_name(path.name + "-shm")
    if folder_refuses_new_files(path.resolve().parent) is not None and not shm.exists():
        uri += "&immutable=1"
    return uri


def advice(reason: str) -> str:
    """What to do about a project that cannot be changed for ``reason``."""
    if reason == FULL:
        return "Free some space on that disk, then run the command again"
    return (
        "Read commands work as they are; to change it, make it writable, or copy it "
        "somewhere writable and use the copy"
    )


def folder_refuses_new_files(folder: Path) -> str | None:
    """Why no new file can be made in ``folder`` (read-only storage or folder, a full disk)."""
    try:
        stats = os.statvfs(folder)
    except OSError:
        return None
    if stats.f_flag & os.ST_RDONLY:
        return "it is on read-only storage"
    if not os.access(folder, os.W_OK):
        return f"its folder {folder} is read-only"
    if stats.f_bavail * stats.f_frsize < FULL_BYTES:
        return FULL
    return None
