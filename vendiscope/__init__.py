"""Vendiscope: dataset curation and diversity auditing for language-model training data."""

__version__ = "0.1.0"

__all__ = ["__version__"]
