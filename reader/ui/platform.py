"""Before Qt loads a platform plugin: can it?

When Qt cannot load its platform plugin it prints a paragraph that ends in
"Reinstalling the application may fix this problem" and aborts the process
(signal 6). On a minimal Linux the cause is nearly always a missing system
library (libxcb-cursor0 and friends) or no display at all. So the window's
start works out which platform Qt will pick, the way Qt does, and checks that
the plugin's display is there and that its shared libraries resolve, asking
the system's own dynamic loader (``ldd``); a failure is one line naming what is
missing and the command that installs it.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from reader.errors import DisplayError

WITHOUT_A_WINDOW = (
    'or use the commands, which need no display, such as `reader ask FILE "QUESTION"`'
)

# Libraries whose Debian/Ubuntu package is not named by the usual rule
# (libfoo.so.1 in libfoo1, libfoo2.so.0 in libfoo2-0).
_PACKAGE_EXCEPTIONS = {
    "libc.so.6": "libc6",
    "libm.so.6": "libc6",
    "libdl.so.2": "libc6",
    "libpthread.so.0": "libc6",
    "librt.so.1": "libc6",
    "libgcc_s.so.1": "libgcc-s1",
    "libz.so.1": "zlib1g",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libgio-2.0.so.0": "libglib2.0-0",
    "libgmodule-2.0.so.0": "libglib2.0-0",
    "libGLdispatch.so.0": "libglvnd0",
    "libbrotlidec.so.1": "libbrotli1",
    "libbrotlicommon.so.1": "libbrotli1",
}
# Qt's own libraries ship inside PySide6 (or the bundle): missing, they mean a
# broken install, not a missing system package.
_OWN_LIBRARY = re.compile(r"lib(Qt6|icu|shiboken6|pyside6)")
_NOT_FOUND = re.compile(r"^\s*(\S+) => not found\s*$", re.MULTILINE)
_LOAD_ERROR = re.compile(r"error while loading shared libraries: ([^:]+): (.+)")
_DLOPEN_ERROR = re.compile(r"([^:\s]+): (.+)")


@dataclass(frozen=True)
class MissingLibrary:
    """A shared library the loader could not find, or found but could not load."""

    name: str
    damaged: bool = False


def debian_package(library: str) -> str | None:
    """The Debian/Ubuntu package that ships ``library`` (a soname such as
    ``libxcb-cursor.so.0``), by Debian's naming rule and its exceptions."""
    if library in _PACKAGE_EXCEPTIONS:
        return _PACKAGE_EXCEPTIONS[library]
    match = re.fullmatch(r"lib(.+)\.so\.(\d+)(?:\.\d+)*", library)
    if not match:
        return None
    name, version = match.group(1).lower(), match.group(2)
    return f"lib{name}{'-' if name[-1].isdigit() else ''}{version}"


def missing_libraries(plugin: Path) -> list[MissingLibrary]:
    """The shared libraries ``plugin`` needs, directly or through the libraries it
    needs, that the dynamic loader cannot load in this environment."""
    listed = _ldd_missing(plugin)
    return listed if listed is not None else _missing_by_loading(plugin)


