"""Map projection (UMAP and its fallbacks).

Everything here is pure: arrays, text or plain data in and out, never the project store (an
import-linter contract in pyproject.toml checks it), so each module is testable and reusable alone.
"""
