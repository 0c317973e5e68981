"""What views show: view data, chart descriptions and their rendering.

``protocol`` (the API's ``ViewData``) and ``missing`` (``NotComputed``) are cheap to import;
``reader`` implements the view data over a project from ``runs``, ``records`` and ``tables``;
``build`` is the one view builder; ``render`` draws charts; ``data`` re-exports the helpers.
"""
