"""The ``ray`` engine: a vector job's chunks computed by Ray actors across workers and GPUs.

Each actor builds its own plugin instance from the job's :class:`~vendiscope.core.vectors.engines.
ChunkWorker` and loads the model once; the driver (this process) reads the records of each
pending chunk, ships the prepared payload to the least busy actor (two chunks queued per actor,
so none waits for the driver), and commits each result as it arrives.

Why plain actors and not ``ray.data``: the unit of work is already the vector set's chunk,
whose index is its commit key, and the driver must skip committed chunks and commit each one
by itself. Actors map onto that one to one: no repartitioning, results come back with their
chunk index, and the failure policy below is explicit. ``ray.data``'s ``map_batches`` with an
actor pool would do the same work with its own block sizes and retry rules, pull in pandas
and pyarrow on every worker, and add a streaming executor whose start-up (several seconds
with two CPUs) is larger than a small job (docs/scale.md).

Failures
--------
- An actor whose process dies (a crash, the OOM killer, a lost node) is restarted by Ray up to
  ``max_restarts`` times, loading its model again; every chunk it held is sent again, to
  whichever actor is least busy. A chunk that failed ``max_chunk_attempts`` times (a record
  that crashes the model every time) stops the job with an error naming it.
- An actor that is dead for good is dropped; the job goes on with the others, and fails
  only when none is left.
- An exception raised by the plugin (bad input, a bug) is not retried: it stops the job with
  the plugin's own error, as the local engine would.
- Whatever stops the job, the chunks committed so far stay; the same command resumes.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from vendiscope.core.base.jobs import CancelToken, NullProgress
from vendiscope.core.vectors.engines.base import (
    ChunkWorker,
    Engine,
    EngineError,
    EngineSession,
    ProgressFor,
)

IN_FLIGHT_PER_WORKER = 2
"""Chunks queued on each actor: one computing, one waiting, so none idles on the driver."""
WAIT_SECONDS = 0.25
"""How often the driver checks its cancel token while waiting for results."""
RESTART_GRACE_SECONDS = 120.0
"""How long a chunk waits for its restarting actor before a send counts as a failure."""
RESTART_PAUSE_SECONDS = 0.5


def ray_module() -> Any:
    """``import ray``, or an :class:`EngineError` saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise EngineError(
            "the ray engine needs Ray: pip install 'vendiscope[ray]' (or pip install ray)"
        ) from exc
    return ray


class ChunkActor:
    """One Ray actor: builds the job's worker (loading the model once) and computes chunks."""

    def __init__(self, worker: ChunkWorker) -> None:
        self.worker = worker
        self.ready = False

    def _setup(self) -> None:
        if not self.ready:
            self.worker.setup()
            self.ready = True

    def identity(self) -> dict[str, Any]:
        self._setup()
        return {**self.worker.identity(), "_pid": os.getpid()}

    def compute(self, index: int, payload: Any) -> tuple[int, Any, float]:
        self._setup()
        started = time.perf_counter()
        output = self.worker.compute(payload, progress=NullProgress(), cancel=CancelToken())
        return index, output, time.perf_counter() - started


