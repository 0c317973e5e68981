"""Loading Hugging Face models quietly: what every model-loading job shares."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def quiet_loading() -> Iterator[None]:
    """Hide transformers' "Loading weights" progress bar while a model loads.

    The bar would litter a job's log (and the GUI's job output) for a fraction of a second.
    """
    from transformers.utils import logging

    enabled = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()
    try:
        yield
    finally:
        if enabled:
            logging.enable_progress_bar()
