"""Before Qt loads a platform plugin: the check that replaces Qt's abort with one line."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from reader.errors import DisplayError
from reader.sample import sample_path
from reader.ui.platform import (
    MissingLibrary,
    _missing_by_loading,
    check_platform,
    debian_package,
    import_failure,
    missing_libraries,
    platform_candidates,
)
from tests.conftest import required_tool

QT_ABORT = "Could not load the Qt platform plugin"


def qt_platforms() -> Path:
    from PySide6.QtCore import QLibraryInfo

    return Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms"


def resolved_libraries(plugin: Path) -> dict[str, str]:
    """Each library the loader finds for ``plugin``, by name: the file it loads."""
    listed = subprocess.run([required_tool("ldd"), str(plugin)], capture_output=True, text=True)
    return dict(re.findall(r"^\s*(\S+) => (/\S+)", listed.stdout, re.MULTILINE))


@pytest.fixture(scope="module")
def x_display() -> Iterator[str]:
    """A real X server (Xvfb) on a free display number."""
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        [required_tool("Xvfb"), "-displayfd", str(write_end), "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_end)
    with os.fdopen(read_end) as announced:
        number = announced.readline().strip()  # written once the server accepts clients
    assert number, "Xvfb did not start"
    yield f":{number}"
    server.terminate()
    server.wait(timeout=60)


def patched_plugin(folder: Path, renames: dict[str, str]) -> Path:
    """A copy of Qt's xcb plugin beside Qt's own libraries whose needed-library
    names are changed (same length, so the ELF stays valid) to ones no system has."""
    platforms = folder / "Qt" / "plugins" / "platforms"
    platforms.mkdir(parents=True)
    (folder / "Qt" / "lib").symlink_to(qt_platforms().parent.parent / "lib")  # its RUNPATH
    data = (qt_platforms() / "libqxcb.so").read_bytes()
    for old, new in renames.items():
        assert len(old) == len(new) and old.encode() + b"\0" in data
        data = data.replace(old.encode() + b"\0", new.encode() + b"\0")
    plugin = platforms / "libqxcb.so"
    plugin.write_bytes(data)
    return plugin


# -- which platform, which package ----------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, ["xcb"]),
        ({"DISPLAY": ":0"}, ["xcb"]),
        ({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, ["wayland", "xcb"]),
        ({"XDG_SESSION_TYPE": "wayland"}, ["wayland", "xcb"]),
        ({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}, ["offscreen"]),
        ({"QT_QPA_PLATFORM": "wayland;xcb:nograb"}, ["wayland", "xcb"]),
    ],
)
def test_platform_candidates_follow_qt(environ, expected):
    assert platform_candidates(environ) == expected


@pytest.mark.parametrize(
    ("library", "package"),
    [
        ("libxcb-cursor.so.0", "libxcb-cursor0"),
        ("libxcb-icccm.so.4", "libxcb-icccm4"),
        ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
        ("libxcb-image.so.0", "libxcb-image0"),
        ("libxcb-render-util.so.0", "libxcb-render-util0"),
        ("libxcb-xkb.so.1", "libxcb-xkb1"),
        ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
        ("libxcb-shape.so.0", "libxcb-shape0"),
        ("libxcb-randr.so.0", "libxcb-randr0"),
        ("libxcb-xinerama.so.0", "libxcb-xinerama0"),
        ("libwayland-client.so.0", "libwayland-client0"),
        ("libGL.so.1", "libgl1"),
        ("libEGL.so.1", "libegl1"),
        ("libglib-2.0.so.0", "libglib2.0-0"),
        ("libdbus-1.so.3", "libdbus-1-3"),
        ("libz.so.1", "zlib1g"),
        ("libfoo.so", None),
    ],
)
def test_debian_package_names(library, package):
    assert debian_package(library) == package


def test_every_system_library_of_the_plugins_maps_to_the_package_that_ships_it():
    """Asked of dpkg on this (Debian-family, as in CI) machine, not of a table."""
    libraries: dict[str, str] = {}
    for plugin in ("libqxcb.so", "libqwayland.so"):
        libraries.update(resolved_libraries(qt_platforms() / plugin))
    system = {name: path for name, path in libraries.items() if not path.startswith(sys.prefix)}
    assert "libxcb-cursor.so.0" in system and "libwayland-client.so.0" in system
    # dpkg knows each file by the path its package installed (/lib or /usr/lib).
    paths = {name: {path, re.sub(r"^/lib/", "/usr/lib/", path)} for name, path in system.items()}
    searched = subprocess.run(
        [required_tool("dpkg"), "-S", *set().union(*paths.values())], capture_output=True, text=True
    )
    owners = dict(
        (path, package.split(":")[0])
        for package, path in re.findall(r"^(\S+): (\S+)$", searched.stdout, re.MULTILINE)
    )
    for name, candidates in paths.items():
        owner = next(owners[path] for path in candidates if path in owners)
        assert debian_package(name) == owner.removesuffix("t64"), (name, owner)


# -- the library check, on the real plugin and on copies that cannot load ----------------


def test_the_installed_plugins_need_nothing_missing():
    assert missing_libraries(qt_platforms() / "libqxcb.so") == []
    assert missing_libraries(qt_platforms() / "libqoffscreen.so") == []


def test_every_missing_library_is_named(tmp_path: Path):
    plugin = patched_plugin(
        tmp_path,
        {"libxcb-cursor.so.0": "libxcb-cursor.so.9", "libxcb-icccm.so.4": "libxcb-icccm.so.8"},
    )
    assert missing_libraries(plugin) == [
        MissingLibrary("libxcb-cursor.so.9"),
        MissingLibrary("libxcb-icccm.so.8"),
    ]


def test_without_ldd_loading_names_the_first_missing_library(tmp_path: Path):
    plugin = patched_plugin(tmp_path, {"libxcb-cursor.so.0": "libxcb-cursor.so.9"})
    assert _missing_by_loading(plugin) == [MissingLibrary("libxcb-cursor.so.9")]
    assert _missing_by_loading(qt_platforms() / "libqoffscreen.so") == []


def test_in_a_frozen_application_the_loaders_own_complaint_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The bundle's ctypes (PyInstaller's) hides the loader's message behind its own."""
    import ctypes

    from PyInstaller.loader import pyimod03_ctypes

    for name in ("CDLL", "cdll", "PyDLL", "pydll"):
        monkeypatch.setattr(ctypes, name, getattr(ctypes, name))  # restored after the test
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path / "bundle"), raising=False)
    pyimod03_ctypes.install()
    plugin = patched_plugin(tmp_path, {"libxcb-cursor.so.0": "libxcb-cursor.so.9"})
    assert _missing_by_loading(plugin) == [MissingLibrary("libxcb-cursor.so.9")]


