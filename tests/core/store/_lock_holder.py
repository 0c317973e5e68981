"""A process that holds a project's write lock: ``python _lock_holder.py PATH SECONDS``.

Prints ``holding`` once it has the lock and ``released`` after committing.
"""

import sqlite3
import sys
import time

if __name__ == "__main__":
    connection = sqlite3.connect(sys.argv[1], isolation_level=None)
    connection.execute("BEGIN IMMEDIATE")
    connection.execute("CREATE TABLE IF NOT EXISTS holder_note (x)")
    print("holding", flush=True)
    time.sleep(float(sys.argv[2]))
    connection.execute("COMMIT")
    print("released", flush=True)
