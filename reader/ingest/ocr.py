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

import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from reader.config import load_settings
from reader.errors import IngestError, ReaderError
from reader.ingest.hocr import OcrPage, parse_hocr
from reader.ingest.ocr_languages import AUTO_LANGUAGE, LANGUAGE_CODE, languages_for_script
from reader.ingest.page_image import OCR_DPI, PageImage, render_for_ocr, render_page_image
from reader.ingest.tesseract import (
    OcrStopped,
    Tesseract,
)

if TYPE_CHECKING:
    import pymupdf


OCR_MODES = ("auto", "always", "never")
# The languages are "auto" unless chosen (``AUTO_LANGUAGE``).
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
# Tesseracts run side by side, one page each.
OCR_WORKERS = 2

Box = tuple[float, float, float, float]


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
        if not self.languages or not all(LANGUAGE_CODE.fullmatch(code) for code in self.languages):
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
