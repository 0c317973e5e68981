"""The "Fill gaps…" workflow: generate examples for the sparse clusters and watch them land.

- :mod:`.dialog` — the settings: a generator and its parameters (with Test connection), the
  filter, the seeds, the budget, and a preview of one prompt;
- :mod:`.monitor` — the live view of a synthesis run: the G-Vendi curve against the
  unfiltered baseline, the rounds, Cancel, Resume and Open dataset;
- :mod:`.outputs` — the accepted and rejected outputs with the reason for each;
- :mod:`.launch` — opens the dialog and starts the job (the dashboard and the Jobs menu);
- :mod:`.data` — the Qt-free reads and texts behind them.
"""
