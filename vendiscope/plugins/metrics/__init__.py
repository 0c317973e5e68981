"""Built-in metrics: scores of a vector set, with optional per-record scores.

Each module holds one :class:`~vendiscope.core.plugins.interfaces.Metric`; the numerical
work lives in :mod:`vendiscope.core` (e.g. :mod:`vendiscope.core.metrics.vendi`) so scripts can use
it without the plugin layer. Heavy libraries (faiss) are imported inside functions.
"""
