"""The project panel: the tree of datasets and their parts (``nodes`` is Qt-free)."""
