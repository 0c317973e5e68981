"""Built-in exporters: JSON Lines, CSV, Parquet and Hugging Face ``datasets`` folders.

Each writes rows in their original schema to a path the caller chose; the caller makes the
write atomic and writes the manifest.
"""
