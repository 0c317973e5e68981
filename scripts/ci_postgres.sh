#!/usr/bin/env bash
# Make the PostgreSQL server binaries (initdb, pg_ctl) available to the tests in tests/pg,
# which start their own throwaway server on a free loopback port (tests/pg/_server.py).
# Installs Debian's postgresql package when they are missing. Never fails the build: when it
# cannot install them, the PostgreSQL tests are skipped and pytest says why.
set -u

have_server() {
  command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1
}

if have_server; then
  echo "ci_postgres: PostgreSQL server binaries found"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ci_postgres: no apt-get here; the PostgreSQL tests will be skipped"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
  else
    echo "ci_postgres: not root and no passwordless sudo; the PostgreSQL tests will be skipped"
    exit 0
  fi
fi
export DEBIAN_FRONTEND=noninteractive
echo "ci_postgres: installing Debian's postgresql package"
if timeout 900 $SUDO apt-get update -qq \
  && timeout 900 $SUDO apt-get install -y -qq --no-install-recommends postgresql >/dev/null; then
  have_server && echo "ci_postgres: installed" && exit 0
fi
echo "ci_postgres: could not install postgresql; the PostgreSQL tests will be skipped"
exit 0
