"""Optical character recognition for pages without a usable text layer.

The engine is Tesseract, run as its command-line program on a page image that
PyMuPDF renders at ``OCR_DPI``. Chosen by measurement on real corpus pages
(``bench/ocr.py``): at 300 dpi its character error rate was under 1% where an
ONNX engine whose models ship in a wheel (RapidOCR) was over 10%, at a quarter
of the time per page; it reads English, German and Chinese with language files
of a few megabytes; and it reports what reader needs to keep the page's promise:
a box for every character and a confidence for every word.

Nothing is downloaded: the program and its language files come from the system
(``apt install tesseract-ocr``) or from the packaged bundle. One Tesseract runs
on one core (``OMP_THREAD_LIMIT=1``): Tesseract's own threads gain little on a
page, and two pages read side by side use two cores fully.

What Tesseract reads becomes page text with boxes in ``reader.ingest.hocr``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING

from reader.errors import IngestError, ReaderError
from reader.ingest.hocr import OcrPage, PixelsToPage, parse_hocr

if TYPE_CHECKING:
    import pymupdf


OCR_MODES = ("auto", "always", "never")
DEFAULT_LANGUAGES = ("eng",)
OCR_DPI = 300
# A page holding fewer visible characters than this in its text layer is read by
# OCR in ``auto`` mode (a scanned page often carries a stray page number or stamp).
MIN_TEXT_LAYER_CHARS = 20
# Below this mean word confidence a page may be upside down or sideways: its
# orientation is detected and, if turned, it is read again turned upright.
ORIENTATION_CHECK_BELOW = 70.0
TESSERACT_VARIABLE = "READER_TESSERACT"
_TIMEOUT_PER_PAGE = 300.0

Box = tuple[float, float, float, float]


class OcrUnavailableError(IngestError):
    """Tesseract or a language file it needs is not installed."""


class OcrStopped(ReaderError):
    """Reading was stopped (the ingest was cancelled) while Tesseract ran."""


@dataclass(frozen=True, slots=True)
class OcrSettings:
    """When pages are read by OCR (``mode``) and in which languages (Tesseract's codes)."""

    mode: str = "auto"
    languages: tuple[str, ...] = DEFAULT_LANGUAGES

    def __post_init__(self) -> None:
        if self.mode not in OCR_MODES:
            raise ReaderError(
                f"OCR mode '{self.mode}' is not one of {', '.join(OCR_MODES)}: choose one of them."
            )
        if not self.languages or not all(_LANGUAGE.fullmatch(code) for code in self.languages):
            raise ReaderError(
                f"OCR languages '{'+'.join(self.languages)}' are not Tesseract language codes: "
                "give codes such as eng, deu or chi_sim, joined with +."
            )

    @classmethod
    def parse(cls, mode: str = "auto", languages: str | Sequence[str] = "eng") -> OcrSettings:
        codes = languages.split("+") if isinstance(languages, str) else list(languages)
        return cls(mode, tuple(code.strip() for code in codes if code.strip()))

    @property
    def language_tag(self) -> str:
        return "+".join(self.languages)


_LANGUAGE = re.compile(r"[A-Za-z][A-Za-z0-9_]{1,30}")

# -- the engine ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tesseract:
    program: str
    tessdata: str | None  # None: the program's own default folder

    def environment(self) -> dict[str, str]:
        environment = dict(os.environ, OMP_THREAD_LIMIT="1")
        if self.tessdata:
            environment["TESSDATA_PREFIX"] = self.tessdata
        return environment

    def run(self, arguments: list[str], image: bytes, stop: threading.Event | None = None) -> str:
        """Run Tesseract on a PNG given on stdin; its stdout. Killed when ``stop`` is set."""
        try:
            process = subprocess.Popen(
                [self.program, "stdin", "stdout", *arguments],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.environment(),
            )
        except OSError as error:
            raise OcrUnavailableError(
                f"Tesseract could not be started ({error.strerror or error}): "
                "reinstall it (sudo apt install tesseract-ocr) or ingest with --ocr never."
            ) from None
        result: dict[str, bytes] = {}

        def communicate() -> None:
            result["out"], result["err"] = process.communicate(image)

        reader = threading.Thread(target=communicate, daemon=True)
        reader.start()
        deadline = time.monotonic() + _TIMEOUT_PER_PAGE
        while reader.is_alive():
            reader.join(0.05)
            if stop is not None and stop.is_set():
                process.kill()
                reader.join()
                raise OcrStopped("OCR stopped.")
            if time.monotonic() > deadline:
                process.kill()
                reader.join()
                raise IngestError(
                    f"Tesseract took more than {_TIMEOUT_PER_PAGE:.0f} s on one page and was "
                    "stopped: ingest the document with --ocr never, or split it."
                )
        if process.returncode != 0:
            message = result.get("err", b"").decode("utf-8", "replace").strip().splitlines()
            raise IngestError(
                f"Tesseract failed on a page ({message[-1][:160] if message else 'no message'}): "
                "ingest the document with --ocr never to keep its text layer only."
            )
        return result.get("out", b"").decode("utf-8", "replace")

    @property
    def version(self) -> str:
        return _version(self.program, self.tessdata)

    def languages(self) -> list[str]:
        return _languages(self.program, self.tessdata)


def find_tesseract() -> Tesseract | None:
    """Tesseract as configured, bundled, or installed; None if there is none."""
    configured = os.environ.get(TESSERACT_VARIABLE)
    if configured:
        return Tesseract(configured, os.environ.get("TESSDATA_PREFIX"))
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        program = Path(bundle) / "tesseract" / "tesseract"
        if program.exists():
            return Tesseract(str(program), str(Path(bundle) / "tesseract" / "tessdata"))
    program_path = shutil.which("tesseract")
    if program_path is None:
        return None
    return Tesseract(program_path, os.environ.get("TESSDATA_PREFIX"))


def require_tesseract(languages: Sequence[str]) -> Tesseract:
    """Tesseract with every language in ``languages``, or a message saying what to install."""
    engine = find_tesseract()
    if engine is None:
        raise OcrUnavailableError(
            "OCR needs Tesseract, which is not installed: install it "
            "(sudo apt install tesseract-ocr; on macOS brew install tesseract) "
            "or use reader's installer, which includes it."
        )
    installed = engine.languages()
    missing = [code for code in languages if code not in installed]
    if missing:
        packages = " ".join(f"tesseract-ocr-{code.replace('_', '-').lower()}" for code in missing)
        raise OcrUnavailableError(
            f"The OCR language {'+'.join(missing)} is not installed "
            f"(installed: {', '.join(installed) or 'none'}): install it "
            f"(sudo apt install {packages}) or choose an installed language."
        )
    return engine


@lru_cache(maxsize=8)
def _version(program: str, tessdata: str | None) -> str:
    try:
        output = subprocess.run(
            [program, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    match = re.search(r"tesseract\s+v?([\w.\-]+)", output.stdout + output.stderr)
    return match.group(1) if match else "unknown"


@lru_cache(maxsize=8)
def _languages(program: str, tessdata: str | None) -> list[str]:
    environment = dict(os.environ)
    if tessdata:
        environment["TESSDATA_PREFIX"] = tessdata
    try:
        output = subprocess.run(
            [program, "--list-langs"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            env=environment,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    lines = (output.stdout or output.stderr).splitlines()
    return sorted(line.strip() for line in lines[1:] if _LANGUAGE.fullmatch(line.strip()))


# -- reading a page -------------------------------------------------------------------


def page_needs_ocr(page: pymupdf.Page, page_text: str, mode: str) -> bool:
    """Whether ``mode`` reads this page by OCR: always, never, or (auto) when its text
    layer is missing or unusable and the page shows an image."""
    if mode == "always":
        return True
    if mode == "never":
        return False
    visible = [char for char in page_text if not char.isspace()]
    unmapped = sum(1 for char in visible if char == "\ufffd" or ord(char) < 32)
    if len(visible) >= MIN_TEXT_LAYER_CHARS and unmapped <= 0.5 * len(visible):
        return False
    try:
        return bool(page.get_images(full=False)) or bool(page.get_drawings())
    except Exception:
        return True


def read_pages(
    document: pymupdf.Document,
    numbers: Sequence[int],
    engine: Tesseract,
    languages: Sequence[str],
    waiting: Callable[[int], None],
    workers: int = 2,
    dpi: int = OCR_DPI,
) -> Iterator[tuple[int, OcrPage]]:
    """Read the 0-based pages ``numbers`` by OCR; yields ``(number, page)`` in order.

    Pages are rendered here, in the thread that owns ``document`` (PyMuPDF is not
    thread-safe), and read by up to ``workers`` Tesseract processes at once.
    ``waiting(done)`` is called about ten times a second while a page is read;
    if it raises (the user cancelled), the running Tesseracts are killed and the
    exception goes on.
    """
    stop = threading.Event()
    arguments = _read_arguments(languages)
    pending: deque[tuple[int, PixelsToPage, float, Future[str]]] = deque()
    done = 0
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        try:
            queue = list(numbers)
            while queue or pending:
                while queue and len(pending) < max(1, workers):
                    number = queue.pop(0)
                    image, to_page = _render(document[number], dpi, 0)
                    future = pool.submit(engine.run, arguments, image, stop)
                    pending.append((number, to_page, time.perf_counter(), future))
                number, to_page, started, future = pending.popleft()
                result = parse_hocr(_wait(future, waiting, done), to_page)
                if result.confidence < ORIENTATION_CHECK_BELOW or result.sideways:
                    result = _read_turned(
                        document[number],
                        engine,
                        languages,
                        dpi,
                        result,
                        partial(_submit_and_wait, pool, waiting, done),
                        stop,
                    )
                result.seconds = time.perf_counter() - started
                done += 1
                yield number, result
        finally:
            stop.set()


def _submit_and_wait(
    pool: ThreadPoolExecutor, waiting: Callable[[int], None], done: int, job: tuple
) -> str:
    return _wait(pool.submit(*job), waiting, done)


def _wait(future: Future[str], waiting: Callable[[int], None], done: int) -> str:
    while True:
        try:
            return future.result(timeout=0.1)
        except FutureTimeout:
            waiting(done)


def _read_turned(
    page: pymupdf.Page,
    engine: Tesseract,
    languages: Sequence[str],
    dpi: int,
    first: OcrPage,
    run: Callable[[tuple], str],
    stop: threading.Event,
) -> OcrPage:
    """The page read again turned upright, if orientation detection says it is turned
    and the turned reading is better; else ``first``."""
    if "osd" not in engine.languages():
        return first
    image, _ = _render(page, dpi, 0)
    try:
        found = _ROTATE.search(run((engine.run, ["--psm", "0"], image, stop)))
    except OcrStopped:
        raise
    except IngestError:
        return first  # too little text to tell: keep the page as read
    turn = int(found.group(1)) % 360 if found else 0
    if not turn:
        return first
    turned_image, to_page = _render(page, dpi, turn)
    turned = parse_hocr(run((engine.run, _read_arguments(languages), turned_image, stop)), to_page)
    turned.turned = turn
    return turned if _quality(turned) > _quality(first) else first


def _read_arguments(languages: Sequence[str]) -> list[str]:
    return ["-l", "+".join(languages), "--psm", "3", "-c", "hocr_char_boxes=1", "hocr"]


def _quality(page: OcrPage) -> float:
    return page.confidence * len(page.words())


_ROTATE = re.compile(r"Rotate:\s*(\d+)")


def _render(page: pymupdf.Page, dpi: int, turn: int) -> tuple[bytes, PixelsToPage]:
    import pymupdf

    matrix = pymupdf.Matrix(dpi / 72, dpi / 72).prerotate(turn)
    pixmap = page.get_pixmap(matrix=matrix, colorspace=pymupdf.csGRAY, alpha=False)
    bounds = (page.rect * matrix).irect
    return pixmap.tobytes("png"), PixelsToPage(page, matrix, pymupdf.Point(bounds.x0, bounds.y0))
