"""Curation-signal algorithms: text heuristics, PII spans, n-gram contamination, MinHash-LSH
near-duplicate groups, language identification.

Everything here is pure: text in, NumPy arrays / plain data out, never the store (an
import-linter contract in pyproject.toml checks it), so each module is testable and reusable alone.
"""