def test_ldd_names_a_library_it_finds_but_cannot_load(x_display: str):
    """An empty file where the library should be: the loader stops there."""
    script = (
        "from pathlib import Path; from reader.ui.platform import _ldd_missing; "
        f"print(_ldd_missing(Path({str(qt_platforms() / 'libqxcb.so')!r})))"
    )
    completed = without_library(
        "libxcb-cursor.so.0", [sys.executable, "-c", script], reader_environment()
    )
    assert completed.returncode == 0, completed
    expected = [MissingLibrary("libxcb-cursor.so.0", damaged=True)]
    assert completed.stdout.strip() == repr(expected)


def test_a_plugin_away_from_qts_libraries_asks_for_a_reinstall(
    tmp_path: Path, x_display: str, monkeypatch: pytest.MonkeyPatch
):
    """A copy of the plugin alone, with no LD_LIBRARY_PATH that could supply Qt."""
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    shutil.copy(qt_platforms() / "libqxcb.so", tmp_path / "libqxcb.so")
    environ = {"DISPLAY": x_display, "QT_QPA_PLATFORM_PLUGIN_PATH": str(tmp_path)}
    with pytest.raises(DisplayError) as raised:
        check_platform(environ)
    assert "cannot load Qt's own libQt6XcbQpa.so.6" in str(raised.value)
    assert str(raised.value).endswith("reinstall reader.")


def test_missing_system_libraries_give_the_apt_command(
    tmp_path: Path, x_display: str, monkeypatch: pytest.MonkeyPatch
):
    plugin = patched_plugin(
        tmp_path,
        {"libxcb-cursor.so.0": "libxcb-cursor.so.9", "libxcb-icccm.so.4": "libxcb-icccm.so.8"},
    )
    environ = {"DISPLAY": x_display, "QT_QPA_PLATFORM_PLUGIN_PATH": str(plugin.parent)}
    with pytest.raises(DisplayError) as raised:
        check_platform(environ)
    message = str(raised.value)
    assert "needs libxcb-cursor.so.9 and libxcb-icccm.so.8, which are not installed" in message
    assert "`sudo apt install libxcb-cursor9 libxcb-icccm8`" in message
    assert "\n" not in message


# -- displays ----------------------------------------------------------------------------


def test_a_running_x_server_with_every_library_passes(x_display: str):
    assert check_platform({"DISPLAY": x_display}) == "xcb"


@pytest.mark.parametrize("environ", [{}, {"QT_QPA_PLATFORM": "xcb"}])
def test_no_display_is_said_plainly(environ):
    with pytest.raises(DisplayError, match=r"no display .*DISPLAY is not set.*reader ask"):
        check_platform(environ)


def test_a_display_with_no_server_behind_it(x_display: str):
    unused = f":{int(x_display[1:]) + 1000}"
    with pytest.raises(DisplayError, match=f"No X server is running on DISPLAY={unused}"):
        check_platform({"DISPLAY": unused})


