"""Chinese questions on the corpus's Chinese PDFs, a text layer and a scan read by OCR:
the first evidence holds the answer and verifies, and a quote copied as printed (without
the spaces OCR puts beside digits and Latin letters) verifies where it is printed."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import reader.ingest.tesseract
from reader.answer import Answerer
from reader.ingest.ocr import OcrSettings
from reader.library import Library
from reader.text.normalize import normalize_key
from tests.conftest import corpus_dir

pytestmark = pytest.mark.corpus

REPORT = "pdfplumber-issue-67-chinese-report-22p.pdf"
SCAN = "pdfplumber-issue-203-scanned-chinese.pdf"


def needs_chinese_ocr() -> None:
    """.ci/run installs Tesseract and its Chinese, so in CI a missing one fails."""
    engine = reader.ingest.tesseract.find_tesseract()
    if engine is not None and "chi_sim" in engine.languages():
        return
    message = "Tesseract with chi_sim is not installed (sudo apt install tesseract-ocr-chi-sim)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Library, str]]:
    with Library(tmp_path_factory.mktemp("report") / "library.db") as library:
        yield library, library.ingest(corpus_dir() / "pdf" / REPORT).doc_id


@pytest.fixture(scope="module")
def scan(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Library, str]]:
    needs_chinese_ocr()
    path: Path = corpus_dir() / "pdf" / SCAN
    with Library(tmp_path_factory.mktemp("scan") / "library.db") as library:
        yield library, library.ingest(path, ocr=OcrSettings("auto", ("chi_sim",))).doc_id


def first_evidence(library: Library, doc_id: str, question: str) -> str:
    answer = Answerer(library, None, mode="passages", record=False).ask(question, [doc_id])
    assert answer.not_found is None, answer.not_found
    assert all(claim.verified for claim in answer.claims)
    return answer.claims[0].claim.quote


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("公司负责人是谁？", "刘道骐"),
        ("股东史宇波通过哪家证券公司持有股份？", "光大证券股份有限公司"),
        ("公司A股股票何时复牌？", "2018年1月16日上午开市起复牌"),
    ],
)
def test_a_chinese_question_on_the_report_is_answered_by_its_first_evidence(
    report, question, answer
):
    quote = first_evidence(*report, question)
    assert normalize_key(answer) in normalize_key(quote), quote


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("对当事人科处的罚款是多少？", "罚款人民币45000元"),
        ("当事人应当在多少日内履行处罚决定？", "15日内"),
    ],
)
def test_a_chinese_question_on_the_scan_is_answered_by_its_first_evidence(scan, question, answer):
    quote = first_evidence(*scan, question)
    assert normalize_key(answer) in normalize_key(quote), quote


@pytest.mark.parametrize(
    ("quote", "page"),
    [
        ("2017年9月7日，当事人申领了编号为C23067150841的进料加工手册", 1),
        ("决定对当事人科处罚款人民币45000元", 2),
    ],
)
def test_a_quote_copied_from_the_scan_without_spaces_verifies_on_its_page(scan, quote, page):
    library, doc_id = scan
    verification = library.verifier(doc_id).verify(quote)
    assert verification.status == "exact", verification
    assert verification.page == page


def test_a_question_the_report_does_not_answer_is_declined(report):
    library, doc_id = report
    answer = Answerer(library, None, mode="passages", record=False).ask(
        "谁赢得了2018年世界杯？", [doc_id]
    )
    assert answer.not_found is not None
