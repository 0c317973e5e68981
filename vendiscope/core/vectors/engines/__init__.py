"""Execution engines: where the chunks of a vector job are computed.

``local`` (the default) computes each chunk in this process, one after another. ``ray``
(:mod:`vendiscope.core.vectors.engines.ray_engine`, needs the ``ray`` extra) splits the pending
chunks over Ray actors on a cluster's workers and GPUs, each loading the model once.

Whatever the engine, this process — the *driver* — owns the project: it reads the records of
each pending chunk, prepares what a worker needs (texts, roles), and commits each result as
it arrives, in any order, through the store. A chunk is committed whole or not at all, so a
failed worker or a killed driver loses only chunks in flight; running the job again resumes
from the committed ones. Workers never touch the project, so a SQLite file on the driver's
disk works as well as a PostgreSQL catalog.

A job hands the engine a :class:`ChunkWorker`: a small picklable object that builds its own
plugin instance where it runs (:class:`PluginWorker` does this from the plugin's class and
parameters) and turns one chunk's payload into its output.
"""

from __future__ import annotations

import os
from typing import Any

from vendiscope.core.vectors.engines.base import (
    ENGINES,
    ENV_ENGINE,
    ENV_RAY_ADDRESS,
    ChunkWorker,
    Engine,
    EngineError,
    EngineSession,
    LocalEngine,
    PluginWorker,
    ProgressFor,
)

__all__ = [
    "ENGINES",
    "ENV_ENGINE",
    "ENV_RAY_ADDRESS",
    "ChunkWorker",
    "Engine",
    "EngineError",
    "EngineSession",
    "LocalEngine",
    "PluginWorker",
    "ProgressFor",
    "get_engine",
]


def get_engine(engine: str | Engine | None = None, **options: Any) -> Engine:
    """An engine by name (``local`` or ``ray``), or the one given.

    ``None`` means the environment's default: :data:`ENV_ENGINE` (``local`` when unset), with
    the Ray address from :data:`ENV_RAY_ADDRESS`. ``options`` go to the engine
    (for ``ray``: ``address``, ``workers``, ``gpus_per_worker``, ...; see
    :class:`~vendiscope.core.vectors.engines.ray_engine.RayEngine`).
    """
    options = {key: value for key, value in options.items() if value is not None}
    if isinstance(engine, Engine):
        return engine
    name = engine if engine is not None else os.environ.get(ENV_ENGINE, "").strip() or "local"
    if name == "local":
        if options:
            raise EngineError(
                f"{', '.join(sorted(options))}: only for the ray engine (this job runs locally)"
            )
        return LocalEngine()
    if name == "ray":
        from vendiscope.core.vectors.engines.ray_engine import RayEngine

        if options.get("address") is None and os.environ.get(ENV_RAY_ADDRESS):
            options["address"] = os.environ[ENV_RAY_ADDRESS]
        return RayEngine(**options)
    raise EngineError(f"unknown engine '{name}' (engines: {', '.join(ENGINES)})")
