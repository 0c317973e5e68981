"""What a study's plan asks for: :class:`PlanSpec`, its defaults and its checks (no numpy).

The CLI, the Python API and the app read the plan's defaults from here at start-up, so this
module imports nothing heavy; :mod:`.plan` draws the subsets.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from numbers import Integral
from typing import Any

SPEC_VERSION = 1
"""The version :meth:`PlanSpec.to_json` writes; :meth:`PlanSpec.from_json` reads it and older."""
_RESERVED = ("random", "sources", "duplicates", "existing")


@dataclass(frozen=True)
class PlanSpec:
    """What subsets a study trains on: every subset has ``size`` rows of the pool.

    ``selector_draws`` subsets per selector use seeds ``seed, seed + 1, ...``; a selector that
    ignores its seed gives one subset, marked deterministic. ``sources`` subsets each draw from
    only some of the pool's sources; ``duplicates`` subsets hold size/8 to size/2 distinct rows.
    """

    size: int
    random: int = 20
    selectors: tuple[str, ...] = ()
    selector_draws: int = 1
    sources: int = 0
    duplicates: int = 0
    existing: tuple[str, ...] = ()
    seed: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "selectors", tuple(self.selectors))
        object.__setattr__(self, "existing", tuple(self.existing))
        _check_spec(self)

    def to_json(self) -> dict[str, Any]:
        """The spec as JSON-friendly values, with its version."""
        data: dict[str, Any] = {"version": SPEC_VERSION}
        for spec_field in fields(self):
            value = getattr(self, spec_field.name)
            data[spec_field.name] = list(value) if isinstance(value, tuple) else value
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlanSpec:
        """The spec :meth:`to_json` wrote; unknown fields are an error, not ignored."""
        values = {key: value for key, value in data.items() if key != "version"}
        version = data.get("version", SPEC_VERSION)
        if not isinstance(version, int) or version > SPEC_VERSION:
            raise ValueError(f"version: this plan spec is version {version!r}, newer than this app")
        unknown = sorted(set(values) - {spec_field.name for spec_field in fields(cls)})
        if unknown:
            raise ValueError(f"plan spec: unknown fields {unknown}")
        return cls(**values)


def _check_spec(spec: PlanSpec) -> None:
    for name in ("size", "random", "selector_draws", "sources", "duplicates", "seed"):
        value = getattr(spec, name)
        if not is_int(value):
            raise ValueError(f"{name} must be a whole number, not {value!r}")
        if value < 0:
            raise ValueError(f"{name} must not be negative, not {value}")
    if spec.size < 2:
        raise ValueError(f"size must be at least 2 rows, not {spec.size}")
    if spec.selector_draws < 1:
        raise ValueError(f"selector_draws must be at least 1, not {spec.selector_draws}")
    _check_names("selectors", spec.selectors)
    _check_names("existing", spec.existing)
    for name in spec.selectors:
        if slug(name) in _RESERVED or slug(name).startswith("existing-"):
            raise ValueError(f"selectors: {name!r} would clash with the names of other subsets")
    if not (spec.random or spec.selectors or spec.sources or spec.duplicates or spec.existing):
        raise ValueError(
            "the plan has no subsets: ask for random, selector, sources, duplicates or "
            "existing subsets"
        )


def _check_names(field_name: str, names: tuple[str, ...]) -> None:
    """Each name a string with a non-empty slug, no two slugs the same."""
    seen: dict[str, str] = {}
    for name in names:
        key = slug(name) if isinstance(name, str) else ""
        if not key:
            raise ValueError(f"{field_name}: {name!r} is not a usable name")
        if key in seen:
            raise ValueError(
                f"{field_name}: {seen[key]!r} and {name!r} would both be named {key!r}"
            )
        seen[key] = name


def slug(name: str) -> str:
    """``name`` as lower-case ascii words joined by hyphens: "Greedy Vendi" -> "greedy-vendi"."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def is_int(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)
