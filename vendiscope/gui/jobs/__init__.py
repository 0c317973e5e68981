"""Running work: the job queue, child processes, progress, the GUI's tasks and pipeline.

Also what the job workflows share: ``launch`` (start a job from its dialog, show its
monitor), ``run_monitor`` (a tab following a job's runs), ``run_texts`` and
``plugin_choices``. ``tasks``, ``estimates``, ``run_texts`` and ``plugin_choices`` are
Qt-free.
"""
