"""The option naming a vector set, declared once with one help text.

Every command that reads vectors takes ``--vectors NAME`` (``--train-vectors``,
``--target-vectors``, ``--embeddings``: the parameter's name gives the flag). The help says
which set is used when none is named: the rule of ``core/vectors/resolve.py`` (the newest
complete set of the first kind the dataset has). The variants differ only in the kinds the
command's job asks for, which the help names.
"""

from __future__ import annotations

from typing import Annotated

import typer


def vector_set_help(default: str) -> str:
    """The one help text of a vector-set option, ``default`` saying which set is used."""
    return f"Vector set by name (default: {default}; see `vendiscope vectors`)."


def newest(*kinds: str) -> str:
    """``newest("gradient", "embedding")``: "the newest gradient set, else embedding set"."""
    return "the newest " + ", else ".join(f"{kind} set" for kind in kinds)


VectorSetOpt = Annotated[
    str | None, typer.Option(help=vector_set_help(newest("gradient", "embedding", "feature")))
]
"""Any kind: the map, the views."""
GradientFirstSetOpt = Annotated[
    str | None, typer.Option(help=vector_set_help(newest("gradient", "embedding")))
]
"""Gradients, else embeddings: clustering, selection."""
GradientSetOpt = Annotated[
    str | None, typer.Option(help=vector_set_help(newest("gradient", "feature")))
]
"""Gradient features: a study's G-Vendi, synthesis."""
EmbeddingSetOpt = Annotated[str | None, typer.Option(help=vector_set_help(newest("embedding")))]
"""Embeddings: neighbour search, near-duplicates, coverage, a study's embedding-Vendi."""
MetricSetOpt = Annotated[
    str | None, typer.Option(help=vector_set_help("the newest set of the metric's kind"))
]
"""The kind the metric plugin asks for: scoring."""
CandidateSetOpt = Annotated[
    str | None, typer.Option(help=vector_set_help("the candidates' set made like the pool's"))
]
"""The candidates' vectors, comparable with the pool's clusters: the Prismatic filter."""