class RayEngine(Engine):
    """Run vector jobs on a Ray cluster.

    Parameters
    ----------
    address
        The cluster to connect to (``ray://host:10001``, ``host:6379`` or ``"auto"``);
        ``None`` uses a cluster this process already joined, else a running local one, else
        starts a local one on this machine.
    workers
        Number of actors; ``None`` is one per GPU when the cluster has GPUs (at
        ``gpus_per_worker`` each), else one per ``cpus_per_worker`` CPUs. Never more than
        there are chunks, nor than the cluster's resources hold when the job starts.
    cpus_per_worker, gpus_per_worker
        Resources each actor reserves. ``gpus_per_worker=None`` is 1 on a cluster with GPUs,
        else 0; fractions (0.5) put two actors on one GPU.
    max_restarts
        How often Ray restarts an actor whose process died.
    max_chunk_attempts
        How often one chunk is sent before the job gives up on it.
    init_options
        Extra keyword arguments for ``ray.init`` when this engine starts or joins a cluster.
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        workers: int | None = None,
        cpus_per_worker: float = 1.0,
        gpus_per_worker: float | None = None,
        max_restarts: int = 3,
        max_chunk_attempts: int = 3,
        init_options: dict[str, Any] | None = None,
    ) -> None:
        if workers is not None and workers < 1:
            raise EngineError(f"workers must be at least 1, got {workers}")
        if cpus_per_worker <= 0 or (gpus_per_worker is not None and gpus_per_worker < 0):
            raise EngineError("cpus_per_worker must be > 0 and gpus_per_worker >= 0")
        self.address = address
        self.workers = workers
        self.cpus_per_worker = cpus_per_worker
        self.gpus_per_worker = gpus_per_worker
        self.max_restarts = max_restarts
        self.max_chunk_attempts = max(1, max_chunk_attempts)
        self.init_options = dict(init_options or {})

    def describe(self) -> dict[str, Any]:
        return {
            "engine": self.name,
            "address": self.address,
            "cpus_per_worker": self.cpus_per_worker,
            "gpus_per_worker": self.gpus_per_worker,
        }

    def connect(self) -> Any:
        """Join (or start) the cluster; returns the ``ray`` module."""
        ray = ray_module()
        if not ray.is_initialized():
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # never phone home
            options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            options.update(self.init_options)
            try:
                ray.init(address=self.address, **options)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = self.address or "a local cluster"
                raise EngineError(f"cannot start or join Ray at {where}: {exc}") from exc
        return ray

    def plan(self, ray: Any, max_workers: int | None) -> tuple[int, float]:
        """How many actors, and how many GPUs each reserves."""
        resources = ray.cluster_resources()
        gpus = float(resources.get("GPU", 0.0))
        per_gpu = self.gpus_per_worker if self.gpus_per_worker is not None else (1.0 if gpus else 0)
        if per_gpu > gpus:
            raise EngineError(
                f"each Ray worker would reserve {per_gpu:g} GPU but the cluster has {gpus:g}; "
                "start GPU nodes first, or set gpus_per_worker=0"
            )
        cpus = float(resources.get("CPU", 1.0))
        # What the cluster can hold now: asking for more would wait forever for resources.
        fits = int(gpus // per_gpu) if per_gpu > 0 else int(cpus // self.cpus_per_worker)
        fits = min(fits, int(cpus // self.cpus_per_worker)) if cpus else fits
        if fits < 1:
            raise EngineError(
                f"the Ray cluster has {cpus:g} CPUs and {gpus:g} GPUs: not enough for one worker "
                f"of {self.cpus_per_worker:g} CPU and {per_gpu:g} GPU"
            )
        count = fits if self.workers is None else min(self.workers, fits)
        if max_workers is not None:
            count = max(1, min(count, max_workers))
        return count, per_gpu

    def start(self, worker: ChunkWorker, *, max_workers: int | None = None) -> EngineSession:
        ray = self.connect()
        _ship_file_plugins(worker)
        count, per_gpu = self.plan(ray, max_workers)
        actor_class = ray.remote(ChunkActor).options(
            num_cpus=self.cpus_per_worker,
            num_gpus=per_gpu,
            max_restarts=self.max_restarts,
            max_task_retries=0,  # the driver re-sends a lost chunk itself, to any actor
        )
        actors = [actor_class.remote(worker) for _ in range(count)]
        return _RaySession(ray, actors, self.max_chunk_attempts)


def _ship_file_plugins(worker: ChunkWorker) -> None:
    """Plugins from the user's plugin folder exist only on the driver: pickle them by value."""
    cls = getattr(worker, "cls", None)
    module = getattr(cls, "__module__", "") or ""
    if module.startswith("vendiscope_user_plugins"):
        import sys

        from ray import cloudpickle

        cloudpickle.register_pickle_by_value(sys.modules[module])


@dataclass
class _Slot:
    actor: Any
    busy: int = 0
    failures: int = 0
    alive: bool = True


@dataclass
class _Pending:
    index: int
    payload: Any  # an object ref (put once, sent again on a retry without re-serialising)
    attempts: int = 0
    errors: list[str] = field(default_factory=list)
    waiting_since: float | None = None  # its actor was restarting when it was last sent


