"""Building a view: the one path the command line, the app and the report take.

:func:`build_view` types the parameters (a bad one is a ``ParamError`` naming it), gives the
view its :class:`~vendiscope.core.view_data.reader.ViewInput`, calls ``build`` inside
``registry.running`` (an exception becomes a ``PluginRuntimeError`` naming the view and its
plugin, recorded as a run failure; a ``ValueError`` keeps its message, prefixed with the
view) and checks the chart against the schema (``registry.check_result``). What is not
computed yet raises :class:`~vendiscope.core.view_data.missing.NotComputed` unchanged.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.view_data.reader import ViewInput

if TYPE_CHECKING:
    from vendiscope.core.plugin_host.registry import PluginRegistry
    from vendiscope.core.store.project import Project


@dataclass(frozen=True)
class BuiltView:
    """A view's chart description for one dataset, with what built it."""

    view: str
    dataset: str
    params: dict[str, Any]
    chart: dict[str, Any]
    seconds: float
    target: str | None = None
    plugin: str = field(default="")

    @property
    def title(self) -> str:
        return str(self.chart.get("title", ""))


def build_view(
    project: Project,
    view_name: str,
    dataset: str,
    params: Mapping[str, Any] | None = None,
    *,
    registry: PluginRegistry | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
    target: str | None = None,
    vector_set: str | None = None,
    score_set: str | None = None,
    param_prefix: str = "",
    view_data: Any = None,
) -> BuiltView:
    """Build view ``view_name`` of ``dataset`` with ``params`` (strings or typed values).

    ``target`` is the second dataset of a view with ``needs_target``; ``vector_set`` and
    ``score_set`` choose the generic ``data["vectors"]`` and ``data["scores"]`` (default:
    the latest). ``param_prefix`` starts a parameter's name in errors (``"--param "`` on
    the command line). ``view_data`` replaces the view data read from the project (the
    report passes the numbers it has gathered already, so nothing is computed twice).
    """
    from vendiscope.core.plugin_host.registry import default_registry

    registry = registry or default_registry()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    typed = registry.coerce("view", view_name, dict(params or {}), prefix=param_prefix)
    cancel.raise_if_cancelled()
    progress.start(f"View {view_name} of {dataset}", total=1, unit="chart")
    started = time.perf_counter()
    data = ViewInput(project, dataset, target=target, vector_set=vector_set, score_set=score_set)
    if view_data is not None:
        data["view_data"] = view_data
    with registry.running("view", view_name, "build"):
        view = registry.create("view", view_name, **typed)
        chart = view.build(data)
    registry.check_result("view", view_name, chart)
    progress.update(1, 1)
    progress.finish()
    return BuiltView(
        view=view_name,
        dataset=dataset,
        params=typed,
        chart=chart,
        seconds=time.perf_counter() - started,
        target=target,
        plugin=registry.get("view", view_name).plugin,
    )


__all__ = ["BuiltView", "build_view"]
