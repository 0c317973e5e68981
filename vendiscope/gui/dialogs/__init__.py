"""Dialogs: import, export, pipeline options, errors, and the frame of a job's settings."""
