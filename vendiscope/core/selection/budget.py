"""The budget ``k`` of a selection: the one rule it is checked by, on every route.

The CLI (``-k``), the Python API (``k=``) and the app's selection task all reach
:func:`vendiscope.core.selection.job.select_dataset`, which checks ``k`` here once it knows
the candidates, before any work; every selection algorithm calls the same function for a
direct caller. So a bad ``k`` reads the same wherever it comes from, and what passes is a
plain ``int`` from then on.

A light module (nothing heavy imported): the pure algorithms import it too.
"""

from __future__ import annotations

import operator

from vendiscope.core.base.errors import ProjectError


class BudgetError(ProjectError, ValueError):
    """``k`` is not a whole number between 1 and the number of candidate rows.

    A :class:`~vendiscope.core.base.errors.ProjectError` (what the job, the CLI and the app
    report) and a ``ValueError`` (what a selection algorithm raises for bad input): one type
    for every caller.
    """


def check_budget(k: object, n: int, *, left_out: int = 0) -> int:
    """``k`` as a plain ``int`` with ``1 <= k <= n``, or :class:`BudgetError`.

    Parameters
    ----------
    k
        The budget: how many rows to choose. An ``int`` or a NumPy integer (converted here,
        once); ``bool``, floats and strings are refused.
    n
        The number of candidate rows.
    left_out
        Rows that are not candidates (excluded subsets, near-duplicates), said in the message.
    """
    try:
        # mypy, on the next line: checked: TypeError caught below
        value = None if isinstance(k, bool) else operator.index(k)  # type: ignore[arg-type]
    except TypeError:
        value = None
    if value is None or not 1 <= value <= n:
        where = f" ({n + left_out} records less {left_out} left out)" if left_out else ""
        got = repr(k) if value is None else str(value)
        raise BudgetError(
            f"k (the budget) must be a whole number between 1 and {n}, the number of "
            f"candidate rows{where}; got {got}"
        )
    return value
