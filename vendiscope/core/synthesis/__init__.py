"""Prismatic Synthesis: generate new examples that land where the data is thin.

Jung et al. (2025): the pool's projected gradients are clustered (spherical k-means); new
examples from a generator LLM are featurized with the same proxy and kept only when they
land in a sparse cluster (or, with the ``gain`` rule, when they raise G-Vendi). The job
(:mod:`.job`) runs in rounds, each committed in one transaction, and resumes after a kill.
"""
