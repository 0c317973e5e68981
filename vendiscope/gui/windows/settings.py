"""Remembered settings (recent projects, window layout) in QSettings, with a version.

Like Orange3's widget settings, the stored settings carry a version number; older versions
are migrated when read, and a layout saved by a newer Vendiscope is ignored rather than
misapplied.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

SETTINGS_VERSION = 1
"""Bump when the meaning of a key changes, and add a step to :meth:`AppSettings._migrate`."""

MAX_RECENT = 10
ORGANIZATION = "Vendiscope"
APPLICATION = "Vendiscope"


class AppSettings:
    """Typed access to the application's QSettings.

    Parameters
    ----------
    settings
        The store to use; by default the user's ``Vendiscope/Vendiscope`` settings. Tests pass
        an INI-file ``QSettings`` in a temporary folder.
    """

    def __init__(self, settings: QSettings | None = None) -> None:
        self.qsettings = settings or QSettings(ORGANIZATION, APPLICATION)
        self._migrate()

    # ------------------------------------------------------------------ versioning
    @property
    def stored_version(self) -> int:
        return _as_int(self.qsettings.value("settings_version", 0))

    def _migrate(self) -> None:
        """Bring settings of an older version up to :data:`SETTINGS_VERSION`.

        Each future version adds a step ``if version < N: ...`` that rewrites the keys whose
        meaning changed. Settings written by a newer Vendiscope are read where they still
        make sense (recent projects) and never written back over.
        """
        version = self.stored_version
        if version > SETTINGS_VERSION:
            return
        if version < 1:
            pass  # the first version: nothing to convert
        self.qsettings.setValue("settings_version", SETTINGS_VERSION)

    @property
    def newer_than_us(self) -> bool:
        return self.stored_version > SETTINGS_VERSION

    # ------------------------------------------------------------------ recent projects
    def recent_projects(self, *, existing_only: bool = True) -> list[str]:
        """Most recent first; files that no longer exist are left out."""
        found = _as_list(self.qsettings.value("recent_projects", []))
        if existing_only:
            found = [p for p in found if "://" in p or Path(p).exists()]
        return found[:MAX_RECENT]

    def add_recent_project(self, location: str) -> None:
        location = location if "://" in location else str(Path(location).resolve())
        recent = [p for p in self.recent_projects(existing_only=False) if p != location]
        self.qsettings.setValue("recent_projects", [location, *recent][:MAX_RECENT])

    def clear_recent_projects(self) -> None:
        self.qsettings.setValue("recent_projects", [])

    # ------------------------------------------------------------------ window layout
    def window_geometry(self) -> QByteArray | None:
        if self.newer_than_us:
            return None
        value = self.qsettings.value("window/geometry")
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def window_state(self) -> QByteArray | None:
        if self.newer_than_us:
            return None
        value = self.qsettings.value("window/state")
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def save_window(self, geometry: QByteArray, state: QByteArray) -> None:
        if self.newer_than_us:
            return
        self.qsettings.setValue("window/geometry", geometry)
        self.qsettings.setValue("window/state", state)

    def value(self, key: str, default: object = None) -> object:
        return self.qsettings.value(key, default)

    def set_value(self, key: str, value: object) -> None:
        self.qsettings.setValue(key, value)

    def sync(self) -> None:
        self.qsettings.sync()


def _as_list(value: object) -> list[str]:
    """QSettings returns a str for one-element lists and None for empty ones (INI backend)."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]  # type: ignore[union-attr]  # QSettings.value() is typed object


def _as_int(value: object) -> int:
    try:
        return int(value)  # type: ignore[arg-type]  # QSettings.value() is typed object
    except (TypeError, ValueError):
        return 0
