"""What importing and exporting are asked to do, declared once.

A light module (nothing heavy imported), so that a command's options can show the default.
The importer's and exporter's own parameters are the plugins', declared in their signatures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from vendiscope.core.plugin_host.options import OperationOptions
from vendiscope.core.plugin_host.params import Label


@dataclass(frozen=True)
class ImportOptions(OperationOptions):
    """The settings of one import."""

    OPERATION = "import"

    format: Annotated[
        str | None,
        Label("Format"),
        "Importer plugin (see `vendiscope plugins`); none: the one that recognises the file.",
    ] = None
    skip_bad: Annotated[
        bool,
        Label("Skip bad rows"),
        "Import the good rows and list the bad ones (file, line, reason) instead of refusing "
        "the whole file.",
    ] = False


@dataclass(frozen=True)
class ExportOptions(OperationOptions):
    """The settings of one export."""

    OPERATION = "export"

    format: Annotated[
        str | None,
        Label("Format"),
        "Exporter plugin (jsonl, csv, parquet, hf-disk or a plugin's); none: from the "
        "destination's suffix.",
    ] = None
    force: Annotated[bool, Label("Overwrite"), "Overwrite an existing file."] = False
