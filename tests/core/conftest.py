"""Fixtures shared by the core tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from vendiscope.core.plugin_host.userdir import PACKAGE


@pytest.fixture
def plugin_folder(tmp_path: Path) -> Path:
    """An empty plugin folder; the plugin modules imported from it are forgotten afterwards."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    yield folder
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]
