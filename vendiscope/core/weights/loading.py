"""Loading Hugging Face models quietly: what every model-loading job shares."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def quiet_loading(*, gguf: bool = False) -> Iterator[None]:
    """Hide transformers' progress bars while a model loads (or is saved).

    Its "Loading weights" and "Writing model shards" bars, and with ``gguf`` the GGUF reader's
    "Converting and de-quantizing GGUF tensors" bar, would litter a job's log with
    carriage-return redraws (and the GUI's job output) for a few seconds.
    """
    from transformers.utils import logging

    if gguf:
        _gguf_bar_obeys_the_switch()
    enabled = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()
    try:
        yield
    finally:
        if enabled:
            logging.enable_progress_bar()


def _gguf_bar_obeys_the_switch() -> None:
    """transformers' GGUF reader draws its bar with ``tqdm.auto`` itself, past the switch
    :func:`transformers.utils.logging.disable_progress_bar` turns off: point it at
    transformers' own ``tqdm``, which obeys the switch (and draws the same bar when on)."""
    from transformers import modeling_gguf_pytorch_utils as reader
    from transformers.utils import logging

    if getattr(reader, "tqdm", None) is not None:
        reader.tqdm = logging.tqdm
