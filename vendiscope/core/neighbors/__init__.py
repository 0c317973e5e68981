"""Nearest neighbours: FAISS indexes, search, near-duplicates, coverage."""
