"""The self-contained HTML audit report (see :mod:`vendiscope.core.report.build`).

One job per module: :mod:`.numbers` (gathering the numbers), :mod:`.compute` (running the
missing cheap steps), :mod:`.charts` (the charts, through the registry's views), :mod:`.html`
(writing the page) and :mod:`.build` (the entry point, :func:`write_report`).
"""
