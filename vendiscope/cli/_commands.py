"""Every command of the ``vendiscope`` CLI, registered on :data:`~vendiscope.cli._app.app`.

Each command module imports ``app`` from :mod:`vendiscope.cli._app` and registers its
commands when imported; this module imports them all, and it is the only module that does,
so no import runs in a circle: ``_commands`` -> command modules -> ``_app``. The import
order is the order of ``vendiscope --help`` (hence ``isort: off``).
"""

from __future__ import annotations

# isort: off
from vendiscope.cli import _datasets  # new, import, datasets, show, stats, export
from vendiscope.cli import _sample  # sample
from vendiscope.cli import _plugins  # plugins; the `plugin` group
from vendiscope.cli import _system  # doctor, demo, gui
from vendiscope.cli import _scale  # migrate-project
from vendiscope.cli import _gradients  # gradients
from vendiscope.cli import _score  # score
from vendiscope.cli import _report  # map, view, report
from vendiscope.cli import _search  # neighbors, near-dups, coverage
from vendiscope.cli import _select  # select
from vendiscope.cli import _clusters  # clusters, filter-candidates
from vendiscope.cli import _signals  # signals, clean
from vendiscope.cli import _synthesize  # synthesize
from vendiscope.cli import _study  # study
from vendiscope.cli import _vectors  # embed, vectors
from vendiscope.cli import _subsets  # the `subsets` group

# isort: on
from vendiscope.cli._app import app

COMMAND_MODULES = (
    _datasets, _sample, _plugins, _system, _scale, _gradients, _score, _report, _search,
    _select, _clusters, _signals, _synthesize, _study, _vectors, _subsets,
)  # fmt: skip

__all__ = ["COMMAND_MODULES", "app"]
