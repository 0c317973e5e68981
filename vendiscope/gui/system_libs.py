"""The system libraries Qt's X11 (xcb) platform plugin needs, and the packages that provide them.

The PySide6 wheel bundles Qt itself, but its xcb platform plugin (``libqxcb.so``) links
against system X11 libraries that a fresh Debian/Ubuntu often lacks (``libxcb-icccm4``,
``libxcb-keysyms1``, ...). When one is missing Qt aborts with a misleading message
(``xcb-cursor0 or libxcb-cursor0 is needed``, even when that one is installed). This module
runs ``ldd`` on the plugin -- found with :func:`importlib.util.find_spec`, so Qt is never
loaded -- collects the ``not found`` libraries and names the packages to install:

    python -m vendiscope.gui.system_libs            # report, exit 1 if something is missing
    python -m vendiscope.gui.system_libs --install  # as root on Debian/Ubuntu: apt-get install

It checks only where Qt will use xcb: on Linux with ``QT_QPA_PLATFORM`` unset (outside a
Wayland session) or ``xcb``. It prints nothing when everything is present (``ldd`` takes a
few tens of milliseconds, so nothing is cached).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "PACKAGES",
    "Report",
    "check",
    "distro_family",
    "install_command",
    "launch_problem",
    "main",
    "missing_sonames",
    "packages_for",
    "parse_ldd",
    "qt_libraries",
    "qt_platform",
]


@dataclass(frozen=True)
class Package:
    """The package that provides one library on each distribution family."""

    debian: str
    fedora: str
    arch: str

    def name(self, family: str) -> str:
        return {"debian": self.debian, "fedora": self.fedora, "arch": self.arch}[family]


def _xcb(debian: str) -> Package:
    """An X protocol extension library: one package each on Debian, all in libxcb elsewhere."""
    return Package(debian, "libxcb", "libxcb")


PACKAGES: dict[str, Package] = {
    # The xcb-util family (the ones a fresh Debian/Ubuntu most often lacks).
    "libxcb-cursor.so.0": Package("libxcb-cursor0", "xcb-util-cursor", "xcb-util-cursor"),
    "libxcb-icccm.so.4": Package("libxcb-icccm4", "xcb-util-wm", "xcb-util-wm"),
    "libxcb-keysyms.so.1": Package("libxcb-keysyms1", "xcb-util-keysyms", "xcb-util-keysyms"),
    "libxcb-image.so.0": Package("libxcb-image0", "xcb-util-image", "xcb-util-image"),
    "libxcb-render-util.so.0": Package(
        "libxcb-render-util0", "xcb-util-renderutil", "xcb-util-renderutil"
    ),
    "libxcb-util.so.1": Package("libxcb-util1", "xcb-util", "xcb-util"),
    # libxcb itself and its extensions.
    "libxcb.so.1": _xcb("libxcb1"),
    "libxcb-glx.so.0": _xcb("libxcb-glx0"),
    "libxcb-randr.so.0": _xcb("libxcb-randr0"),
    "libxcb-render.so.0": _xcb("libxcb-render0"),
    "libxcb-shape.so.0": _xcb("libxcb-shape0"),
    "libxcb-shm.so.0": _xcb("libxcb-shm0"),
    "libxcb-sync.so.1": _xcb("libxcb-sync1"),
    "libxcb-xfixes.so.0": _xcb("libxcb-xfixes0"),
    "libxcb-xinerama.so.0": _xcb("libxcb-xinerama0"),
    "libxcb-xinput.so.0": _xcb("libxcb-xinput0"),
    "libxcb-xkb.so.1": _xcb("libxcb-xkb1"),
    # Keyboard maps.
    "libxkbcommon.so.0": Package("libxkbcommon0", "libxkbcommon", "libxkbcommon"),
    "libxkbcommon-x11.so.0": Package("libxkbcommon-x11-0", "libxkbcommon-x11", "libxkbcommon-x11"),
    # Xlib.
    "libX11.so.6": Package("libx11-6", "libX11", "libx11"),
    "libX11-xcb.so.1": Package("libx11-xcb1", "libX11-xcb", "libx11"),
    "libXau.so.6": Package("libxau6", "libXau", "libxau"),
    "libXdmcp.so.6": Package("libxdmcp6", "libXdmcp", "libxdmcp"),
    # OpenGL (glvnd).
    "libGL.so.1": Package("libgl1", "libglvnd-glx", "libglvnd"),
    "libGLX.so.0": Package("libglx0", "libglvnd-glx", "libglvnd"),
    "libEGL.so.1": Package("libegl1", "libglvnd-egl", "libglvnd"),
    "libOpenGL.so.0": Package("libopengl0", "libglvnd-opengl", "libglvnd"),
    "libGLdispatch.so.0": Package("libglvnd0", "libglvnd", "libglvnd"),
    # Fonts, D-Bus, GLib and the libraries under them.
    "libfontconfig.so.1": Package("libfontconfig1", "fontconfig", "fontconfig"),
    "libfreetype.so.6": Package("libfreetype6", "freetype", "freetype2"),
    "libdbus-1.so.3": Package("libdbus-1-3", "dbus-libs", "dbus"),
    "libglib-2.0.so.0": Package("libglib2.0-0", "glib2", "glib2"),
    "libgthread-2.0.so.0": Package("libglib2.0-0", "glib2", "glib2"),
    "libpng16.so.16": Package("libpng16-16", "libpng", "libpng"),
    "libexpat.so.1": Package("libexpat1", "expat", "expat"),
    "libz.so.1": Package("zlib1g", "zlib", "zlib"),
    "libzstd.so.1": Package("libzstd1", "libzstd", "zstd"),
}
"""Library (soname) -> the package providing it on Debian/Ubuntu, Fedora and Arch."""

FAMILIES = {"debian": "Debian/Ubuntu", "fedora": "Fedora", "arch": "Arch"}

_INSTALL = {
    "debian": "apt-get install -y",
    "fedora": "dnf install -y",
    "arch": "pacman -S --needed",
}

_SEARCH = {
    "debian": "`apt-file search {}`",
    "fedora": "`dnf provides '*/{}'`",
    "arch": "`pacman -F {}`",
}

_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found\s*$")

QT_LIBRARIES = ("libQt6XcbQpa.so.6", "libQt6Gui.so.6", "libQt6Widgets.so.6", "libQt6Svg.so.6")
"""The Qt libraries next to the plugin that the app loads (checked with it)."""


def qt_platform(environ: Mapping[str, str] | None = None, system: str | None = None) -> str | None:
    """The platform plugin Qt will try first here, or None off Linux (no xcb there).

    ``QT_QPA_PLATFORM`` may be a ``;``-separated list of fallbacks, each ``name:options``;
    the first one is what Qt tries. Unset, Qt picks Wayland in a Wayland session, xcb
    otherwise.
    """
    environ = os.environ if environ is None else environ
    system = sys.platform if system is None else system
    if not system.startswith("linux"):
        return None
    requested = environ.get("QT_QPA_PLATFORM", "").strip()
    if requested:
        return requested.split(";")[0].split(":")[0].strip() or "xcb"
    if environ.get("XDG_SESSION_TYPE") == "wayland" and environ.get("WAYLAND_DISPLAY"):
        return "wayland"
    return "xcb"


def pyside_dir() -> Path | None:
    """The installed PySide6 package folder, found without importing it (or Qt)."""
    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def qt_libraries(pyside: Path | None = None) -> list[Path]:
    """The xcb platform plugin of the PySide6 wheel and the Qt libraries it needs.

    Empty where there is no such plugin (not a wheel layout, or PySide6 not installed).
    """
    pyside = pyside_dir() if pyside is None else pyside
    if pyside is None:
        return []
    plugin = pyside / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    if not plugin.is_file():
        return []
    lib = pyside / "Qt" / "lib"
    return [plugin, *(lib / name for name in QT_LIBRARIES if (lib / name).is_file())]


def parse_ldd(output: str) -> list[str]:
    """The ``not found`` libraries in ``ldd`` output, each once, in the order they appear."""
    missing: list[str] = []
    for line in output.splitlines():
        match = _NOT_FOUND.match(line)
        if match and match.group(1) not in missing:
            missing.append(match.group(1))
    return missing


def missing_sonames(paths: Sequence[Path | str]) -> list[str]:
    """The libraries that ``paths`` (or what they load) need and the system cannot find.

    Empty when ``ldd`` is not there or fails: the check then stays out of the way.
    """
    ldd = shutil.which("ldd")
    if ldd is None or not paths:
        return []
    try:
        result = subprocess.run(
            [ldd, *(str(path) for path in paths)],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return parse_ldd(result.stdout)


def packages_for(sonames: Iterable[str], family: str) -> tuple[list[str], list[str]]:
    """(packages to install, libraries no package is known for), each once, in order."""
    packages: list[str] = []
    unknown: list[str] = []
    for soname in sonames:
        package = PACKAGES.get(soname)
        if package is None:
            unknown.append(soname)
        elif package.name(family) not in packages:
            packages.append(package.name(family))
    return packages, unknown


def install_command(family: str, packages: Sequence[str], *, sudo: bool = True) -> str:
    """The one command installing ``packages``: ``sudo apt-get install -y libxcb-icccm4``."""
    return ("sudo " if sudo else "") + " ".join([_INSTALL[family], *packages])


def distro_family(os_release: Path = Path("/etc/os-release")) -> str | None:
    """``debian``, ``fedora`` or ``arch`` (from ``ID`` and ``ID_LIKE``), or None."""
    try:
        text = os_release.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            fields[key.strip()] = value.strip().strip("\"'").lower()
    words = {fields.get("ID", ""), *fields.get("ID_LIKE", "").split()}
    if words & {"debian", "ubuntu"}:
        return "debian"
    if words & {"fedora", "rhel", "centos"}:
        return "fedora"
    if "arch" in words:
        return "arch"
    for family, tool in (("debian", "apt-get"), ("fedora", "dnf"), ("arch", "pacman")):
        if shutil.which(tool):
            return family
    return None


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


@dataclass
class Report:
    """What is missing for Qt's xcb plugin here, and how to install it."""

    missing: list[str]
    family: str | None = field(default_factory=distro_family)
    root: bool = field(default_factory=is_root)
    has_sudo: bool = field(default_factory=lambda: shutil.which("sudo") is not None)

    def packages(self, family: str) -> list[str]:
        return packages_for(self.missing, family)[0]

    @property
    def unknown(self) -> list[str]:
        return packages_for(self.missing, "debian")[1]

    def command(self, family: str) -> str | None:
        """The install command for ``family`` (with ``sudo`` unless root), or None."""
        packages = self.packages(family)
        if not packages:
            return None
        return install_command(family, packages, sudo=not self.root and self.has_sudo)

    def message(self, then: str = "start Vendiscope again") -> str:
        """What to tell the user: the missing libraries and the one command to install them."""
        width = max(len(soname) for soname in self.missing)
        lines = [
            "vendiscope: the desktop app cannot start: Qt's X11 (xcb) platform plugin needs "
            "system libraries that are missing here:"
        ]
        for soname in self.missing:
            package = PACKAGES.get(soname)
            if package is None:
                where = "no package known to Vendiscope"
            elif self.family is None:
                where = " / ".join(
                    f"{FAMILIES[f]}: {package.name(f)}" for f in ("debian", "fedora", "arch")
                )
            else:
                where = f"package {package.name(self.family)}"
            lines.append(f"    {soname.ljust(width)}  ({where})")
        families = [self.family] if self.family else list(FAMILIES)
        commands = [(f, c) for f in families if (c := self.command(f))]
        if commands:
            as_root = "" if self.root or self.has_sudo else " as root"
            if len(commands) == 1:
                lines += ["", f"Install them{as_root} with:", "", f"    {commands[0][1]}", ""]
            else:
                lines += ["", f"Install them{as_root} with the command for your distribution:", ""]
                lines += [f"    {FAMILIES[f] + ':':15}{c}" for f, c in commands]
                lines.append("")
        if self.unknown:
            them = "the others" if commands else "them"
            search = " or ".join(_SEARCH[f].format(self.unknown[0]) for f in families)
            example = "for example " if len(self.unknown) > 1 else ""
            lines += [] if commands else [""]
            lines += [f"To find the packages for {them}: {example}{search}", ""]
        lines.append(f"then {then}." if commands else f"Install them, then {then}.")
        return "\n".join(lines)


