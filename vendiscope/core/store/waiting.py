"""Wait for another process's write lock on a project file instead of failing.

SQLite lets one writer at a time into a project file. A long import holds the write lock
for its whole transaction (so that an import lands whole or not at all); another command
that writes meanwhile — an embedding, ``subsets create``, a second import — used to fail
after the busy timeout with "database is locked". Now every statement a project connection
runs waits for as long as *another process* holds the lock, telling the user which process
that is and how long it has waited (:func:`add_notice`); Ctrl-C or a job's Cancel stops
the wait as usual.

A statement that finds the lock busy has done nothing, so trying it again is safe. The one
busy error that cannot be waited out — a transaction whose snapshot went stale
(``SQLITE_BUSY_SNAPSHOT``) — is raised at once. When no other process has the file open,
the holder is this process itself (another thread, a connection left in a transaction):
waiting could never end, and the statement fails after :data:`SAME_PROCESS_LIMIT_S` as
before.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
Notice = Callable[[str | None], None]
"""Receives a message while a statement waits, and ``None`` once it goes on."""

TRY_MS = 2_000
"""SQLite's own busy wait for each try: the first notice comes after it."""
NOTICE_EVERY_S = 15.0
SAME_PROCESS_LIMIT_S = 30.0
RETRYABLE = {"SQLITE_BUSY", "SQLITE_BUSY_RECOVERY", "SQLITE_BUSY_TIMEOUT"}

_notices: list[Notice] = []
_log = logging.getLogger("vendiscope.store")


def add_notice(notice: Notice) -> Callable[[], None]:
    """Tell ``notice`` about waits of this process (e.g. print them); returns a remover."""
    _notices.append(notice)
    return lambda: _notices.remove(notice) if notice in _notices else None


def _tell(message: str | None) -> None:
    if not _notices and message:
        _log.warning(message)
    for notice in list(_notices):
        with contextlib.suppress(Exception):
            notice(message)


def is_retryable(error: BaseException) -> bool:
    """True for a busy error a later try can get past (not a stale snapshot)."""
    if not isinstance(error, sqlite3.OperationalError):
        return False
    name = getattr(error, "sqlite_errorname", None)  # Python 3.11+
    if name is not None:
        return name in RETRYABLE
    return str(error) == "database is locked"


def other_holders(path: str) -> list[str]:
    """Other processes that have the project file open: ``"vendiscope import (pid 12)"``."""
    import psutil

    try:
        wanted = {Path(path).resolve()}
    except OSError:
        return []
    wanted |= {Path(f"{item}{suffix}") for item in wanted for suffix in ("-wal", "-shm")}
    found = []
    for process in psutil.process_iter(["pid", "cmdline", "name"]):
        if process.pid == os.getpid():
            continue
        try:
            if any(Path(item.path) in wanted for item in process.open_files()):
                found.append(f"{_command(process.info)} (pid {process.pid})")
        except (psutil.Error, OSError):
            continue
    return found


def _command(info: dict[str, Any]) -> str:
    """``vendiscope import`` for our own commands, else the program's name."""
    words = [os.path.basename(str(word)) for word in info.get("cmdline") or []]
    for at, word in enumerate(words):
        if word == "vendiscope" or (word == "-m" and words[at + 1 : at + 2] == ["vendiscope"]):
            rest = [w for w in words[at + 1 :] if w != "vendiscope" and not w.startswith("-")]
            return "vendiscope " + rest[0] if rest else "vendiscope"
    return str(info.get("name") or "another program")


def patiently(call: Callable[[], T], path: str) -> T:
    """``call()``, tried again while another process holds the write lock of ``path``."""
    started: float | None = None
    told = 0.0
    while True:
        try:
            result = call()
        except sqlite3.OperationalError as error:
            if not is_retryable(error):
                raise
            now = time.monotonic()
            if started is None:
                started = now - TRY_MS / 1000
            holders = other_holders(path)
            waited = now - started
            if not holders and waited >= SAME_PROCESS_LIMIT_S:
                raise
            if holders and now - told >= NOTICE_EVERY_S:
                told = now
                _tell(_message(path, holders, waited))
            continue
        if started is not None and told:
            _tell(None)
        return result


def _message(path: str, holders: list[str], waited: float) -> str:
    who = " and ".join(holders)
    if waited < NOTICE_EVERY_S:
        return f"{path}: waiting for {who}, which is writing to it (Ctrl-C stops)"
    return f"{path}: still waiting for {who}, {waited:.0f} s so far"
