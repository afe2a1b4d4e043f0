"""The corpus suite: real documents from ../shared/corpus (read only)."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from reader.ingest import read_document
from reader.ingest.layout import page_text_with_boxes
from reader.library import Library
from reader.records import Document
from reader.verify import DocumentVerifier
from tests.conftest import corpus_dir

pytestmark = pytest.mark.corpus

PASSWORDS = {
    "pdfjs-issue21579-unicode-password.pdf": "p\u00e4ssw\u00f6rt",
    "pdfjs-saslprep-r6-unicode-password.pdf": "SaSLprep",
    "pdfminer-aes-256-r6.pdf": "usersecret",
    "pdfplumber-password-example.pdf": "test",
    "pypdf-libreoffice-writer-password.pdf": "openpassword",
    "pypdf-r2-user-password-rc4-40.pdf": "asdfzxcv",
    "pypdf-r6-user-password-aes256.pdf": "asdfzxcv",
}


def reader_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reader.cli", *args], capture_output=True, text=True
    )


@pytest.mark.slow
def test_every_corpus_file_ingests_or_gives_a_one_line_reason():
    corpus = corpus_dir()
    files = sorted((corpus / "pdf").iterdir()) + sorted((corpus / "text").iterdir())
    # Without OCR: test_scanned.py reads the scanned files, once, each in its language.
    completed = reader_cli("ingest", "--json", "--ocr", "never", *map(str, files))
    assert "Traceback" not in completed.stderr
    results = [json.loads(line) for line in completed.stdout.splitlines()]
    assert [r["path"] for r in results] == [str(f) for f in files]
    errors = [r for r in results if "error" in r]
    for result in errors:
        assert "\n" not in result["error"]
    # Stderr holds progress, warnings and the summary, where each failure is
    # exactly one line naming the file and the reason.
    lines = completed.stderr.splitlines()
    assert all(line.startswith(("ingest: ", "  warning: ", "  refused: ")) for line in lines), lines
    refused = [line for line in lines if line.startswith("  refused: ")]
    assert len(refused) == len(errors)
    assert {line.split(": ")[1] for line in refused} == {r["path"] for r in errors}
    assert completed.returncode == (2 if errors else 0)
    failed = {Path(r["path"]).name for r in errors}
    # The broken, encrypted-without-password and (without OCR) scanned files fail,
    # and only they; a scanned file's reason says to read it by OCR.
    scanned = {
        "pdfplumber-issue-203-scanned-chinese.pdf",
        "pymupdf-test_3863-scanned-german-form-8p.pdf",
        "pymupdf-test_4090-scanned-statement-5p.pdf",
    }
    assert all("--ocr auto" in r["error"] for r in errors if Path(r["path"]).name in scanned), (
        errors
    )
    expected_failures = {
        *scanned,
        "pdfjs-GHOSTSCRIPT-698804-1-fuzzed-zero-pages.pdf",
        "pdfjs-PDFBOX-3148-2-fuzzed-repaired.pdf",
        "pdfjs-poppler-67295-0-bogus-pagecount.pdf",
        "pdfjs-poppler-742-0-fuzzed-unopenable.pdf",
        "pdfjs-poppler-85140-0-unopenable.pdf",
        "pdfplumber-empty-zero-bytes.pdf",
        "qpdf-not-even-a-pdf-file.pdf",
        "pymupdf-type3font-no-usable-text.pdf",
        *PASSWORDS,
    }
    assert failed == expected_failures
    # The library still opens and holds every success.
    listed = json.loads(reader_cli("list", "--json").stdout)
    assert len(listed) == len({r["doc_id"] for r in results if "error" not in r})


def test_encrypted_corpus_pdfs_open_with_their_passwords(library):
    corpus = corpus_dir()
    for name, password in PASSWORDS.items():
        result = library.ingest(corpus / "pdf" / name, password=password)
        assert result.chars > 0, name


def test_a_password_as_written_opens_a_pdf_that_wants_it_saslprepped(library):
    """AES-256 PDFs compare a password after SASLprep; a user types it as written."""
    path = corpus_dir() / "pdf" / "pdfjs-saslprep-r6-unicode-password.pdf"
    assert library.ingest(path, password="S\u00aaSL\u00adprep").chars > 0


def test_page_geometry_rebuilds_the_canonical_text_exactly():
    corpus = corpus_dir()
    names = [
        "pdfjs-tracemonkey-twocolumn-ligatures.pdf",
        "pdfminer-issue-1061-ieee-twocolumn-ligatures.pdf",
        "pymupdf-test-E+A-english-arabic.pdf",
        "pdfjs-issue16538-japanese.pdf",
        "pdfplumber-nics-background-checks-rotated.pdf",
        "pdfjs-freeculture-352p.pdf",
    ]
    for name in names:
        path = corpus / "pdf" / name
        document, _ = read_document(path)
        with pymupdf.open(path) as pdf:
            for number in range(1, min(pdf.page_count, 12) + 1):
                start, end = document.page_range(number)
                expected = document.text[start:end].removesuffix("\n\n")
                if number in document.ocr_boxes:  # an image page (a cover) read by OCR
                    assert len(document.ocr_boxes[number]) == len(expected), (name, number)
                    continue
                text, boxes = page_text_with_boxes(pdf[number - 1])
                assert text == expected, (name, number)
                assert len(boxes) == len(text)


def test_outline_headings_name_the_chunks_of_a_long_book(library):
    path = corpus_dir() / "pdf" / "pdfjs-freeculture-352p.pdf"
    result = library.ingest(path)
    assert result.pages == 352
    chunks = library.chunks(result.doc_id)
    named = [c for c in chunks if c.heading]
    assert len(named) > 0.9 * len(chunks)
    assert any(c.heading == ('"PIRACY"', "Chapter 1: Creators") for c in chunks)
    assert any(c.heading[-1:] == ("Recorded Music",) and len(c.heading) == 3 for c in chunks)
    assert all(c.page_start <= c.page_end <= 352 for c in chunks)


def test_ligature_pdf_text_has_letters_not_ligature_glyphs(library):
    result = library.ingest(corpus_dir() / "pdf" / "pdfjs-copy_paste_ligatures.pdf")
    text = library.document(result.doc_id).text
    assert "ffffiflffifflst" in text
    assert not re.search("[\ufb00-\ufb06]", text)


def test_quotes_broken_across_line_ends_verify_exactly(library):
    path = corpus_dir() / "pdf" / "gitenberg-pride-and-prejudice-pandp12p-latex-273p.pdf"
    document = library.resolve(str(path))
    verifier = library.verifier(document.id)
    result = verifier.verify("in possession of a good fortune, must be in want of a wife")
    assert result.status == "exact"
    assert document.text[result.start : result.end] == (
        "in posses-\nsion of a good fortune, must be in want of a wife"
    )
    assert result.page == 1


def test_latin1_and_bom_texts_decode(library):
    corpus = corpus_dir() / "text"
    latin = library.resolve(
        str(corpus / "gutenberg-infantry-drill-regulations-1911-20866-8-latin1.txt")
    )
    assert "\ufffd" not in latin.text
    bom = library.resolve(str(corpus / "gutenberg-pride-and-prejudice-1342-0-utf8-bom.txt"))
    assert not bom.text.startswith("\ufeff")
    rfc = library.resolve(str(corpus / "rfc2616-http11-verbatim-paginated.txt"))
    assert rfc.pages > 100


def squad_cases(limit: int) -> list[tuple[str, str, int]]:
    data = json.loads((corpus_dir() / "qa" / "xquad.en.json").read_text(encoding="utf-8"))
    cases = []
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                answer = qa["answers"][0]
                cases.append((paragraph["context"], answer["text"], answer["answer_start"]))
    random.Random(7).shuffle(cases)
    return cases[:limit]


def squad_verifier(context: str) -> DocumentVerifier:
    from reader.ingest.chunking import chunk_text

    document = Document("q", "q", "/q", "text", context, [0], "test")
    return DocumentVerifier(document, chunk_text("q", context, [0], []))


def test_squad_gold_answers_verify_at_their_gold_offsets_even_when_damaged():
    rng = random.Random(11)
    for context, answer, gold in squad_cases(300):
        damaged = answer.replace("'", "\u2019").replace('"', "\u201d")
        damaged = re.sub(r"\s+", lambda m: rng.choice([" ", "\n", "  "]), damaged)
        damaged = damaged.upper() if rng.random() < 0.5 else damaged
        verifier = squad_verifier(context)
        spans = verifier.find_all(damaged)
        assert (gold, gold + len(answer)) in spans, (answer, damaged)
        result = verifier.verify(damaged)
        assert result.status == "exact"
        assert (result.start, result.end) == spans[0]
        assert result.occurrences == len(spans)


def test_squad_answers_with_a_changed_number_never_verify():
    checked = 0
    for context, answer, _ in squad_cases(1200):
        digits = re.search(r"\d", answer)
        if not digits:
            continue
        changed_digit = str((int(digits.group()) + 1) % 10)
        changed = answer[: digits.start()] + changed_digit + answer[digits.end() :]
        if changed.lower() in context.lower():
            continue
        result = squad_verifier(context).verify(changed)
        assert result.status == "miss", (answer, changed, result)
        checked += 1
    assert checked > 50


def test_library_opens_after_everything(library):
    with Library() as reopened:
        assert isinstance(reopened.documents(), list)
