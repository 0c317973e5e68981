"""The dataset's keys (what a generator must write) and the records a generation becomes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vendiscope.core.io.fields import CONTENT_ROLES
from vendiscope.core.io.hashing import content_hash
from vendiscope.core.store.models import RecordRow
from vendiscope.core.store.synthesis import NewRecord

WRITTEN_ROLES = (*CONTENT_ROLES, "label")
"""The roles a generated example fills (a source or an id is not generated)."""
PROVENANCE_KEY = "synthesis"


@dataclass(frozen=True)
class Keys:
    """The JSON keys of a generated example and the role each fills.

    A role mapped to a plain source column keeps that column's name (``question``), so the
    new records export in the pool's schema; any other role is named after itself.
    """

    by_key: dict[str, str]

    @classmethod
    def of(cls, field_mapping: Mapping[str, Any]) -> Keys:
        roles = field_mapping.get("roles", {})
        by_key: dict[str, str] = {}
        for role in WRITTEN_ROLES:
            if role not in roles:
                continue
            spec = roles[role]
            key = spec if isinstance(spec, str) and "." not in spec else role
            by_key[key if key not in by_key else role] = role
        if not by_key:
            raise ValueError("the dataset maps no prompt, response or text to generate")
        return cls(by_key)

    @property
    def names(self) -> list[str]:
        return list(self.by_key)

    @property
    def roles(self) -> dict[str, str]:
        """Role -> key: the field mapping of the new datasets."""
        return {role: key for key, role in self.by_key.items()}

    def example(self, record: RecordRow) -> dict[str, str | None]:
        """A stored record as a seed example: its values under the dataset's keys."""
        values = record.roles()
        return {key: values.get(role) for key, role in self.by_key.items()}

    def roles_of(self, values: Mapping[str, str]) -> dict[str, str | None]:
        """A parsed generation's values by role."""
        return {role: values[key] for key, role in self.by_key.items()}

    def new_record(self, values: Mapping[str, str], provenance: dict[str, Any]) -> NewRecord:
        """A parsed generation as a record, its provenance kept in its original row."""
        roles = self.roles_of(values)
        raw = {**{key: values[key] for key in self.by_key}, PROVENANCE_KEY: provenance}
        return NewRecord(roles, raw, content_hash(roles))
