"""PostgreSQL fixtures: one throwaway server per test session, one fresh database per test.

The server is started by :mod:`tests.pg._server` (``initdb`` + ``pg_ctl`` on a free loopback
port in a temp dir). Where PostgreSQL is not installed and cannot be, every test here is
skipped with the reason; ``scripts/ci_postgres.sh`` (run by ``.ci/run``) installs it.

``project`` is overridden here: test functions imported from ``tests/core`` into the modules
of this folder run against a PostgreSQL catalog instead of a SQLite file.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.pg._server import PostgresServer, Unavailable


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    try:
        server = PostgresServer().start()
    except Unavailable as exc:
        pytest.skip(f"no PostgreSQL server for these tests: {exc}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_template(pg_server: PostgresServer) -> str:
    """A database with the current schema, copied (cheaply) for each test's database."""
    from vendiscope.core.store.project import Project

    url = pg_server.create_database("template")
    Project.create(url).close()
    return url.rsplit("/", 1)[-1]


@pytest.fixture
def pg_url(pg_server: PostgresServer) -> Iterator[str]:
    """An empty database (no tables)."""
    url = pg_server.create_database()
    yield url
    pg_server.drop_database(url)


@pytest.fixture
def project(pg_server: PostgresServer, pg_template: str) -> Iterator[Any]:
    """A new, empty project in its own PostgreSQL database."""
    from vendiscope.core.store.project import Project

    url = pg_server.create_database(template=pg_template)
    with Project.open(url) as opened:
        yield opened
    pg_server.drop_database(url)
