"""The engine interfaces and the local engine (see :mod:`vendiscope.core.vectors.engines`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress

ENGINES = ("local", "ray")
ENV_ENGINE = "VENDISCOPE_ENGINE"
"""Environment variable naming the default engine (``local`` when unset); the GUI's jobs use it."""
ENV_RAY_ADDRESS = "VENDISCOPE_RAY_ADDRESS"
"""Environment variable with the Ray cluster address the ``ray`` engine connects to."""

ProgressFor = Callable[[int], Progress]


class EngineError(VendiscopeError):
    """An engine could not start, or its workers failed more often than it retries."""


class ChunkWorker(ABC):
    """The model side of a vector job, built where chunks are computed.

    It is pickled to every Ray actor, so it must hold only plain data (a plugin class and its
    parameters, not a loaded model); :meth:`setup` loads the model, once per worker process.
    """

    def setup(self) -> None:  # noqa: B027 - optional hook
        """Load what :meth:`compute` needs (the model). Called once per worker process."""

    def identity(self) -> dict[str, Any]:
        """What identifies the vectors this worker makes (``model_id``, ``dim``, ...).

        The driver builds the vector set's configuration from it, so a GPU worker running in
        half precision records that, not what the driver's CPU would have used.
        """
        return {}

    @abstractmethod
    def compute(self, payload: Any, *, progress: Progress, cancel: CancelToken) -> Any:
        """Compute one chunk's output from its payload (picklable in and out)."""


class PluginWorker(ChunkWorker):
    """A worker around one plugin instance, rebuilt from its class and parameters when shipped.

    ``instance`` (already created by the driver through the registry, which checked the
    parameters) is used in this process; a pickled copy carries only ``cls`` and ``params``
    and creates its own instance in :meth:`setup`.
    """

    def __init__(self, cls: type, params: dict[str, Any], instance: Any = None) -> None:
        self.cls = cls
        self.params = dict(params)
        self._instance = instance

    def setup(self) -> None:
        if self._instance is None:
            self._instance = self.cls(**self.params)

    @property
    def instance(self) -> Any:
        self.setup()
        return self._instance

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_instance"] = None  # never ship a loaded model; the worker loads its own
        return state


class EngineSession(ABC):
    """Workers started for one job: ask their :meth:`identity`, then :meth:`map` chunks."""

    workers: int = 1

    def __enter__(self) -> EngineSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abstractmethod
    def identity(self) -> dict[str, Any]:
        """The workers' :meth:`ChunkWorker.identity` (the same on every worker)."""

    @abstractmethod
    def map(
        self,
        items: Iterable[tuple[int, Any]],
        *,
        cancel: CancelToken,
        progress_for: ProgressFor | None = None,
    ) -> Iterator[tuple[int, Any]]:
        """Compute ``(chunk index, payload)`` items; yield ``(chunk index, output)`` in any order.

        ``items`` is consumed lazily (a few chunks ahead of the workers), so the driver holds
        only the chunks in flight. ``progress_for(index)`` gives progress inside a chunk, when
        the engine can report it.
        """

    def close(self) -> None:  # noqa: B027 - optional hook
        """Stop the workers."""


class Engine(ABC):
    """Starts workers for a job."""

    name: str = ""

    @abstractmethod
    def start(self, worker: ChunkWorker, *, max_workers: int | None = None) -> EngineSession:
        """Start up to ``max_workers`` workers (one per chunk at most) running ``worker``."""

    def describe(self) -> dict[str, Any]:
        """Plain facts about the engine, recorded with the run."""
        return {"engine": self.name}


class LocalEngine(Engine):
    """In this process, chunk after chunk (progress inside each chunk, immediate cancel)."""

    name = "local"

    def start(self, worker: ChunkWorker, *, max_workers: int | None = None) -> EngineSession:
        return _LocalSession(worker)


class _LocalSession(EngineSession):
    def __init__(self, worker: ChunkWorker) -> None:
        self._worker = worker

    def identity(self) -> dict[str, Any]:
        return self._worker.identity()

    def map(
        self,
        items: Iterable[tuple[int, Any]],
        *,
        cancel: CancelToken,
        progress_for: ProgressFor | None = None,
    ) -> Iterator[tuple[int, Any]]:
        self._worker.setup()
        for index, payload in items:
            cancel.raise_if_cancelled()
            progress = progress_for(index) if progress_for is not None else NullProgress()
            yield index, self._worker.compute(payload, progress=progress, cancel=cancel)
