"""Built-in importers: JSON Lines, JSON array, CSV/TSV, Parquet, HF datasets and text folders.

Each module holds one :class:`~vendiscope.api.Importer`; heavy libraries
(pyarrow, datasets) are imported inside the functions that use them.
"""
