"""The window cites a page by the number printed on it, escaped as any text from a file."""

from __future__ import annotations

from reader.answer import Answerer
from reader.ui.answer_view import answer_html
from tests.ingest.test_page_labels import ROMAN_THEN_ARABIC, labelled_pdf


def test_the_sources_give_the_printed_page_and_the_pdf_page(library, tmp_path):
    doc_id = library.ingest(labelled_pdf(tmp_path, ROMAN_THEN_ARABIC)).doc_id
    answer = Answerer(library, None).ask("How long did the ships stay in port?", [doc_id])
    html = answer_html(answer, library.titles([doc_id]))
    assert "page 1 (PDF page 3)" in html


def test_a_hostile_printed_number_is_shown_as_text(library, tmp_path):
    rules = [{"startpage": 0, "prefix": "<i>&", "style": "D", "firstpagenum": 1}]
    doc_id = library.ingest(labelled_pdf(tmp_path, rules)).doc_id
    assert library.document(doc_id).page_labels[2] == "<i>&3"
    answer = Answerer(library, None).ask("How long did the ships stay in port?", [doc_id])
    html = answer_html(answer, library.titles([doc_id]))
    assert "&lt;i&gt;&amp;3 (PDF page 3)" in html and "<i>&" not in html
