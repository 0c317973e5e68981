"""Curation signals: per-record values (quality heuristics, PII, language, contamination)
computed by signal plugins, stored as vector sets, read by filters and the clean-up. The pure
functions behind the built-in signals live in :mod:`.algorithms`."""
