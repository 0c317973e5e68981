"""Running work: the job queue, child processes, progress, the GUI's tasks and pipeline.

``tasks`` and ``estimates`` are Qt-free.
"""
