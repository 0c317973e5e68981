"""Curation signals in the app: computing them ("Compute signals…") and the clean-up checklist."""
