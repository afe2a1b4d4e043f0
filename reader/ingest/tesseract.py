"""The Tesseract program: finding it (configured, bundled or installed), its
version and languages, and running it on one page image.

One Tesseract runs on one core (``OMP_THREAD_LIMIT=1``): its own threads gain
little on a page, and two pages read side by side use two cores fully. A run
is killed when the ingest is stopped or a page takes longer than
``TIMEOUT_PER_PAGE``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from reader.errors import IngestError, ReaderError
from reader.ingest.ocr_languages import (
    AUTO_LANGUAGE,
    LANGUAGE_CODE,
    SCRIPT_LANGUAGES,
    languages_for_script,
)

TESSERACT_VARIABLE = "READER_TESSERACT"
TIMEOUT_PER_PAGE = 300.0


class OcrUnavailableError(IngestError):
    """Tesseract or a language file it needs is not installed."""


class OcrStopped(ReaderError):
    """Reading was stopped (the ingest was cancelled) while Tesseract ran."""


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
        deadline = time.monotonic() + TIMEOUT_PER_PAGE
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
                    f"Tesseract took more than {TIMEOUT_PER_PAGE:.0f} s on one page and was "
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
    return sorted(line.strip() for line in lines[1:] if LANGUAGE_CODE.fullmatch(line.strip()))
