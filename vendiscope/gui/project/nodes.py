"""What the project tree shows, as plain data (no Qt): datasets and, under each, its parts.

The children of a dataset come from *node providers*: functions ``(project, dataset) ->
list[Node]``. The built-in ones list vector sets, runs and subsets; a later feature (the map
view, the selection workbench) adds its own with :func:`register_node_provider`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vendiscope.core.store.models import DatasetInfo, RunInfo

if TYPE_CHECKING:
    from vendiscope.core.store.project import Project


@dataclass
class Node:
    """One row of the project tree.

    ``kind`` says what it is (``dataset``, ``vector_set``, ``run``, ``subset``, ``group`` ...),
    ``key`` identifies it among its siblings (so expansion survives a refresh), ``payload``
    is the core object it stands for.
    """

    kind: str
    key: str
    label: str
    detail: str = ""
    tooltip: str = ""
    icon: str = ""
    dataset: str | None = None
    payload: Any = None
    children: list[Node] = field(default_factory=list)


NodeProvider = Callable[["Project", DatasetInfo], list[Node]]
_PROVIDERS: list[NodeProvider] = []


def register_node_provider(provider: NodeProvider) -> None:
    """Add children to every dataset node (called once, at import of the feature's module)."""
    if provider not in _PROVIDERS:
        _PROVIDERS.append(provider)


def project_nodes(project: Project) -> list[Node]:
    """The whole tree: one node per dataset with its providers' children."""
    nodes = []
    for info in project.datasets():
        dataset = Node(
            "dataset",
            f"dataset:{info.name}",
            info.name,
            f"{info.row_count:,} records",
            _dataset_tooltip(info),
            "dataset",
            info.name,
            info,
        )
        for provider in _PROVIDERS:
            dataset.children.extend(provider(project, info))
        nodes.append(dataset)
    return nodes


def _dataset_tooltip(info: DatasetInfo) -> str:
    mapping = ", ".join(f"{k}={v}" for k, v in info.field_mapping.get("roles", {}).items())
    return (
        f"{info.name}: {info.row_count:,} records, {info.duplicate_count:,} exact duplicates\n"
        f"source: {info.source_uri}\nformat: {info.format}\nmapping: {mapping}"
    )


def _group(kind: str, label: str, icon: str, dataset: str, children: list[Node]) -> Node:
    return Node(
        "group", f"group:{kind}", label, f"{len(children)}", "", icon, dataset, kind, children
    )


# ----------------------------------------------------------------------------- built-ins
def vector_set_nodes(project: Project, info: DatasetInfo) -> list[Node]:
    from vendiscope.core.store import vectors
    from vendiscope.core.vectors.resume import resume_command

    children = []
    for vs in vectors.list_sets(project, info.name):
        tooltip = vector_set_tooltip(vs)
        if vs.status == vectors.COMPLETE:
            state = f"{vs.n_rows:,} x {vs.dim}"
        else:  # running, running on another host, or interrupted (with how to resume it)
            found = vectors.set_state(project, vs)
            command = (
                resume_command(project.location, info.name, vs, info.field_mapping)
                if found.resumable
                else None
            )
            state = found.describe(command)
            tooltip += f"\n{state}" + ("\n(right-click: Resume)" if found.resumable else "")
        children.append(
            Node(
                "vector_set",
                f"vs:{vs.name}",
                vs.name,
                state,
                tooltip,
                "vectors",
                info.name,
                vs,
            )
        )
    return [_group("vector_sets", "Vector sets", "vectors", info.name, children)]


def run_nodes(project: Project, info: DatasetInfo) -> list[Node]:
    from vendiscope.core.store.runs import interrupted_runs

    gone = {run_id for run_id, _kind, _who in interrupted_runs(project)}
    children = [
        Node(
            "run",
            f"run:{run.id}",
            run_label(run),
            "interrupted" if run.id in gone else run.status,  # its process is gone
            run_tooltip(run),
            "run",
            info.name,
            run,
        )
        for run in reversed(project.runs(info.name))
    ]
    return [_group("runs", "Runs", "run", info.name, children)]


def subset_nodes(project: Project, info: DatasetInfo) -> list[Node]:
    children = [
        Node(
            "subset",
            f"subset:{subset.name}",
            subset.name,
            f"{subset.size:,} records",
            subset.description or subset.name,
            "subset",
            info.name,
            subset,
        )
        for subset in project.subsets(info.name)
    ]
    return [_group("subsets", "Subsets", "subset", info.name, children)]


VECTOR_KINDS = {
    "embedding": "sentence embeddings",
    "gradient": "gradient features",
    "score": "per-record scores",
    "cluster": "cluster labels",
    "projection": "a 2-D map",
}


def vector_set_tooltip(vs: Any) -> str:
    """A vector set's full name, kind, size and status (the tree may elide its name)."""
    what = VECTOR_KINDS.get(vs.kind, vs.kind)
    if vs.status == "complete":
        status = "complete"
    else:
        status = f"{vs.status}: {vs.committed_rows:,} of {vs.n_rows:,} rows written"
    lines = [
        vs.name,
        f"kind: {vs.kind} ({what})",
        f"rows: {vs.n_rows:,} · dimensions: {vs.dim:,} · {vs.dtype}",
        f"status: {status}",
    ]
    if vs.model:
        lines.append(f"model: {vs.model}")
    if vs.run_id is not None:
        lines.append(f"written by run #{vs.run_id}")
    return "\n".join(lines)


def run_label(run: RunInfo) -> str:
    """``#12 score: G-Vendi`` and the like."""
    what = run.kind
    if run.kind == "metric":
        metric = str(run.params.get("metric"))
        what = {"gvendi": "G-Vendi", "vendi": "embedding-Vendi"}.get(metric, f"metric {metric}")
    elif run.kind in ("embedding", "gradient"):
        what = f"{run.kind} ({run.plugin.partition(':')[2]})"
    return f"#{run.id} {what}"


def run_tooltip(run: RunInfo) -> str:
    when = run.started_at.strftime("%Y-%m-%d %H:%M")
    lines = [f"run #{run.id} ({run.kind}, {run.plugin}), {run.status}, started {when}"]
    if run.result and "value" in run.result:
        lines.append(f"value: {run.result['value']:.4g}")
    if run.error:
        lines.append(f"error: {run.error[:200]}")
    return "\n".join(lines)


for _provider in (vector_set_nodes, run_nodes, subset_nodes):
    register_node_provider(_provider)
