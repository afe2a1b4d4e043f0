"""The Linux archive: model weights stored as they are, everything else compressed,
and one .tar.gz that Python's tarfile, GNU tar and gzip all read whole."""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import tarfile
from pathlib import Path

import pytest

BUILD_SCRIPT = Path(__file__).resolve().parents[2] / "packaging" / "build.py"


def load_build_script():
    spec = importlib.util.spec_from_file_location("reader_build_script", BUILD_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    """A small bundle: text, and a "model" whose bytes compress as well as text does,
    so that they stand in the archive as they are only if they were stored."""
    root = tmp_path / "dist" / "reader"
    (root / "models").mkdir(parents=True)
    (root / "_internal").mkdir()
    (root / "reader").write_text("#!/bin/sh\necho reader\n" * 2000, encoding="utf-8")
    (root / "_internal" / "notes.txt").write_text("the same line again\n" * 50_000)
    (root / "models" / "tiny.gguf").write_bytes(b"GGUF" + b"weights " * 375_000)
    (root / "models" / "after.txt").write_text("compressed once more\n" * 20_000)
    return root


def digests(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_the_archive_stores_weights_as_they_are_and_unpacks_whole(bundle: Path, tmp_path: Path):
    build = load_build_script()
    archive = build.make_archive(bundle, tmp_path)
    weights = (bundle / "models" / "tiny.gguf").read_bytes()
    packed = archive.read_bytes()

    # Stored: the weights' bytes stand in the archive as they are, cut only where a
    # stored deflate block ends (every few KiB); compressed, they would take 1%.
    assert weights[500_000:501_000] in packed
    assert weights[2_500_000:2_501_000] in packed
    texts = sum(path.stat().st_size for path in bundle.rglob("*.txt"))
    assert len(weights) < len(packed) < len(weights) + texts / 10
    # Compressed: the text around the weights is not stored as is.
    assert b"the same line again\n" * 100 not in packed
    assert b"compressed once more\n" * 100 not in packed

    with tarfile.open(archive, "r:gz") as tar:
        python_read = tmp_path / "python"
        tar.extractall(python_read, filter="tar")
    assert digests(python_read / "reader") == digests(bundle)

    # The archive is for Linux, where tar and gzip are always there: their absence
    # fails the test rather than skipping half of it.
    subprocess.run(["gzip", "--test", str(archive)], check=True)
    gnu_read = tmp_path / "gnu"
    gnu_read.mkdir()
    subprocess.run(["tar", "-xzf", str(archive), "-C", str(gnu_read)], check=True)
    assert digests(gnu_read / "reader") == digests(bundle)
