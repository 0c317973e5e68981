"""Built-in metrics: scores of a vector set, with optional per-record scores.

Each module holds one :class:`~vendiscope.api.Metric`; the numerical work is in functions of
:mod:`vendiscope.api` (e.g. :func:`~vendiscope.api.vendi_decompose`) so scripts can use it
without the plugin layer. Heavy libraries (faiss) are imported inside functions.
"""