def test_wayland_is_preferred_when_its_compositor_is_there(tmp_path: Path, x_display: str):
    environ = {"WAYLAND_DISPLAY": "wayland-test", "XDG_RUNTIME_DIR": str(tmp_path)}
    assert check_platform({**environ, "DISPLAY": x_display}) == "xcb"  # no compositor: X11
    with socket.socket(socket.AF_UNIX) as compositor:
        compositor.bind(str(tmp_path / "wayland-test"))
        compositor.listen()
        assert check_platform({**environ, "DISPLAY": x_display}) == "wayland"
    assert (tmp_path / "wayland-test").exists()  # left behind, as by a compositor that crashed
    with pytest.raises(DisplayError, match="No Wayland compositor is listening"):
        check_platform({**environ, "QT_QPA_PLATFORM": "wayland"})


def test_offscreen_needs_no_display():
    assert check_platform({"QT_QPA_PLATFORM": "offscreen"}) == "offscreen"


def test_an_unknown_platform_lists_the_ones_there_are():
    with pytest.raises(DisplayError, match=r"no 'nonesuch' platform plugin .*offscreen.*xcb"):
        check_platform({"QT_QPA_PLATFORM": "nonesuch"})


# -- the real command, where Qt would abort ----------------------------------------------

WINDOW_COMMANDS = [["sample"], [], ["gui"], ["open", str(sample_path())]]


def reader_environment(**extra: str) -> dict[str, str]:
    environ = {
        name: value
        for name, value in os.environ.items()
        if name not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "XDG_SESSION_TYPE")
    }
    return {**environ, **extra}


def without_library(library: str, command: list[str], environ: dict[str, str]):
    """Run ``command`` in a mount namespace where the file the loader would load for
    ``library`` is empty, as if its package were broken: Qt cannot load the plugin."""
    path = os.path.realpath(resolved_libraries(qt_platforms() / "libqxcb.so")[library])
    unshare = [required_tool("unshare"), "--mount"]
    if os.geteuid() != 0:
        unshare.append("--map-root-user")
    return subprocess.run(
        [*unshare, "sh", "-c", f'mount --bind /dev/null {path} && exec "$@"', "sh", *command],
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
    )


def test_qt_itself_aborts_without_the_library(x_display: str):
    """The situation the check exists for: without it, Qt kills the process."""
    environ = reader_environment(DISPLAY=x_display, QT_QPA_PLATFORM="xcb")
    script = "from PySide6.QtWidgets import QApplication; QApplication([])"
    completed = without_library("libxcb-cursor.so.0", [sys.executable, "-c", script], environ)
    assert completed.returncode == -6, completed
    assert QT_ABORT in completed.stderr


@pytest.mark.parametrize("command", WINDOW_COMMANDS, ids=["sample", "bare", "gui", "open"])
def test_the_window_commands_name_the_missing_library(command, x_display: str):
    environ = reader_environment(DISPLAY=x_display)
    reader = [sys.executable, "-m", "reader.cli", *command]
    completed = without_library("libxcb-cursor.so.0", reader, environ)
    assert completed.returncode == 2, completed
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1, completed.stderr
    assert lines[0].startswith("error: The window cannot open")
    assert "libxcb-cursor.so.0" in lines[0]
    assert "`sudo apt install --reinstall libxcb-cursor0`" in lines[0]
    assert QT_ABORT not in completed.stderr and "Traceback" not in completed.stderr


@pytest.mark.parametrize("command", WINDOW_COMMANDS, ids=["sample", "bare", "gui", "open"])
def test_the_window_commands_say_there_is_no_display(command):
    completed = subprocess.run(
        [sys.executable, "-m", "reader.cli", *command],
        capture_output=True,
        text=True,
        env=reader_environment(QT_QPA_PLATFORM="xcb"),
        timeout=300,
    )
    assert completed.returncode == 2, completed
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1, completed.stderr
    assert "no display to open the window on (DISPLAY is not set)" in lines[0]
    assert QT_ABORT not in completed.stderr


def test_a_library_qt_itself_links_to_is_named_too(x_display: str):
    """libGL.so.1, the classic on server images: PySide6's QtGui cannot even import."""
    reader = [sys.executable, "-m", "reader.cli", "sample"]
    completed = without_library("libGL.so.1", reader, reader_environment(DISPLAY=x_display))
    assert completed.returncode == 2, completed
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1, completed.stderr
    assert "Qt needs libGL.so.1, which is missing or damaged" in lines[0]
    assert "`sudo apt install --reinstall libgl1`" in lines[0]


def test_import_failures_name_the_library():
    message = import_failure(
        ImportError("libEGL.so.1: cannot open shared object file: No such file or directory")
    )
    assert "Qt needs libEGL.so.1, which is not installed" in message
    assert "`sudo apt install libegl1`" in message
    own = import_failure(ImportError("libQt6Gui.so.6: cannot open shared object file"))
    assert "Qt's own libQt6Gui.so.6" in own and own.endswith("reinstall reader.")


def test_shot_draws_offscreen_when_the_display_cannot_be_used(x_display: str, tmp_path: Path):
    out = tmp_path / "window.png"
    shot = [sys.executable, "-m", "reader.cli", "shot", str(sample_path()), "--out", str(out)]
    completed = without_library("libxcb-cursor.so.0", shot, reader_environment(DISPLAY=x_display))
    assert completed.returncode == 0, completed
    assert out.read_bytes().startswith(b"\x89PNG")
