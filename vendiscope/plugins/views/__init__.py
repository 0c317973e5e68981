"""Built-in views: Qt-free chart descriptions of a dataset's diversity and coverage.

Each module holds one :class:`~vendiscope.api.View`, written against :mod:`vendiscope.api`
only, as a third-party view is. ``build(data)`` reads ``view_data(data)``, the read-only
:class:`~vendiscope.api.ViewData` of the dataset (scores, spectra, sources, the map,
clusters, near-duplicates, selection curves, coverage of ``data["target"]``, synthesis and
study runs), and returns a chart description that the GUI draws interactively and
:func:`vendiscope.core.view_data.render.render_chart` renders to PNG or SVG. A missing piece
raises :class:`~vendiscope.api.NotComputed` naming the command that computes it.

Conventions the renderers follow: a series or category whose name is in parentheses, such
as ``"(random)"`` or ``"(not in subset)"``, is a reference or background, drawn in grey
beneath the others.
"""
