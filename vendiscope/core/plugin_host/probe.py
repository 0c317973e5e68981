"""Import third-party plugin code in a child process first, so it cannot take a command down.

A plugin that calls ``os._exit()``, segfaults or hangs while it is imported would end (or
stall) every command that discovers plugins — ``vendiscope doctor`` included — with no
word. So before a plugin file or a third-party entry point is imported in this process, a
child process imports it (with a time limit). Only what the child imported cleanly is
imported here; anything else is recorded as a failure naming the plugin.

The verdict is remembered in the user cache folder, keyed by the file's content (or the
distribution's name and version), so the probe costs one child process per new or changed
plugin, not one per command (a plugin that hung is probed again next time).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

TIMEOUT_SECONDS = 60.0
SAFE = "ok"  # the verdict of a plugin that may be imported in this process
CACHE_ENV = "VENDISCOPE_PROBE_CACHE"  # a file path; empty: remember nothing

_FILE = """
import sys
from pathlib import Path
from vendiscope.core.plugin_host import userdir
userdir.mount(Path(sys.argv[1]))
userdir.load_manifest(Path(sys.argv[2]))
print("vendiscope-probe-ok", flush=True)
"""

_ENTRY_POINT = """
import sys
from importlib.metadata import EntryPoint
EntryPoint(name=sys.argv[1], value=sys.argv[2], group=sys.argv[3]).load()
print("vendiscope-probe-ok", flush=True)
"""


def probe_file(folder: Path, path: Path) -> str | None:
    """Import plugin file ``path`` in a child; why it must not be imported here, or None."""
    try:
        key = "file:" + hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    return _probe(key, _FILE, [str(folder), str(path)])


def probe_entry_point(name: str, value: str, group: str, version: str) -> str | None:
    """Load the entry point in a child; why it must not be loaded here, or None."""
    return _probe(f"entry:{group}:{name}:{value}:{version}", _ENTRY_POINT, [name, value, group])


def _probe(key: str, code: str, args: list[str]) -> str | None:
    cache = _cache_file()
    known = _read_cache(cache)
    if key in known:
        return None if known[key] == SAFE else known[key]
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:  # not remembered: a slow machine may do better next time
        return f"did not finish importing within {TIMEOUT_SECONDS:.0f} s (it hangs at import)"
    verdict = _verdict(done)
    _remember(cache, known, key, verdict or SAFE)
    return verdict


def _verdict(done: subprocess.CompletedProcess[str]) -> str | None:
    """Why the child's import must not be repeated here, or None when it is safe to."""
    if "vendiscope-probe-ok" in done.stdout or "Traceback" in done.stderr:
        return None  # imported, or raised: imported here it is reported with its traceback
    if done.returncode < 0:
        return f"crashed the process while being imported (signal {-done.returncode})"
    last = (done.stderr.strip().splitlines() or [""])[-1]
    detail = f": {last}" if last else ""
    return f"ended the process while being imported (exit code {done.returncode}){detail}"


def _cache_file() -> Path | None:
    override = os.environ.get(CACHE_ENV)
    if override is not None:
        return Path(override) if override.strip() else None
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("vendiscope")) / "plugin-probes.json"


def _read_cache(cache: Path | None) -> dict[str, str]:
    if cache is None:
        return {}
    try:
        found = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _remember(cache: Path | None, known: dict[str, str], key: str, verdict: str) -> None:
    if cache is None:
        return
    from vendiscope.core.base.atomic import atomic_path

    known = {**known, key: verdict}
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(cache) as temporary:
            temporary.write_text(json.dumps(known, indent=1), encoding="utf-8")
    except Exception:  # a cache that cannot be written only costs another probe next time
        return