def _ldd_missing(plugin: Path) -> list[MissingLibrary] | None:
    """What ldd says is missing; None without ldd, or when its answer says nothing
    about that (not a dynamic object, an unusual loader)."""
    ldd = shutil.which("ldd") or next(
        (path for path in ("/usr/bin/ldd", "/bin/ldd") if os.access(path, os.X_OK)), None
    )
    if ldd is None:
        return None
    try:
        listed = subprocess.run(
            [ldd, str(plugin)], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    # glibc's ldd merges the loader's errors into its standard output; others may not.
    output = listed.stdout + listed.stderr
    missing = [MissingLibrary(name) for name in dict.fromkeys(_NOT_FOUND.findall(output))]
    load_error = _LOAD_ERROR.search(output)
    if load_error:
        # The loader stops at a library it found but cannot load (damaged, or an
        # empty file in its place): ldd lists nothing after it.
        missing.append(MissingLibrary(Path(load_error.group(1)).name, damaged=True))
    if missing or "=>" in output:
        return missing
    return None


def _missing_by_loading(plugin: Path) -> list[MissingLibrary]:
    """Without ldd: load the plugin and read the loader's complaint, which names
    the first library it could not load."""
    try:
        ctypes.CDLL(str(plugin))
    except OSError as error:
        # A frozen application's ctypes wraps the loader's error in its own.
        match = _DLOPEN_ERROR.match(str(error.__cause__ or error))
        if match and Path(match.group(1)) != plugin:
            damaged = "cannot open shared object file" not in match.group(2)
            return [MissingLibrary(Path(match.group(1)).name, damaged=damaged)]
        return [MissingLibrary(plugin.name, damaged=True)]
    return []


@dataclass(frozen=True)
class _Problem:
    """Why one platform cannot start; ``needs_display`` when a display is what is missing."""

    message: str
    needs_display: bool


def check_platform(environ: Mapping[str, str] | None = None) -> str:
    """The platform Qt will start on; raise ``DisplayError`` if it would abort instead."""
    environ = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return ""  # Windows and macOS plugins need nothing outside Qt
    requested = environ.get("QT_QPA_PLATFORM", "")
    problems: list[_Problem] = []
    for name in platform_candidates(environ):
        problem = _platform_problem(name, environ)
        if problem is None:
            return name
        problems.append(problem)
    if not problems:
        raise DisplayError(f"QT_QPA_PLATFORM={requested!r} names no platform: unset it.")
    # A display that is there but cannot be drawn on says more than one that is not there.
    worst = next((problem for problem in problems if not problem.needs_display), problems[0])
    raise DisplayError(worst.message)


def platform_candidates(environ: Mapping[str, str]) -> list[str]:
    """The platforms Qt tries, in order: QT_QPA_PLATFORM's list, else Wayland in a
    Wayland session, then X11 (Qt's own choice for a Linux desktop)."""
    requested = environ.get("QT_QPA_PLATFORM", "")
    if requested:
        # "wayland;xcb" is a list to try; "xcb:option=value" carries plugin options.
        return [part.split(":")[0].strip() for part in requested.split(";") if part.strip()]
    candidates = []
    if environ.get("WAYLAND_DISPLAY") or environ.get("XDG_SESSION_TYPE") == "wayland":
        candidates.append("wayland")
    candidates.append("xcb")
    return candidates


def _platform_problem(name: str, environ: Mapping[str, str]) -> _Problem | None:
    if name.startswith("xcb"):
        display = _x11_display_problem(environ)
        if display:
            return _Problem(display, needs_display=True)
    elif name.startswith("wayland"):
        display = _wayland_display_problem(environ)
        if display:
            return _Problem(display, needs_display=True)
    folder, plugin = _plugin_file(name, environ)
    if plugin is None:
        available = sorted(path.name[4:-3] for path in folder.glob("libq*.so"))
        return _Problem(
            f"Qt has no '{name}' platform plugin in {folder} (it has: "
            f"{', '.join(available) or 'none'}): set QT_QPA_PLATFORM to one of those, "
            "or reinstall reader if the list is empty.",
            needs_display=False,
        )
    missing = missing_libraries(plugin)
    return _libraries_problem(name, missing) if missing else None


def _x11_display_problem(environ: Mapping[str, str]) -> str | None:
    display = environ.get("DISPLAY", "")
    if not display:
        return (
            "There is no display to open the window on (DISPLAY is not set): run reader "
            f"in a desktop session or set DISPLAY, {WITHOUT_A_WINDOW}."
        )
    local = re.fullmatch(r"(?:unix)?:(\d+)(?:\.\d+)?", display)
    if local is None:
        return None  # a remote display (ssh -X): Qt finds out by connecting
    socket_path = f"/tmp/.X11-unix/X{local.group(1)}"
    # X servers listen on an abstract socket as well as (or instead of) the file.
    if _socket_answers(socket_path) or _socket_answers("\0" + socket_path):
        return None
    return (
        f"No X server is running on DISPLAY={display}: start reader in a desktop session "
        f"or set DISPLAY to a running display, {WITHOUT_A_WINDOW}."
    )


def _socket_answers(address: str) -> bool:
    """Whether a server accepts connections there (a file left by a server that
    crashed does not)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(2)
        try:
            probe.connect(address)
        except OSError:
            return False
    return True


def _wayland_display_problem(environ: Mapping[str, str]) -> str | None:
    if environ.get("WAYLAND_SOCKET"):
        return None  # the compositor handed over a connected socket
    name = environ.get("WAYLAND_DISPLAY") or "wayland-0"
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    if not name.startswith("/") and not runtime:
        return (
            "Wayland needs XDG_RUNTIME_DIR, which is not set: run reader in a desktop "
            f"session, {WITHOUT_A_WINDOW}."
        )
    socket_path = Path(runtime, name)
    if _socket_answers(str(socket_path)):
        return None
    return (
        f"No Wayland compositor is listening at {socket_path}: run reader in a desktop "
        f"session or set WAYLAND_DISPLAY, {WITHOUT_A_WINDOW}."
    )


def _plugin_file(name: str, environ: Mapping[str, str]) -> tuple[Path, Path | None]:
    """Qt's platforms folder, and the plugin file for ``name`` in it (or in the folder
    QT_QPA_PLATFORM_PLUGIN_PATH adds), None if there is none."""
    try:
        from PySide6.QtCore import QLibraryInfo
    except ImportError as error:
        raise DisplayError(import_failure(error)) from None

    plugins = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms"
    folders = [plugins]
    if environ.get("QT_QPA_PLATFORM_PLUGIN_PATH"):
        folders.insert(0, Path(environ["QT_QPA_PLATFORM_PLUGIN_PATH"]))
    files = [f"libq{name}.so"]
    if name.startswith("wayland"):
        files += ["libqwayland.so", "libqwayland-generic.so"]  # one plugin, several keys
    for folder in folders:
        for file_name in files:
            if (folder / file_name).is_file():
                return plugins, folder / file_name
    return plugins, None


def _libraries_problem(platform: str, missing: list[MissingLibrary]) -> _Problem:
    return _Problem(
        _missing_message(f"Qt's {platform} platform plugin", missing), needs_display=False
    )


def _missing_message(needer: str, missing: list[MissingLibrary]) -> str:
    own = [library.name for library in missing if _OWN_LIBRARY.match(library.name)]
    if own:
        return (
            f"The window cannot open: {needer} cannot load Qt's own {_and(own)}; the "
            "installation is incomplete: reinstall reader."
        )
    names = [library.name for library in missing]
    packages = list(dict.fromkeys(filter(None, map(debian_package, names))))
    damaged = any(library.damaged for library in missing)
    one = len(missing) == 1
    state = ("is" if one else "are") + (" missing or damaged" if damaged else " not installed")
    verb = "reinstall" if damaged else "install"
    command = f"sudo apt install {'--reinstall ' if damaged else ''}{' '.join(packages)}"
    how = f"with `{command}` (Debian, Ubuntu)" if packages else "from your distribution"
    return (
        f"The window cannot open: {needer} needs {_and(names)}, which {state}; "
        f"{verb} {'it' if one else 'them'} {how}, {WITHOUT_A_WINDOW}."
    )


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def import_failure(error: ImportError) -> str:
    """The message for an ImportError of PySide6, nearly always a system library
    Qt links to that is missing (libGL.so.1 on a server image)."""
    match = _DLOPEN_ERROR.search(str(error))
    if match and ".so" in match.group(1):
        damaged = "cannot open shared object file" not in match.group(2)
        return _missing_message("Qt", [MissingLibrary(Path(match.group(1)).name, damaged)])
    return f"Qt cannot be loaded ({error}); reinstall reader."