class _RaySession(EngineSession):
    def __init__(self, ray: Any, actors: list[Any], max_chunk_attempts: int) -> None:
        self._ray = ray
        self._slots = [_Slot(actor) for actor in actors]
        self._max_attempts = max_chunk_attempts
        self._identity: dict[str, Any] | None = None
        self.workers = len(actors)
        self.worker_pids: list[int] = []
        self.chunk_seconds: list[float] = []

    # ------------------------------------------------------------------ start-up
    def identity(self) -> dict[str, Any]:
        """Every actor loads its model now (in parallel); they must agree on the identity."""
        if self._identity is not None:
            return self._identity
        ray = self._ray
        refs = {slot.actor.identity.remote(): slot for slot in self._slots}
        found: list[dict[str, Any]] = []
        errors: list[str] = []
        for ref, slot in refs.items():
            try:
                found.append(ray.get(ref))
            except ray.exceptions.RayActorError as exc:
                slot.alive = False
                errors.append(_short(exc))
            except ray.exceptions.RayTaskError as exc:
                raise _cause(exc) from None
        if not found:
            raise EngineError(f"no Ray worker could start: {errors[0] if errors else '?'}")
        self.worker_pids = [f["_pid"] for f in found]
        identities = [{k: v for k, v in f.items() if k != "_pid"} for f in found]
        first = identities[0]
        for other in identities[1:]:
            if other.get("model_id") != first.get("model_id"):
                raise EngineError(
                    "Ray workers compute different vectors: "
                    f"'{first.get('model_id')}' and '{other.get('model_id')}' (workers with and "
                    "without a GPU?); set the plugin's device and precision explicitly"
                )
        self._identity = first
        return first

    # ------------------------------------------------------------------ the work
    def map(
        self,
        items: Iterable[tuple[int, Any]],
        *,
        cancel: CancelToken,
        progress_for: ProgressFor | None = None,
    ) -> Iterator[tuple[int, Any]]:
        ray = self._ray
        source = iter(items)
        exhausted = False
        retry: deque[_Pending] = deque()
        in_flight: dict[Any, tuple[_Pending, _Slot]] = {}

        def next_item() -> _Pending | None:
            nonlocal exhausted
            if retry:
                return retry.popleft()
            if exhausted:
                return None
            try:
                index, payload = next(source)
            except StopIteration:
                exhausted = True
                return None
            return _Pending(index, ray.put(payload))

        try:
            while True:
                cancel.raise_if_cancelled()
                while True:
                    slot = self._free_slot()
                    if slot is None:
                        break
                    item = next_item()
                    if item is None:
                        break
                    ref = slot.actor.compute.remote(item.index, item.payload)
                    slot.busy += 1
                    in_flight[ref] = (item, slot)
                if not in_flight:
                    if exhausted and not retry:
                        return
                    if not any(s.alive for s in self._slots):
                        raise EngineError(self._all_dead_message(retry))
                    continue
                done, _ = ray.wait(list(in_flight), num_returns=1, timeout=WAIT_SECONDS)
                for ref in done:
                    item, slot = in_flight.pop(ref)
                    slot.busy -= 1
                    try:
                        index, output, seconds = ray.get(ref)
                    except ray.exceptions.RayActorError as exc:
                        self._lost(item, slot, exc, retry)
                        continue
                    except ray.exceptions.RayTaskError as exc:
                        raise _cause(exc) from None
                    slot.failures = 0
                    self.chunk_seconds.append(seconds)
                    yield index, output
        finally:
            for ref in in_flight:
                ray.cancel(ref, force=False)

    def _free_slot(self) -> _Slot | None:
        alive = [s for s in self._slots if s.alive and s.busy < IN_FLIGHT_PER_WORKER]
        return min(alive, key=lambda s: s.busy) if alive else None

    def _lost(self, item: _Pending, slot: _Slot, exc: Exception, retry: deque[_Pending]) -> None:
        """A chunk whose actor died: send it again, unless it keeps failing.

        An actor that is only restarting (a killed worker coming back) does not count as a
        failure of the chunk for its first :data:`RESTART_GRACE_SECONDS` of waiting: on a
        busy machine a restart can outlast several sends.
        """
        ray = self._ray
        unavailable = getattr(ray.exceptions, "ActorUnavailableError", ())
        if isinstance(exc, unavailable):
            now = time.monotonic()
            item.waiting_since = item.waiting_since or now
            if now - item.waiting_since < RESTART_GRACE_SECONDS:
                time.sleep(RESTART_PAUSE_SECONDS)
                retry.append(item)
                return
        slot.failures += 1
        if isinstance(exc, ray.exceptions.ActorDiedError):
            slot.alive = False  # restarts used up (or killed for good): the others go on
        item.attempts += 1
        item.errors.append(_short(exc))
        if item.attempts >= self._max_attempts:
            raise EngineError(
                f"chunk {item.index} was lost {item.attempts} times with its Ray worker "
                f"(does a record in it crash the model?); last error: {item.errors[-1]}"
            )
        retry.append(item)

    def _all_dead_message(self, retry: deque[_Pending]) -> str:
        last = next((p.errors[-1] for p in reversed(retry) if p.errors), "no error recorded")
        return f"every Ray worker died; last error: {last}"

    def close(self) -> None:
        for slot in self._slots:
            with suppress(Exception):  # already gone
                self._ray.kill(slot.actor, no_restart=True)
        self._slots = []


def _cause(exc: Exception) -> BaseException:
    """The plugin's own exception behind a Ray task error (same type and message)."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc


def _short(exc: Exception, limit: int = 400) -> str:
    text = " ".join(line.strip() for line in str(exc).strip().splitlines() if line.strip())
    return f"{type(exc).__name__}: {text[:limit]}"
