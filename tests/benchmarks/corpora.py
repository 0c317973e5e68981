"""Real text with known groups, for the resolution benchmarks.

- ``docstrings``: Python docstrings grouped by package (:mod:`tests.benchmarks.docstrings`).
- ``debian``: Debian package descriptions grouped by archive section (``libs``, ``python``,
  ``devel``, ``games`` ...), read from ``apt-cache dumpavail`` (run ``apt-get update`` once
  on a fresh machine). Prompt: "What is the Debian package `NAME` for?"; response: its
  description (synopsis and long description).

Each loader returns ``{group: [{"id", "group", "prompt", "response"}]}``, deterministic for a
given installation; :func:`draw` takes seeded, evenly spread samples.
"""

from __future__ import annotations

import json
import random
import subprocess
import tempfile
from pathlib import Path

MIN_CHARS = 120
MAX_CHARS = 700
MIN_PER_GROUP = 40
CACHE = Path(tempfile.gettempdir()) / "vendiscope-bench-debian.json"


def load(corpus: str) -> dict[str, list[dict[str, str]]]:
    if corpus == "docstrings":
        from tests.benchmarks.docstrings import harvest

        return {g: [r | {"group": g} for r in rows] for g, rows in harvest().items()}
    if corpus == "debian":
        return debian()
    raise ValueError(f"unknown corpus {corpus!r}")


def debian() -> dict[str, list[dict[str, str]]]:
    """Package descriptions by section (cached in the temporary folder).

    Sections come from ``apt-cache dumpavail``, long descriptions from the package lists'
    English translations (``apt-get update -o Acquire::Languages=en`` fetches them).
    """
    if CACHE.is_file():
        return json.loads(CACHE.read_text(encoding="utf-8"))
    sections = {}
    for stanza in _run("apt-cache", "dumpavail").split("\n\n"):
        fields = _fields(stanza)
        if fields.get("Package") and fields.get("Section"):
            sections.setdefault(fields["Package"], fields["Section"].rsplit("/", 1)[-1])
    translations = sorted(Path("/var/lib/apt/lists").glob("*_main_i18n_Translation-en*"))
    if not translations:
        raise SystemExit("no package descriptions: run apt-get update -o Acquire::Languages=en")
    groups: dict[str, list[dict[str, str]]] = {}
    seen: set[str] = set()
    for path in translations:
        for stanza in _run("/usr/lib/apt/apt-helper", "cat-file", str(path)).split("\n\n"):
            fields = _fields(stanza)
            name, description = fields.get("Package"), fields.get("Description-en", "")
            if not name or name in seen or name not in sections:
                continue
            synopsis, _, body = description.partition("\n")
            lines = ("" if line.strip() == "." else line.strip() for line in body.splitlines())
            response = f"{synopsis.strip()}.\n\n" + "\n".join(lines).strip()
            if len(response) < MIN_CHARS:
                continue
            seen.add(name)
            section = sections[name]
            groups.setdefault(section, []).append(
                {
                    "id": name,
                    "group": section,
                    "prompt": f"What is the Debian package `{name}` for?",
                    "response": response[:MAX_CHARS],
                }
            )
    groups = {g: rows for g, rows in sorted(groups.items()) if len(rows) >= MIN_PER_GROUP}
    partial = CACHE.with_suffix(".tmp")
    partial.write_text(json.dumps(groups), encoding="utf-8")
    partial.replace(CACHE)
    return groups


def _run(*command: str) -> str:
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def _fields(stanza: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    key = None
    for line in stanza.splitlines():
        if line[:1] in (" ", "\t") and key is not None:
            fields[key] += "\n" + line
        elif ":" in line:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


BASE_POOL = 512
"""Pools up to this size are drawn afresh; a larger pool of ``n`` rows is the pool of
``n // 2`` rows plus ``n - n // 2`` more (so a feature cache of the smaller pool is its prefix)."""


def draw(
    grouped: dict[str, list[dict[str, str]]], n: int, *, groups: int, seed: int = 0
) -> list[dict[str, str]]:
    """``n`` rows spread evenly over the ``groups`` largest groups (seeded).

    Above :data:`BASE_POOL` the draw grows by extension (see there): the first ``n // 2``
    rows are exactly the smaller draw, in the same order.
    """
    names = sorted(grouped, key=lambda g: (-len(grouped[g]), g))[:groups]
    if len(names) < groups:
        raise ValueError(f"only {len(names)} groups, not {groups}")
    if n > BASE_POOL:
        first = draw(grouped, n // 2, groups=groups, seed=seed)
        used = {row["id"] for row in first}
        extra = _spread(
            {g: [r for r in grouped[g] if r["id"] not in used] for g in names},
            names, n - n // 2, random.Random(seed * 1_000_003 + n),
        )  # fmt: skip
        return first + extra
    return _spread(grouped, names, n, random.Random(seed))


def _spread(
    grouped: dict[str, list[dict[str, str]]], names: list[str], n: int, rng: random.Random
) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for i, name in enumerate(names):
        share = n // len(names) + (1 if i < n % len(names) else 0)
        if share > len(grouped[name]):
            raise ValueError(f"group {name} has {len(grouped[name])} rows, not {share}")
        out += rng.sample(grouped[name], share)
    rng.shuffle(out)
    return out
