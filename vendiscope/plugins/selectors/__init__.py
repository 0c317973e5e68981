"""Built-in selectors: choose ``k`` rows of a vector set under a budget.

Each module holds one thin :class:`~vendiscope.api.Selector` whose parameters live in
``__init__`` (with defaults, no logic); the algorithms are plain numpy/FAISS functions of
:mod:`vendiscope.api` (``greedy_vendi``, ``k_center``...), usable without the plugin layer.
Parameters are checked when :meth:`select` runs, and a bad one raises ``ValueError``
naming it.
"""
