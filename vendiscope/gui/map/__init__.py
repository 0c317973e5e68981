"""The interactive map of a dataset (``data`` is Qt-free)."""
