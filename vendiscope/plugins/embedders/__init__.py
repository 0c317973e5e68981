"""Built-in embedders: texts to fixed-size vectors (:class:`vendiscope.core.plugins.Embedder`).

Each module imports its heavy libraries (torch, sentence-transformers) only when a model is used.
"""
