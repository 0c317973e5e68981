"""Content hashes: two records with the same prompt, response and text are exact duplicates."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

import orjson

from vendiscope.core.io.fields import CONTENT_ROLES


def content_hash(values: Mapping[str, str | None]) -> str:
    """A 128-bit BLAKE2b hex digest of a record's content roles."""
    return hash_content(*(values.get(role) for role in CONTENT_ROLES))


def hash_content(prompt: str | None, response: str | None, text: str | None) -> str:
    """:func:`content_hash` from the three content values."""
    payload = orjson.dumps((prompt, response, text))
    return hashlib.blake2b(payload, digest_size=16).hexdigest()


class Fingerprint:
    """An order-sensitive digest of a stream of content hashes (a dataset's identity)."""

    def __init__(self, salt: str = "") -> None:
        self._digest = hashlib.blake2b(salt.encode(), digest_size=16)

    def update(self, hashes: Iterable[str]) -> None:
        for value in hashes:
            self._digest.update(bytes.fromhex(value))

    def hexdigest(self) -> str:
        return self._digest.hexdigest()
