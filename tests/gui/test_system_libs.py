"""The check for the system libraries Qt's xcb plugin needs, run on the real PySide6 wheel.

Everything here runs the real ``ldd`` on real shared libraries: the installed xcb plugin, the
system libraries it resolves to, and a copy of the plugin in which one needed library's name
is changed to one that exists nowhere (``libvsq-absent.so.0``), so the "missing" path is
exercised on every machine. Nothing here installs a package.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vendiscope.gui.system_libs import (
    PACKAGES,
    Report,
    check,
    distro_family,
    install_command,
    packages_for,
    parse_ldd,
    qt_libraries,
    qt_platform,
)

ROOT = Path(__file__).resolve().parents[2]
XCB = {"QT_QPA_PLATFORM": "xcb"}
ABSENT = "libvsq-absent.so.0"
REPLACED = "libxcb-cursor.so.0"  # same length as ABSENT, so the copy stays a valid ELF file

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("ldd") is None,
    reason="the xcb plugin and ldd exist on Linux only",
)


def ldd(*paths: Path) -> str:
    return subprocess.run(
        ["ldd", *map(str, paths)], capture_output=True, text=True, check=False
    ).stdout


def resolved(output: str) -> dict[str, Path]:
    """soname -> file, for the lines of ``ldd`` output that were found."""
    found = {}
    for line in output.splitlines():
        name, arrow, rest = line.strip().partition(" => ")
        if arrow and rest.startswith("/"):
            found[name] = Path(rest.split(" (")[0])
    return found


def env(**extra: str) -> dict[str, str]:
    """This environment, with Qt's platform and Python's path as the test says."""
    base = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "PYTHONPATH")}
    return {**base, **extra}


@pytest.fixture(scope="module")
def plugin() -> Path:
    libraries = qt_libraries()
    assert libraries, "the PySide6 wheel has no xcb platform plugin"
    assert libraries[0].name == "libqxcb.so" and libraries[0].is_file()
    return libraries[0]


@pytest.fixture(scope="module")
def broken_pyside(plugin: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a working PySide6 whose xcb plugin needs ``libvsq-absent.so.0``.

    Every file is a link to the installed PySide6 except the plugin, a copy of the real one
    with ``libxcb-cursor.so.0`` renamed; put the folder first on PYTHONPATH to use it.
    """
    real = plugin.parents[3]  # .../PySide6
    top = tmp_path_factory.mktemp("site")
    keep = [real, real / "Qt", real / "Qt" / "plugins", real / "Qt" / "plugins" / "platforms"]
    for folder in keep:
        mirror = top / "PySide6" / folder.relative_to(real)
        mirror.mkdir(parents=True, exist_ok=True)
        for entry in folder.iterdir():
            if entry not in keep and entry != plugin:
                (mirror / entry.name).symlink_to(entry)
    data = plugin.read_bytes()
    assert data.count(REPLACED.encode()) == 1
    copy = top / "PySide6" / plugin.relative_to(real)
    copy.write_bytes(data.replace(REPLACED.encode(), ABSENT.encode()))
    return top


@pytest.fixture(scope="module")
def broken_plugin(broken_pyside: Path, plugin: Path) -> Path:
    return broken_pyside / "PySide6" / plugin.relative_to(plugin.parents[3])


# --- where the check applies ------------------------------------------------------------


def test_only_xcb_on_linux_is_checked() -> None:
    assert qt_platform({}, "linux") == "xcb"
    assert qt_platform({"DISPLAY": ":0"}, "linux") == "xcb"
    assert qt_platform({"QT_QPA_PLATFORM": "xcb"}, "linux") == "xcb"
    assert qt_platform({"QT_QPA_PLATFORM": "xcb:nograb"}, "linux") == "xcb"
    assert qt_platform({"QT_QPA_PLATFORM": "xcb;offscreen"}, "linux") == "xcb"
    assert qt_platform({"QT_QPA_PLATFORM": "offscreen"}, "linux") == "offscreen"
    assert qt_platform({"QT_QPA_PLATFORM": "wayland;xcb"}, "linux") == "wayland"
    wayland = {"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0"}
    assert qt_platform(wayland, "linux") == "wayland"
    assert qt_platform({"XDG_SESSION_TYPE": "wayland"}, "linux") == "xcb"  # falls back
    assert qt_platform({}, "darwin") is None and qt_platform({}, "win32") is None
    assert check(environ={"QT_QPA_PLATFORM": "offscreen"}) is None
    assert check(environ={"QT_QPA_PLATFORM": "wayland"}) is None


