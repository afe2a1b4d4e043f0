"""Shared fixtures: a private library per test, and small generated documents."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pymupdf
import pytest
from hypothesis import settings

from reader.library import Library

PROJECT_ROOT = Path(__file__).resolve().parents[1]
CORPUS = PROJECT_ROOT.parent / "shared" / "corpus"

# The suite runs the same generated examples every time, so a red run is the change's
# doing and can be repeated; HYPOTHESIS_PROFILE=explore searches far wider and at random.
settings.register_profile("suite", derandomize=True, deadline=None)
settings.register_profile("explore", max_examples=5000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


@pytest.fixture(autouse=True)
def reader_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own library folder; nothing touches the user's."""
    home = tmp_path / "reader-home"
    monkeypatch.setenv("READER_HOME", str(home))
    return home


@pytest.fixture
def library(reader_home: Path) -> Library:
    with Library() as opened:
        yield opened


PdfMaker = Callable[..., Path]


@pytest.fixture
def make_pdf(tmp_path: Path) -> PdfMaker:
    """Write a PDF whose pages hold the given paragraphs.

    ``pages`` is a list of pages, each a list of paragraphs (strings, wrapped
    into a text box) or ``(text, fontsize)`` pairs for headings. ``toc`` is
    passed to ``set_toc``.
    """

    def make(
        pages: Sequence[Sequence[str | tuple[str, float]]],
        name: str = "doc.pdf",
        toc: list[list] | None = None,
        **save_options: object,
    ) -> Path:
        document = pymupdf.open()
        for paragraphs in pages:
            page = document.new_page(width=595, height=842)
            y = 72.0
            for paragraph in paragraphs:
                text, size = (paragraph, 11.0) if isinstance(paragraph, str) else paragraph
                rect = pymupdf.Rect(72, y, 523, 800)
                left = page.insert_textbox(rect, text, fontsize=size, fontname="helv")
                used = rect.height - left if left >= 0 else rect.height
                y += used + size * 1.6
        if toc:
            document.set_toc(toc)
        path = tmp_path / name
        document.save(path, **save_options)
        document.close()
        return path

    return make


@dataclass(frozen=True)
class Scan:
    path: Path  # the image-only PDF, as a scanner makes it
    original: Path  # the text PDF it was rendered from: where every word really is


@pytest.fixture
def make_scan(make_pdf, tmp_path: Path):
    """An image-only PDF of the given pages (as ``make_pdf`` takes them), each
    rendered at ``dpi`` into a page of the same size, with the text PDF it came from."""

    def make(pages, name: str = "scan.pdf", dpi: int = 300) -> Scan:
        original = make_pdf(pages, name=f"original-{name}")
        with pymupdf.open(original) as text, pymupdf.open() as scan:
            for page in text:
                image = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
                scanned = scan.new_page(width=page.rect.width, height=page.rect.height)
                scanned.insert_image(scanned.rect, pixmap=image)
            scan.save(tmp_path / name, deflate=True)
        return Scan(tmp_path / name, original)

    return make


@pytest.fixture
def make_file(tmp_path: Path) -> Callable[[str, bytes], Path]:
    def make(name: str, data: bytes) -> Path:
        path = tmp_path / name
        path.write_bytes(data)
        return path

    return make


# The Debian package that brings each tool the window and installer tests drive.
TOOL_PACKAGES = {
    "Xvfb": "xvfb",
    "xvfb-run": "xvfb",
    "xauth": "xauth",
    "weston": "weston",
    "desktop-file-validate": "desktop-file-utils",
    "unshare": "util-linux",
    "qemu-x86_64": "qemu-user",
    "objdump": "binutils",
}


def required_tool(name: str) -> str:
    """A program the window and installer tests drive: .ci/run installs them all, so
    in CI a missing one fails; elsewhere its test is skipped with the command that
    installs it."""
    import shutil

    path = shutil.which(name)
    if path:
        return path
    message = f"{name} is not installed: sudo apt install {TOOL_PACKAGES.get(name, name)}"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def corpus_dir() -> Path:
    """The shared corpus; required in CI, skipped with a reason elsewhere."""
    if CORPUS.is_dir():
        return CORPUS
    if os.environ.get("CI"):
        pytest.fail(f"the shared corpus is missing at {CORPUS}")
    pytest.skip(f"the shared corpus is not at {CORPUS}")
