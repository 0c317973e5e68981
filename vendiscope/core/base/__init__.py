"""Foundations every package uses: errors, jobs (progress, cancel, processes), atomic writes,
text, versions."""
