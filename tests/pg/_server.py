"""A throwaway PostgreSQL server for tests and benchmarks: ``initdb`` + ``pg_ctl`` in a temp dir.

The server listens on a free loopback port, trusts local connections, and runs with
durability off (``fsync=off``): it exists for one test session. ``initdb`` refuses to run as
root, so as root the server runs as the ``postgres`` system user (created by Debian's
``postgresql`` package, which ``scripts/ci_postgres.sh`` installs in CI).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

SERVER_USER = "postgres"
SUPERUSER = "postgres"


class Unavailable(RuntimeError):
    """No PostgreSQL server can be started here (the reason is the message)."""


def find_bin_dir() -> Path:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres``."""
    found = shutil.which("initdb")
    if found:
        return Path(os.path.realpath(found)).parent
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    if candidates:
        return Path(candidates[-1]).parent
    raise Unavailable(
        "PostgreSQL server binaries (initdb, pg_ctl) are not installed; "
        "run scripts/ci_postgres.sh (apt-get install postgresql)"
    )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    """:meth:`start` it, make databases with :meth:`create_database`, then :meth:`stop` it."""

    def __init__(self) -> None:
        self.bin_dir = find_bin_dir()
        self.port = 0
        self.root: Path | None = None
        self._as_user: list[str] = []
        self._owner: tuple[int, int] | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> PostgresServer:
        if os.geteuid() == 0:
            try:
                entry = pwd.getpwnam(SERVER_USER)
            except KeyError:
                raise Unavailable(
                    f"running as root and there is no '{SERVER_USER}' user to run PostgreSQL "
                    "as (initdb refuses root); install the postgresql package"
                ) from None
            runner = shutil.which("runuser") or shutil.which("su")
            if runner is None:
                raise Unavailable("running as root without runuser or su to drop privileges")
            self._as_user = (
                [runner, "-u", SERVER_USER, "--"]
                if runner.endswith("runuser")
                else [runner, SERVER_USER, "-s", "/bin/sh", "-c"]
            )
            self._owner = (entry.pw_uid, entry.pw_gid)
        # As root the server user must reach the folder: /tmp, not a private $TMPDIR.
        parent = "/tmp" if self._owner is not None and os.path.isdir("/tmp") else None
        self.root = Path(tempfile.mkdtemp(prefix="vendiscope-pg-", dir=parent))
        if self._owner is not None:
            os.chown(self.root, *self._owner)
        data = self.root / "data"
        self._run(
            str(self.bin_dir / "initdb"), "-D", str(data), "-U", SUPERUSER, "--auth=trust",
            "-E", "UTF8", "--no-locale", "--no-sync",
        )  # fmt: skip
        last_error = ""
        for _ in range(5):  # another process may take the free port before the server does
            self.port = free_port()
            options = (
                f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=60 "
                "-c shared_buffers=32MB"
            )
            try:
                self._run(
                    str(self.bin_dir / "pg_ctl"), "-D", str(data), "-l", str(self.root / "log"),
                    "-w", "-t", "60", "-o", options, "start",
                )  # fmt: skip
                return self
            except Unavailable as exc:
                last_error = str(exc)
        self.stop()
        raise Unavailable(f"PostgreSQL did not start: {last_error}")

    def stop(self) -> None:
        if self.root is None:
            return
        data = self.root / "data"
        if (data / "postmaster.pid").exists():
            with contextlib.suppress(Unavailable):
                self._run(str(self.bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop")
        shutil.rmtree(self.root, ignore_errors=True)
        self.root = None

    def _run(self, *command: str) -> None:
        if self._as_user and self._as_user[-1] == "-c":  # su: one shell command line
            import shlex

            argv = [*self._as_user, " ".join(shlex.quote(c) for c in command)]
        else:
            argv = [*self._as_user, *command]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            log = ""
            if self.root is not None and (self.root / "log").exists():
                log = (self.root / "log").read_text(errors="replace")[-2000:]
            raise Unavailable(
                f"{Path(command[0]).name} failed ({done.returncode}): "
                f"{(done.stderr or done.stdout).strip()[-2000:]} {log}"
            )

    # ------------------------------------------------------------------ databases
    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, prefix: str = "vs", *, template: str | None = None) -> str:
        """A new database (empty, or a copy of ``template``); returns its URL."""
        import psycopg

        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        copy = f' TEMPLATE "{template}"' if template else ""
        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user={SUPERUSER} dbname=postgres", autocommit=True
        ) as connection:
            connection.execute(f'CREATE DATABASE "{name}"{copy}')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        import psycopg

        name = url.rsplit("/", 1)[-1]
        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user={SUPERUSER} dbname=postgres", autocommit=True
        ) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
