"""vendiscope-coherence: a gradient-coherence metric and a covariance-preserving selector.

This module only declares the plugin (Vendiscope reads it at start-up); the classes are named
as strings and imported the first time they are used.
"""

from vendiscope.api import Contribution, PluginManifest

__version__ = "0.1.0"

manifest = PluginManifest(
    name="vendiscope-coherence",
    version=__version__,
    api_version="1.0",
    description="Gradient coherence (mean pairwise cosine) and covariance-matching selection.",
    contributions=(
        Contribution(
            "metric",
            "coherence",
            "vendiscope_coherence.metric:GradientCoherence",
            "Gradient coherence",
            description=(
                "Mean pairwise cosine similarity of per-example gradients, in O(n d); per "
                "record, the cosine with the mean of the others."
            ),
        ),
        Contribution(
            "selector",
            "covariance",
            "vendiscope_coherence.selector:CovarianceSelector",
            "Covariance-preserving selection",
            description=(
                "Greedily chooses the rows whose sample covariance best matches the full set's "
                "(Frobenius error); keeps the cross-covariance of paired data."
            ),
        ),
    ),
)
