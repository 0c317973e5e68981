"""Icons, style sheet and the bundled demo dataset."""
