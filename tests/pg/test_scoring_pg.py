"""The featurizer and scoring jobs on a PostgreSQL catalog (the SQLite tests, imported)."""

from __future__ import annotations

from tests.core.metrics.test_scoring import (  # noqa: F401 - collected here, against PostgreSQL
    featurized,
    registry,
    test_featurize_job_stores_rows_in_order,
    test_score_overall_per_source_and_per_record,
)