# --- the real plugin --------------------------------------------------------------------


def test_the_installed_plugin_reports_exactly_what_the_loader_cannot_find(plugin: Path) -> None:
    report = check(environ=XCB)
    # The dynamic loader itself is the judge: loading the plugin fails iff something is
    # missing, and it names a library the check reported.
    load = subprocess.run(
        [sys.executable, "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])", str(plugin)],
        capture_output=True,
        text=True,
    )
    if report is None:
        assert load.returncode == 0, load.stderr
        return
    assert load.returncode != 0
    assert any(
        f"{soname}: cannot open shared object file" in load.stderr for soname in report.missing
    )
    assert report.missing == parse_ldd(ldd(*qt_libraries()))
    for soname in report.missing:
        assert f"{soname} => not found" in ldd(plugin, *qt_libraries()[1:])
    message = report.message()
    for soname in report.missing:
        assert soname in message


@pytest.mark.slow
def test_the_package_table_matches_what_dpkg_says_owns_each_library(plugin: Path) -> None:
    if shutil.which("dpkg") is None:
        pytest.skip("not a Debian/Ubuntu system")
    checked = 0
    for soname, path in resolved(ldd(*qt_libraries())).items():
        if soname not in PACKAGES:
            continue
        owner = subprocess.run(
            ["dpkg", "-S", str(path.resolve())], capture_output=True, text=True, check=False
        )
        if owner.returncode != 0:
            continue  # not installed from a package (a local build): nothing to compare
        package = owner.stdout.split(":")[0]
        # Ubuntu 24.04 renamed some libraries for 64-bit time_t; apt accepts the old name.
        assert package in (PACKAGES[soname].debian, PACKAGES[soname].debian + "t64"), soname
        checked += 1
    assert checked >= 10  # libxcb, libX11, libGL, libEGL, fontconfig, ...


def test_the_command_for_the_reported_case_and_for_what_is_missing_here() -> None:
    # The user's report: on a fresh Debian/Ubuntu these two were missing.
    user = ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    assert packages_for(user, "debian") == (["libxcb-icccm4", "libxcb-keysyms1"], [])
    assert packages_for(user, "fedora") == (["xcb-util-wm", "xcb-util-keysyms"], [])
    assert packages_for(user, "arch") == (["xcb-util-wm", "xcb-util-keysyms"], [])
    expected = "sudo apt-get install -y libxcb-icccm4 libxcb-keysyms1"
    assert install_command("debian", ["libxcb-icccm4", "libxcb-keysyms1"]) == expected
    report = Report(user, family="debian", root=False, has_sudo=True)
    assert f"\n    {expected}\n" in report.message()
    # Whatever real ldd finds missing here maps to the packages in the printed command.
    here = check(environ=XCB)
    if here is not None and here.family is not None:
        packages, unknown = packages_for(here.missing, here.family)
        command = here.command(here.family)
        if packages:
            assert command is not None and command.endswith(" ".join(packages))
            assert f"    {command}\n" in here.message()
        assert all(name in here.message() for name in unknown)


def test_each_family_gets_its_own_command_and_an_unknown_distribution_gets_all() -> None:
    missing = ["libxcb-icccm.so.4", "libxcb-xinerama.so.0", "libxcb-xkb.so.1"]
    fedora = Report(missing, family="fedora", root=False, has_sudo=True).message()
    assert "sudo dnf install -y xcb-util-wm libxcb\n" in fedora
    arch = Report(missing, family="arch", root=True, has_sudo=False).message()
    assert "\n    pacman -S --needed xcb-util-wm libxcb\n" in arch
    other = Report(missing, family=None, root=False, has_sudo=False).message()
    assert "as root" in other
    assert "apt-get install -y libxcb-icccm4 libxcb-xinerama0 libxcb-xkb1" in other
    assert "dnf install -y xcb-util-wm libxcb" in other
    assert "pacman -S --needed xcb-util-wm libxcb" in other


