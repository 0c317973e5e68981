"""The embedding and scoring jobs on a PostgreSQL catalog (the SQLite tests, imported)."""

from __future__ import annotations

from tests.core.vectors.test_embedding import (  # noqa: F401 - collected here, against PostgreSQL
    registry,
    test_cancel_then_resume_gives_the_same_matrix,
    test_embeds_every_record_in_order,
    test_identical_records_are_embedded_once,
)
