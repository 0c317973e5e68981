"""Defaults of the scoring job that its callers (the CLI, the Python API, the app) share.

A light module (nothing heavy imported), so that a command's options can show them.
"""

from __future__ import annotations

DEFAULT_DRAWS = 20
"""Random subsets of a subset's size drawn for its random baseline (``vs_random=True``,
``--vs-random``) unless ``random_draws`` (``--random-draws``) says otherwise."""