def test_the_distribution_is_read_from_os_release(tmp_path: Path) -> None:
    samples = {
        'ID=ubuntu\nID_LIKE=debian\nVERSION_ID="24.04"\n': "debian",
        'ID=linuxmint\nID_LIKE="ubuntu debian"\n': "debian",
        "ID=fedora\n": "fedora",
        'ID="rocky"\nID_LIKE="rhel centos fedora"\n': "fedora",
        "ID=arch\n": "arch",
        "ID=manjaro\nID_LIKE=arch\n": "arch",
    }
    for text, family in samples.items():
        (tmp_path / "os-release").write_text(text)
        assert distro_family(tmp_path / "os-release") == family, text
    if Path("/etc/debian_version").exists():
        assert distro_family() == "debian"


# --- a missing library the table does not know ------------------------------------------


def test_an_unknown_missing_library_is_reported_by_name(broken_plugin: Path) -> None:
    assert f"{ABSENT} => not found" in ldd(broken_plugin)
    report = check([broken_plugin], environ=XCB)
    assert report is not None and ABSENT in report.missing and REPLACED not in report.missing
    assert ABSENT in report.unknown
    message = Report(report.missing, family="debian", root=False, has_sudo=True).message()
    line = next(line for line in message.splitlines() if line.startswith(f"    {ABSENT} "))
    assert line.endswith("(no package known to Vendiscope)")
    them = "the others" if report.packages("debian") else "them"
    assert f"To find the packages for {them}: `apt-file search {ABSENT}`" in message


def test_the_command_line_reports_it_and_stays_quiet_off_xcb(broken_pyside: Path) -> None:
    command = [sys.executable, "-m", "vendiscope.gui.system_libs", "--then", "try again"]
    path = str(broken_pyside)
    failed = subprocess.run(
        command, capture_output=True, text=True, env=env(QT_QPA_PLATFORM="xcb", PYTHONPATH=path)
    )
    assert failed.returncode == 1 and failed.stdout == ""
    assert ABSENT in failed.stderr and "no package known to Vendiscope" in failed.stderr
    assert failed.stderr.rstrip().endswith("then try again.")
    for platform in ("offscreen", "wayland"):
        quiet = subprocess.run(
            command,
            capture_output=True,
            text=True,
            env=env(QT_QPA_PLATFORM=platform, PYTHONPATH=path),
        )
        assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", ""), platform


@pytest.mark.slow
def test_the_app_prints_the_problem_instead_of_qts_abort(broken_pyside: Path) -> None:
    launched = subprocess.run(
        [sys.executable, "main.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=env(QT_QPA_PLATFORM="xcb", PYTHONPATH=str(broken_pyside), DISPLAY=":99"),
    )
    assert launched.returncode == 2, launched.stderr
    assert ABSENT in launched.stderr and "then start Vendiscope again." in launched.stderr
    assert "qt.qpa.plugin" not in launched.stderr  # Qt never got to try the plugin


# --- nothing missing: silent (its cost is measured by hand: docs/install.md) -------------


def test_nothing_is_printed_when_all_is_present(plugin: Path) -> None:
    libxcb = resolved(ldd(plugin))["libxcb.so.1"]  # a real library whose needs are all met
    assert parse_ldd(ldd(libxcb)) == []
    assert check([libxcb], environ=XCB) is None
    runs = [[sys.executable, "-m", "vendiscope.gui.system_libs", "--library", str(libxcb)]]
    if check(environ=XCB) is None:  # this machine has everything: the real default too
        runs.append([sys.executable, "-m", "vendiscope.gui.system_libs"])
    for command in runs:
        done = subprocess.run(
            command, capture_output=True, text=True, env=env(QT_QPA_PLATFORM="xcb")
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
