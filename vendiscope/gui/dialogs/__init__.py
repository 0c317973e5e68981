"""Dialogs: import, export, pipeline options, errors."""
