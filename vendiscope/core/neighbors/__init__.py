"""Nearest neighbours: FAISS indexes, search, near-duplicates, coverage.

``index`` (FAISS indexes with tuned recall), ``cache`` (the vector set searched and the
indexes and text embedder kept in this process), ``search`` (neighbours of records, vectors
or text; it also re-exports the jobs' names), ``near_duplicates`` and ``coverage`` (the
two jobs, each recording a run).
"""
