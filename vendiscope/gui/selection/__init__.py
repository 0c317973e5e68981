"""The selection workbench (``data`` is Qt-free)."""
