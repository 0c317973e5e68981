"""What the signal and clean-up jobs are asked to do, declared once (CLI, Python API).

A light module (nothing heavy imported), so that a command's options can show the default.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from vendiscope.core.plugin_host.options import OperationOptions
from vendiscope.core.plugin_host.params import Label, Range, Unit


@dataclass(frozen=True)
class SignalOptions(OperationOptions):
    """The settings of one signal job (the signal's own parameters are the plugin's)."""

    OPERATION = "signals"

    chunk_rows: Annotated[
        int | None,
        Range(1),
        Unit("records"),
        Label("Records per chunk"),
        "Records per committed chunk (a resume point); none: up to 10,000.",
    ] = None
    replace: Annotated[
        bool,
        Label("Replace"),
        "Compute values made with other settings (parameters, a newer signal) anew.",
    ] = False
