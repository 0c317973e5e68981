"""Built-in embedders: texts to fixed-size vectors (:class:`vendiscope.api.Embedder`).

Each module imports its heavy libraries (torch, sentence-transformers) only when a model is used.
"""
