"""Built-in views: Qt-free chart descriptions of a dataset's diversity and coverage.

Each module holds one :class:`~vendiscope.core.plugins.interfaces.View`. ``build(data)``
takes ``{"project": Project, "dataset": str}`` (plus ``"target": str`` for coverage) and
returns a chart description (:mod:`vendiscope.core.plugins.charts`) that the GUI draws interactively
and :func:`vendiscope.core.views.render.render_chart` renders to PNG or SVG. The data comes from
the stored runs through :mod:`vendiscope.core.views.data`; a missing piece raises
:class:`~vendiscope.core.views.data.NotComputed` naming the command that computes it.

Conventions the renderers follow: a series or category whose name is in parentheses, such
as ``"(random)"`` or ``"(not in subset)"``, is a reference or background, drawn in grey
beneath the others.
"""
