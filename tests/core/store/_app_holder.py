"""An app-like process for the store-lock tests: it holds a project open for its whole life.

Commands arrive one per line on stdin; each answer is one line on stdout.
``open-close``  a worker thread opens and closes the project (as a GUI job does)
``wal``         how this process's descriptors of the project's files look
``import NAME PATH``  import a file through the long-lived connection
``count``       the datasets this process sees
``quit``        close the project and exit
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store.project import Project


def descriptors(location: Path) -> list[str]:
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(location)):
            found.append(target)
    return sorted(found)


def main(location: Path) -> None:
    project = Project.open(location)
    project.datasets()  # a read, as the project panel does on start
    print("ready", flush=True)
    for line in sys.stdin:
        command, *args = line.split()
        if command == "open-close":
            worker = threading.Thread(target=lambda: Project.open(location).close())
            worker.start()
            worker.join()
            answer = "done"
        elif command == "wal":
            deleted = [name for name in descriptors(location) if name.endswith("(deleted)")]
            answer = "deleted:" + ",".join(deleted) if deleted else "intact"
        elif command == "import":
            result = import_dataset(project, args[1], name=args[0])
            answer = str(result.rows)
        elif command == "count":
            answer = str(len(project.datasets()))
        elif command == "quit":
            project.close()
            print("bye", flush=True)
            return
        else:
            answer = f"unknown command {command}"
        print(answer, flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