def check(
    paths: Sequence[Path | str] | None = None, environ: Mapping[str, str] | None = None
) -> Report | None:
    """What is missing for Qt's xcb plugin, or None (all present, or Qt will not use xcb).

    ``paths``: the libraries to check (default: the PySide6 wheel's xcb plugin and its Qt
    libraries).
    """
    if qt_platform(environ) != "xcb":
        return None
    missing = missing_sonames(qt_libraries() if paths is None else paths)
    return Report(missing) if missing else None


def launch_problem() -> str | None:
    """For the app's own start: the message to print instead of Qt's abort, or None."""
    report = check()
    return None if report is None else report.message("start Vendiscope again")


def _apt_install(packages: Sequence[str]) -> bool:
    """``apt-get install`` as root (``apt-get update`` first if there are no package lists)."""
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "--no-install-recommends", *packages]
    print("vendiscope: installing the system libraries Qt needs:", " ".join(install), flush=True)
    lists = Path("/var/lib/apt/lists")
    if not any(lists.glob("*Packages*")):
        subprocess.run(["apt-get", "update"], env=env, check=False)
    if subprocess.run(install, env=env, check=False).returncode == 0:
        return True
    subprocess.run(["apt-get", "update"], env=env, check=False)
    return subprocess.run(install, env=env, check=False).returncode == 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m vendiscope.gui.system_libs [--install] [--library PATH ...]``."""
    parser = argparse.ArgumentParser(
        prog="python -m vendiscope.gui.system_libs",
        description="Check that the system libraries Qt's xcb platform plugin needs are there.",
    )
    parser.add_argument(
        "--install",
        action="store_true",
        help="as root on Debian/Ubuntu, apt-get install the missing packages",
    )
    parser.add_argument(
        "--library",
        action="append",
        metavar="PATH",
        help="check this shared library instead of the PySide6 plugin (repeatable)",
    )
    parser.add_argument(
        "--then", default="start Vendiscope again", help="the advice that ends the message"
    )
    args = parser.parse_args(argv)
    report = check(args.library)
    if report is None:
        return 0
    if args.install and report.root and report.family == "debian" and shutil.which("apt-get"):
        packages = report.packages("debian")
        if packages and _apt_install(packages):
            report = check(args.library)
            if report is None:
                return 0
    print(report.message(args.then), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
