"""The PySide6 desktop application: thin views over core objects, workers that run core jobs.

Nothing in this package talks SQL or torch directly; it goes through :mod:`vendiscope.core`.
"""
