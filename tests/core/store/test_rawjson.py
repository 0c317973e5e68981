"""Stored rows: role values are not stored twice, and every row comes back exactly."""

from __future__ import annotations

import decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vendiscope.core.io.fields import FieldMapping
from vendiscope.core.store import rawjson


def roundtrip(row: dict, mapping: FieldMapping) -> tuple[str, dict]:
    values = mapping.compile()(row)
    stored = rawjson.dumps_compact(row, mapping.shared_columns(), values)
    return stored, rawjson.loads(stored, values)


def test_role_values_are_referenced_not_copied() -> None:
    row = {"id": 7, "question": "q" * 500, "answer": "a" * 500, "domain": "math"}
    mapping = FieldMapping({"prompt": "question", "response": "answer", "source": "domain"})
    stored, back = roundtrip(row, mapping)
    assert stored.startswith(rawjson.COMPACT_PREFIX) and len(stored) < 200
    assert back == row and list(back) == list(row)


def test_non_string_and_lookalike_values_are_kept_verbatim() -> None:
    lookalike = {"question": 0}
    row = {"question": "real", "answer": 42, "meta": [lookalike, None], "label": None}
    mapping = FieldMapping({"prompt": "question", "response": "answer", "label": "label"})
    stored, back = roundtrip(row, mapping)
    assert back == row
    assert '"answer":42' in stored  # an int mapped to a role is stored as itself


def test_one_column_in_two_roles_and_missing_columns() -> None:
    row = {"body": "same text"}
    mapping = FieldMapping({"prompt": "body", "text": "body"})
    assert roundtrip(row, mapping)[1] == row


def test_plain_rows_stay_plain_json() -> None:
    assert rawjson.dumps_compact({"a": 1}, [], ()) == '{"a":1}'
    assert rawjson.loads('{"a":1}') == {"a": 1}
    assert rawjson.dumps({"d": decimal.Decimal("1.10"), "b": b"\x00"}) == '{"d":"1.10","b":"AA=="}'


values = st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1), st.text(max_size=20), st.booleans())


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["p", "r", "t", "x", "y"]), values, min_size=1),
    st.sampled_from(["p", "r", "t"]),
)
def test_any_row_roundtrips(row: dict, text_column: str) -> None:
    mapping = FieldMapping({"prompt": "p", "response": "r", "text": text_column})
    compiled = mapping.compile()
    try:
        role_values = compiled(row)
    except ValueError:  # rows the mapping rejects never reach storage
        return
    stored = rawjson.dumps_compact(row, mapping.shared_columns(), role_values)
    assert rawjson.loads(stored, role_values) == row


def test_integers_beyond_64_bits_do_not_break_storage() -> None:
    row = {"p": "x", "big": 2**70}
    assert '"big":1180591620717411303424' in rawjson.dumps(row)


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_rows_deeper_than_orjson_writes_are_stored_by_the_standard_library() -> None:
    row = {"p": "x", "deep": _nested(300)}  # orjson stops at 254 levels
    mapping = FieldMapping({"prompt": "p"})
    stored, back = roundtrip(row, mapping)
    assert stored.startswith(rawjson.COMPACT_PREFIX) and back == row
    assert rawjson.loads(rawjson.dumps(row)) == row


def test_a_row_too_deep_for_any_writer_is_an_unstorable_row() -> None:
    row = {"p": "x", "deep": _nested(100_000)}
    with pytest.raises(rawjson.UnstorableRow, match="nested too deeply"):
        rawjson.dumps(row)
    with pytest.raises(rawjson.UnstorableRow):
        rawjson.dumps_compact(row, [("p", 0)], ("x",))
