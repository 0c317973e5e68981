"""The diversity dashboard of a dataset (``data`` is Qt-free)."""
