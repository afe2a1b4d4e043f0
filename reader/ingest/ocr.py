"""Optical character recognition for pages without a usable text layer.

The engine is Tesseract, run as its command-line program on a page image that
PyMuPDF renders (``render_for_ocr``). Chosen by measurement on real corpus pages
(``bench/ocr.py``): on pages of prose scanned at 300 dpi it got 0.2% of the
characters wrong where an ONNX engine whose models ship in a wheel (RapidOCR)
got 12% wrong, and took 2.5 s a page on one core where RapidOCR took 7.5 s on
two; it reads English, German and Chinese with language files of a few
megabytes; and it reports what reader needs to keep the page's promise: a box
for every character and a confidence for every word.

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

from reader.config import load_settings
from reader.errors import IngestError, ReaderError
from reader.ingest.hocr import OcrPage, parse_hocr
from reader.ingest.ocr_languages import SCRIPT_LANGUAGES, languages_for_script
from reader.ingest.page_image import OCR_DPI, PageImage, render_for_ocr, render_page_image

if TYPE_CHECKING:
    import pymupdf


OCR_MODES = ("auto", "always", "never")
# The language "auto" reads a page in the languages of the script Tesseract detects
# on it, among those installed (``languages_for_script``).
AUTO_LANGUAGE = "auto"
DEFAULT_LANGUAGES = (AUTO_LANGUAGE,)
# A page whose words were read with a mean confidence below this is unreliable: it
# is said so and, in ``auto`` languages, its script is detected. On the corpus, the
# Chinese scan's pages had 20 to 33 read in English and 88 to 91 in Chinese; the
# printed scans in English and Dutch 62 to 92; the German form's typed pages 72 to
# 78, its handwritten ones 46 to 53.
UNRELIABLE_BELOW = 60.0
# A page holding fewer visible characters than this in its text layer is read by
# OCR in ``auto`` mode (a scanned page often carries a stray page number or stamp).
MIN_TEXT_LAYER_CHARS = 20
# What glyphs without a Unicode mapping become: U+FFFD and control characters.
_UNMAPPED = re.compile(r"[\ufffd\x00-\x1f]")
# A page may be upside down or sideways when less than this share of its text was
# read with confidence (``OcrPage.confident_share``): its orientation is then
# detected and, if turned, it is read again turned upright. Detection takes as
# long as reading, so it is kept for pages that need it: on the corpus, pages
# read turned had at most 5%, upright print 97%, the poorest scan of a form 14%.
ORIENTATION_CHECK_BELOW = 0.10
TESSERACT_VARIABLE = "READER_TESSERACT"
# Tesseracts run side by side, one page each.
OCR_WORKERS = 2
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
                "give codes such as eng, deu or chi_sim, joined with +, or auto."
            )
        if AUTO_LANGUAGE in self.languages and len(self.languages) > 1:
            raise ReaderError(
                f"OCR languages '{'+'.join(self.languages)}' mix auto with languages: give "
                "auto alone (the language of each page's script) or the languages alone."
            )

    @property
    def automatic(self) -> bool:
        """Whether each page is read in the languages of the script detected on it."""
        return self.languages == (AUTO_LANGUAGE,)

    @classmethod
    def parse(
        cls, mode: str = "auto", languages: str | Sequence[str] = AUTO_LANGUAGE
    ) -> OcrSettings:
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
        """Run Tesseract on an image given on stdin; its stdout. Killed when ``stop`` is set."""
        if stop is not None and stop.is_set():
            raise OcrStopped("OCR stopped.")
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
        # A configured program that is not there is no Tesseract: ``auto`` then
        # keeps the text pages, and the message names the variable.
        found = shutil.which(configured)
        return Tesseract(found, os.environ.get("TESSDATA_PREFIX")) if found else None
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
    """Tesseract with every language in ``languages``, or a message saying what to install;
    for ``auto``, with a language for Latin script."""
    engine = find_tesseract()
    configured = os.environ.get(TESSERACT_VARIABLE)
    if engine is None and configured:
        raise OcrUnavailableError(
            f"{TESSERACT_VARIABLE} names {configured}, which is not a program: point it at "
            "Tesseract, or unset it to use the installed one (sudo apt install tesseract-ocr)."
        )
    if engine is None:
        raise OcrUnavailableError(
            "OCR needs Tesseract, which is not installed: install it "
            "(sudo apt install tesseract-ocr; on macOS brew install tesseract) "
            "or use reader's installer, which includes it."
        )
    installed = engine.languages()
    if tuple(languages) == (AUTO_LANGUAGE,):
        if languages_for_script("Latin", installed):
            return engine
        languages = SCRIPT_LANGUAGES["Latin"][:1]
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
    # Whitespace split off (split() takes what isspace() does), the control
    # characters left are those that are not whitespace.
    visible = "".join(page_text.split())
    unmapped = len(_UNMAPPED.findall(visible))
    if len(visible) >= MIN_TEXT_LAYER_CHARS and unmapped <= 0.5 * len(visible):
        return False
    try:
        return bool(page.get_images(full=False)) or bool(page.get_drawings())
    except Exception:
        return True


@dataclass(slots=True)
class PageReading:
    """One page as OCR read it, and how: in which languages, the script Tesseract
    detected on it when that chose the languages (else ""), the resolution it was
    read at and the one it would have been read at within no pixel budget."""

    number: int  # 0-based
    page: OcrPage
    languages: tuple[str, ...]
    script: str
    dpi: int
    wanted_dpi: int

    @property
    def reduced(self) -> bool:
        return self.dpi < self.wanted_dpi


def read_pages(
    document: pymupdf.Document,
    numbers: Sequence[int],
    engine: Tesseract,
    languages: Sequence[str],
    waiting: Callable[[int], None],
    workers: int | None = None,
) -> Iterator[PageReading]:
    """Read the 0-based pages ``numbers`` by OCR, in ``languages`` or, for ``("auto",)``,
    in those of each page's script; yields each page's reading in order.

    In ``auto``, a page is read in the languages of Latin script, and a page read
    unreliably (``UNRELIABLE_BELOW``) has its script detected and is read again in
    that script's languages, keeping the more confident reading: detection takes as
    long as reading, and on a clean Latin page it is not needed.

    Pages are rendered here, in the thread that owns ``document`` (PyMuPDF is not
    thread-safe), and read by up to ``workers`` Tesseract processes at once (by
    default ``OCR_WORKERS``); one page more is rendered ahead, so the Tesseracts
    never wait for it. ``waiting(done)`` is called about ten times a second while
    a page is read; if it raises (the user cancelled), the running Tesseracts are
    killed and the exception goes on.
    """
    workers = max(1, workers or OCR_WORKERS)
    automatic = tuple(languages) == (AUTO_LANGUAGE,)
    installed = engine.languages()
    first_languages = languages_for_script("Latin", installed) if automatic else tuple(languages)
    stop = threading.Event()
    pending: deque[tuple[int, PageImage, float, Future[str]]] = deque()
    done = 0
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        queue = list(numbers)
        while queue or pending:
            while queue and len(pending) <= workers:
                number = queue.pop(0)
                started = time.perf_counter()
                image = render_for_ocr(document[number])
                future = pool.submit(
                    engine.run, _read_arguments(first_languages, image), image.data, stop
                )
                pending.append((number, image, started, future))
            number, image, started, future = pending.popleft()
            first = parse_hocr(_wait(future, waiting, done), image.to_page)
            reading = PageReading(number, first, first_languages, "", image.dpi, image.wanted_dpi)
            may_be_turned = first.confident_share < ORIENTATION_CHECK_BELOW or first.sideways
            may_be_another_script = automatic and first.confidence < UNRELIABLE_BELOW
            if (may_be_turned or may_be_another_script) and "osd" in installed:
                _read_again(
                    reading,
                    document[number],
                    engine,
                    image,
                    may_be_turned,
                    installed if automatic else (),
                    partial(_submit_and_wait, pool, waiting, done),
                    stop,
                )
            reading.page.seconds = time.perf_counter() - started
            done += 1
            yield reading
    finally:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)


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


def _read_again(
    reading: PageReading,
    page: pymupdf.Page,
    engine: Tesseract,
    upright: PageImage,
    may_be_turned: bool,
    installed: Sequence[str],
    run: Callable[[tuple], str],
    stop: threading.Event,
) -> None:
    """Detect the page's orientation and script and, if it is turned (``may_be_turned``)
    or in a script read in other languages of ``installed`` (empty: the languages are
    the user's), read it again turned upright in those languages; ``reading`` then
    takes the better of the two readings."""
    # Orientation detection reads OCR_DPI: on a 200 dpi scan it turned a sideways
    # page the wrong way, which it read right at 300 dpi.
    image = upright if upright.dpi == OCR_DPI else render_page_image(page, OCR_DPI, False, 0)
    try:
        detect = ["--dpi", str(image.dpi), "--psm", "0"]
        detected = run((engine.run, detect, image.data, stop))
    except OcrStopped:
        raise
    except IngestError:
        return  # too little text to tell: keep the page as read
    found_turn = _ROTATE.search(detected) if may_be_turned else None
    turn = int(found_turn.group(1)) % 360 if found_turn else 0
    found_script = _SCRIPT.search(detected)
    script = found_script.group(1) if found_script and installed else ""
    languages = languages_for_script(script, installed) or reading.languages
    if not turn and languages == reading.languages:
        return
    first = reading.page
    image = render_for_ocr(page, turn)
    again = parse_hocr(
        run((engine.run, _read_arguments(languages, image), image.data, stop)), image.to_page
    )
    again.turned = turn
    if languages != reading.languages:
        # Languages split a page into words differently (Chinese is read nearly a
        # character a word), so their readings compare by confidence alone.
        better = again.confidence > first.confidence
    else:
        # Nearly as good, and read across its lines where the first ran down them:
        # only the turned reading has a box for each character.
        better = _quality(again) > _quality(first) or (
            first.sideways and not again.sideways and _quality(again) >= 0.95 * _quality(first)
        )
    if better:
        if languages != reading.languages:
            reading.script = script
        reading.page, reading.languages = again, languages
        reading.dpi, reading.wanted_dpi = image.dpi, image.wanted_dpi


def _read_arguments(languages: Sequence[str], image: PageImage) -> list[str]:
    # Tesseract reads a page worse when it is told a wrong resolution (a PNG of
    # MuPDF's says 96 dpi): the image carries the right one, and so does --dpi.
    return [
        *("-l", "+".join(languages), "--dpi", str(image.dpi), "--psm", "3"),
        *("-c", "hocr_char_boxes=1", "hocr"),
    ]


def _quality(page: OcrPage) -> float:
    return page.confidence * len(page.words())


_ROTATE = re.compile(r"Rotate:\s*(\d+)")
_SCRIPT = re.compile(r"Script:\s*(\w+)")


def ocr_settings(mode: str | None = None, languages: str | None = None) -> OcrSettings:
    """OCR settings: the given values over the user's settings."""
    settings = load_settings()
    return OcrSettings.parse(mode or settings.ocr_mode, languages or settings.ocr_languages)
