"""One llama.cpp for every x86-64 processor, for the bundle.

``pip install`` compiles llama-cpp-python for the machine it runs on
(``-march=native``): on a build machine with AVX-512 that code dies with SIGILL
on most laptops. The bundle instead carries a llama-cpp-python built here with
pinned flags: no code for the build machine (``GGML_NATIVE=OFF``), and one CPU
library per processor generation (``GGML_CPU_ALL_VARIANTS=ON``) loaded at run
time (``GGML_BACKEND_DL=ON``), of which ggml picks the best this processor runs
(reader loads them: ``reader.models.llama_runtime.load_cpu_backends``).

The wheel is built once per llama-cpp-python version and kept in
``~/.cache/reader-build`` (``READER_BUILD_CACHE`` moves it); the build takes
about as long as pip's own compile, several times over for the variants.
``check_portable`` fails the build if a library outside the variants holds
AVX-512 code (an instruction on a ``zmm`` register).

    python packaging/portable_llama.py [--check DIR]

builds (or finds) the wheel and prints the folder that holds its ``llama_cpp``;
with ``--check``, checks the ``llama_cpp/lib`` folder under DIR instead.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

PORTABLE_CMAKE_ARGS = "-DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON"
# An AVX-512 instruction names a zmm register (or a mask register k1-k7).
_AVX512 = re.compile(r"%zmm\d|%k[1-7]\b|%[xy]mm(1[6-9]|2\d|3[01])\b")
_VARIANT = re.compile(r"ggml-cpu-[\w-]+\.(so|dll|dylib)$")


class PortableBuildError(Exception):
    pass


def cache_dir() -> Path:
    return Path(os.environ.get("READER_BUILD_CACHE", Path.home() / ".cache" / "reader-build"))


def applies() -> bool:
    """Variants are built for x86-64 Linux, where this is built and tested (Windows
    and macOS bundles keep pip's own build for now: see packaging/README.md)."""
    import platform

    return sys.platform.startswith("linux") and platform.machine().lower() in ("x86_64", "amd64")


def portable_wheel(version: str) -> Path:
    """The portable wheel of llama-cpp-python ``version``, built if not cached."""
    folder = cache_dir() / f"llama-cpp-python-{version}-portable"
    wheels = sorted(folder.glob("llama_cpp_python-*.whl"))
    if wheels:
        return wheels[-1]
    folder.mkdir(parents=True, exist_ok=True)
    print(f"building llama-cpp-python {version} for every x86-64 processor ({PORTABLE_CMAKE_ARGS})")
    print("this takes a long time once; the wheel is kept in", folder, flush=True)
    environment = dict(os.environ, CMAKE_ARGS=PORTABLE_CMAKE_ARGS, FORCE_CMAKE="1")
    command = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-binary",
        "llama-cpp-python",
        "--no-cache-dir",
        "-w",
        str(folder),
        f"llama-cpp-python=={version}",
    ]
    if subprocess.run(command, env=environment).returncode != 0:
        raise PortableBuildError("building llama-cpp-python failed; pip's messages are above.")
    wheels = sorted(folder.glob("llama_cpp_python-*.whl"))
    if not wheels:
        raise PortableBuildError(f"pip built no llama-cpp-python wheel in {folder}")
    return wheels[-1]


def staged_llama(work: Path) -> Path:
    """A folder holding the portable ``llama_cpp`` package (its Python code and its
    libraries), to put before site-packages when the bundle is collected."""
    version = importlib.metadata.version("llama-cpp-python")
    wheel = portable_wheel(version)
    target = work / "portable-llama"
    if target.exists():
        shutil.rmtree(target)
    command = [sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(target)]
    if subprocess.run([*command, str(wheel)]).returncode != 0:
        raise PortableBuildError(f"installing {wheel.name} into {target} failed")
    # The wheel installs the CPU variants as data, in the prefix's bin/ (a venv's
    # bin/ when pip installs it there): they go beside libggml, where the bundle
    # collects llama_cpp's libraries and reader looks for them.
    lib_dir = target / "llama_cpp" / "lib"
    for folder in (target / "bin", target / "Scripts", target / "lib"):
        for variant in folder.glob("*ggml-cpu-*") if folder.is_dir() else ():
            if _VARIANT.search(variant.name):
                shutil.move(str(variant), lib_dir / variant.name)
    check_portable(lib_dir)
    return target


def avx512_instructions(library: Path) -> int:
    """How many instructions of ``library`` use AVX-512 registers (by objdump)."""
    objdump = shutil.which("objdump")
    if objdump is None:
        raise PortableBuildError("objdump is not installed (sudo apt install binutils)")
    disassembly = subprocess.run(
        [objdump, "-d", "--no-show-raw-insn", str(library)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sum(1 for line in disassembly.splitlines() if _AVX512.search(line))


def check_portable(lib_dir: Path) -> list[Path]:
    """Fail unless ``lib_dir`` has CPU variants and no AVX-512 code outside them;
    return the variants."""
    libraries = sorted(
        path
        for path in lib_dir.iterdir()
        if path.is_file() and re.search(r"\.(so|dll|dylib)(\.\d+)*$", path.name)
    )
    variants = [path for path in libraries if _VARIANT.search(path.name)]
    if not variants:
        raise PortableBuildError(
            f"{lib_dir} has no per-processor CPU libraries (libggml-cpu-*): this llama.cpp "
            "was built for one processor, not with " + PORTABLE_CMAKE_ARGS
        )
    for library in libraries:
        if library in variants:
            continue
        found = avx512_instructions(library)
        if found:
            raise PortableBuildError(
                f"{library.name} holds {found} AVX-512 instructions outside the CPU "
                "variants: it would die with SIGILL on processors without AVX-512"
            )
    return variants


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("build") / "work")
    parser.add_argument("--check", type=Path, help="check DIR/llama_cpp/lib only")
    options = parser.parse_args()
    try:
        if options.check:
            variants = check_portable(options.check / "llama_cpp" / "lib")
            print(f"portable: {len(variants)} CPU variants, no AVX-512 outside them")
        else:
            print(staged_llama(options.work.resolve()))
    except (PortableBuildError, subprocess.CalledProcessError) as error:
        print(f"portable llama.cpp: {error}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
