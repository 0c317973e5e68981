"""Run a producer iterator on a background thread, a few items ahead of its consumer.

Parsing a source (Python) and writing it to the database (SQLite, which releases the GIL
while it works) then overlap on two cores.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

_DONE = object()


class _Raised:
    def __init__(self, error: BaseException) -> None:
        self.error = error


def prefetch(items: Iterable[T], depth: int = 4) -> Iterator[T]:
    """Yield ``items`` in order, produced on a worker thread; errors re-raise in the consumer.

    Closing the returned generator early (or an exception in the consumer) stops the worker
    after the item it is producing.
    """
    pending: queue.Queue[object] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def offer(item: object) -> bool:
        while not stop.is_set():
            try:
                pending.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        try:
            for item in items:
                if not offer(item):
                    return
            offer(_DONE)
        except BaseException as error:  # handed to the consumer, which re-raises it
            offer(_Raised(error))

    worker = threading.Thread(target=work, name="vendiscope-prefetch", daemon=True)
    worker.start()
    try:
        while True:
            item = pending.get()
            if item is _DONE:
                return
            if isinstance(item, _Raised):
                raise item.error
            yield item  # type: ignore[misc]  # item is a T once _Raised is ruled out
    finally:
        stop.set()
        worker.join()
