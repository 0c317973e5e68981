"""The "Study…" workflow: train a small model on many subsets of a pool and read which
diversity score predicts how much a subset helps on a held-out target.

- :mod:`.dialog` — the settings: the target, the plan of subsets, the seeds, the trainer and
  its parameters, and Estimate cost;
- :mod:`.monitor` — the live view of a study: its progress, the verdict, the scatter of a
  score against the outcome, the subsets and the evidence, Cancel, Resume and Run anyway;
- :mod:`.launch` — opens the dialog and starts the job (the Jobs menu);
- :mod:`.data` — the Qt-free reads and texts behind them.
"""
