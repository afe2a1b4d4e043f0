"""The real window, offscreen, driven through its widgets."""

from __future__ import annotations

import json
import threading

import pymupdf
import pytest
from PySide6.QtCore import Qt

import reader.library.library
from reader.answer import Answerer
from reader.config import load_settings
from tests.ui.conftest import SlowBackend

pytestmark = pytest.mark.gui

PAGES = [
    [
        "Chapter one opens the book. The harbour froze in the winter of 1709.",
        "Ships stayed in port for six weeks. Merchants lost their cargo.",
    ],
    [
        "Chapter two turns to trade. The price of grain doubled in 1710.",
        "Bakers sold smaller loaves. The town council set a maximum price.",
    ],
]
QUESTION = "When did the price of grain double?"


def open_document(window, qtbot, path):
    window.library_panel.open_path(path)
    qtbot.waitUntil(lambda: window.current is not None, timeout=20_000)
    return window.current


def alias_for(window, doc_id, phrase, question=QUESTION):
    chunks = Answerer(window.library, None).retrieve(question, [doc_id])
    return f"c{next(i for i, c in enumerate(chunks) if phrase in c.text) + 1}"


def answer_with(window, qtbot, backend, doc_id, claims):
    backend.enqueue(
        json.dumps(
            {
                "answer": " ".join(t for t, _, _ in claims),
                "claims": [{"text": t, "source_id": s, "quote": q} for t, s, q in claims],
                "unsupported": ["The town's name."],
            }
        )
    )
    backend.enqueue(json.dumps({"claims": []}))  # for the retry, if any
    window.ask_panel.question.setText(QUESTION)
    with qtbot.waitSignal(window.answer_shown, timeout=20_000):
        window.ask_panel.ask_current()
    return window.answer


def test_opening_a_pdf_ingests_it_and_shows_text_and_outline(window, qtbot, make_pdf):
    path = make_pdf(PAGES, toc=[[1, "Chapter one", 1], [1, "Chapter two", 2]])
    document = open_document(window, qtbot, path)
    assert window.viewer.text_view.toPlainText() == document.text
    assert window.library_panel.documents.count() == 1
    assert window.library_panel.outline.topLevelItemCount() == 2
    assert "2 pages" in window.library_panel.documents.item(0).text()


def test_ask_click_a_claim_and_the_viewer_highlights_its_span(window, qtbot, backend, make_pdf):
    document = open_document(window, qtbot, make_pdf(PAGES))
    source = alias_for(window, document.id, "grain")
    answer = answer_with(
        window,
        qtbot,
        backend,
        document.id,
        [
            ("Grain doubled in 1710.", source, "The price of grain doubled in 1710."),
            ("It froze in 1708.", source, "The harbour froze in the winter of 1708."),
        ],
    )
    first, second = [c for c in answer.claims if not c.from_evidence]
    assert first.verified and first.grounded and not second.verified
    assert answer.claims[0] is first  # the model's claims first, then the evidence
    # The badge counts the model's claims apart from the evidence shown beside them.
    evidence = answer.metrics.evidence_shown
    assert window.ask_panel.badge.text() == (
        "2 model claims: 1 verified, 1 supported by their quotes (50%)"
        + (f"; {evidence} evidence sentence{'s' if evidence > 1 else ''}" if evidence else "")
    )
    # Only verified claims are links.
    linked = {i for i, c in enumerate(answer.claims) if c.verified}
    assert 0 in linked and answer.claims.index(second) not in linked
    assert window.ask_panel.answer_view.linked_claims() == linked
    assert "The town's name." in window.ask_panel.answer_view.toPlainText()

    # Keyboard: Tab to the first link, Enter follows it.
    window.ask_panel.answer_view.setFocus()
    qtbot.keyClick(window.ask_panel.answer_view, Qt.Key.Key_Tab)
    qtbot.keyClick(window.ask_panel.answer_view, Qt.Key.Key_Return)
    span = (first.verification.start, first.verification.end)
    qtbot.waitUntil(lambda: window.viewer.text_view.highlighted_range() == span, timeout=5000)
    assert document.text[span[0] : span[1]] == "The price of grain doubled in 1710."
    assert window.viewer.text_view.is_visible(*span)
    selections = window.viewer.text_view.extraSelections()
    cursor = selections[0].cursor
    assert cursor.selectedText() == "The price of grain doubled in 1710."

    # The failed claim cannot be activated.
    assert not window.activate_claim(answer.claims.index(second))
    assert window.viewer.text_view.highlighted_range() == span

    # The page view shows the claim's page with its rectangles.
    with qtbot.waitSignal(window.page_shown, timeout=10_000):
        window.viewer.toggle_page_view()
    assert window.viewer.page_view.page == 2 and window.viewer.page_view.rects
    with pymupdf.open(document.path) as pdf:
        truth = pdf[1].search_for("The price of grain doubled in 1710.")
    assert len(window.viewer.page_view.rects) == len(truth)


def test_a_claim_far_down_a_long_document_is_scrolled_into_view(window, qtbot, backend, make_file):
    paragraphs = [
        f"Paragraph {n} is filler about nothing in particular at all." for n in range(3000)
    ]
    paragraphs[2500] = "The price of grain doubled in 1710, the ledger says."
    path = make_file("long.txt", "\n\n".join(paragraphs).encode())
    document = open_document(window, qtbot, path)
    source = alias_for(window, document.id, "grain")
    answer_with(
        window,
        qtbot,
        backend,
        document.id,
        [("Grain doubled.", source, "The price of grain doubled in 1710")],
    )
    assert window.activate_claim(0)
    start, end = window.viewer.text_view.highlighted_range()
    assert document.text[start:end] == "The price of grain doubled in 1710"
    assert window.viewer.text_view.is_visible(start, end)
    assert window.last_click_ms is not None


def test_cancel_stops_generation(window, qtbot, make_pdf, monkeypatch):
    slow = SlowBackend()
    slow.enqueue(json.dumps({"answer": "x" * 3000, "claims": [], "unsupported": []}))
    window.ask_panel.backend_factory = lambda: slow
    open_document(window, qtbot, make_pdf(PAGES))
    window.ask_panel.question.setText(QUESTION)
    task = window.ask_panel.ask_current()
    qtbot.waitUntil(lambda: "x" in window.ask_panel.answer_view.toPlainText(), timeout=10_000)
    qtbot.keyClick(window.ask_panel.question, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.ask_panel.ask_task is None, timeout=10_000)
    assert window.ask_panel.status.text() == "Cancelled."
    assert window.answer is None
    assert task.cancel_event.is_set()
    assert window.library.store.answers() == []


def test_a_corrupt_file_shows_a_message_and_the_app_goes_on(window, qtbot, make_file, make_pdf):
    broken = make_file("broken.pdf", b"%PDF-1.7 this is not really a pdf" * 20)
    window.library_panel.open_path(broken)
    qtbot.waitUntil(lambda: window.message.isVisible(), timeout=10_000)
    assert "damaged" in window.message.label.text()
    assert window.library_panel.documents.count() == 0
    document = open_document(window, qtbot, make_pdf(PAGES))
    assert document.pages == 2


def test_an_encrypted_pdf_asks_for_its_password(window, qtbot, make_pdf, monkeypatch):
    path = make_pdf(
        PAGES,
        name="locked.pdf",
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        user_pw="s3cret",
        owner_pw="owner",
    )
    asked = []
    monkeypatch.setattr(
        window.library_panel, "ask_password", lambda name: asked.append(name) or "s3cret"
    )
    window.library_panel.open_path(path)
    qtbot.waitUntil(lambda: window.current is not None, timeout=20_000)
    assert asked == ["locked.pdf"]
    assert window.passwords[window.current.id] == "s3cret"


def test_ingest_can_be_cancelled_and_leaves_the_library_unchanged(window, qtbot, make_pdf):
    path = make_pdf([[f"Page {n} text."] for n in range(300)])
    task = window.library_panel.open_path(path)
    task.cancel()
    qtbot.waitUntil(lambda: window.library_panel.ingest_task is None, timeout=20_000)
    assert window.library.documents() == []


def test_history_reopens_an_answer_and_export_has_quotes_and_pages(
    window, qtbot, backend, make_pdf, monkeypatch
):
    document = open_document(window, qtbot, make_pdf(PAGES))
    source = alias_for(window, document.id, "grain")
    answer_with(
        window,
        qtbot,
        backend,
        document.id,
        [("Grain doubled in 1710.", source, "The price of grain doubled in 1710.")],
    )
    assert window.ask_panel.history.count() == 1
    window.ask_panel.answer_view.show_text("")
    built_on: list[str] = []
    real_verifier = reader.library.library.DocumentVerifier

    def recording_verifier(*args, **kwargs):
        built_on.append(threading.current_thread().name)
        return real_verifier(*args, **kwargs)

    monkeypatch.setattr(reader.library.library, "DocumentVerifier", recording_verifier)
    with qtbot.waitSignal(window.answer_shown, timeout=10_000):
        window.ask_panel.reopen_answer(window.ask_panel.history.item(0))
    assert built_on and "MainThread" not in built_on  # re-verified off the GUI thread
    reopened = window.answer
    assert window.ask_panel.answer_view.linked_claims() == {
        i for i, c in enumerate(reopened.claims) if c.verified
    }
    assert all(c.grounding is not None for c in reopened.claims if c.verified)
    markdown = window.ask_panel.markdown()
    assert '"The price of grain doubled in 1710."' in markdown and "page 2" in markdown
    assert "verified" in markdown and "Unsupported" in markdown
    assert "1 answer;" in window.ask_panel.health.summary.text()


def test_find_in_document(window, qtbot, make_pdf):
    open_document(window, qtbot, make_pdf(PAGES))
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.viewer.find_box.isVisible()
    window.viewer.find_box.setText("bakers")
    assert window.viewer.find_next()
    assert window.viewer.text_view.textCursor().selectedText() == "Bakers"


def test_settings_are_saved(window, qtbot, monkeypatch):
    from reader.ui.settings import SettingsDialog

    dialog = SettingsDialog(window)
    qtbot.addWidget(dialog)
    dialog.server_url.setText("http://127.0.0.1:9")
    dialog.model_name.setText("served-model")
    dialog.threads.setValue(2)
    dialog.save()
    settings = load_settings()
    assert settings.server_url == "http://127.0.0.1:9"
    assert settings.model_name == "served-model" and settings.threads == 2


@pytest.mark.model
def test_end_to_end_with_the_embedded_model(qtbot, tmp_path, make_pdf):
    from reader.models.choice import make_backend
    from reader.ui.main_window import MainWindow

    window = MainWindow(database=tmp_path / "e2e.db", backend_factory=make_backend)
    qtbot.addWidget(window)
    window.show()
    document = open_document(window, qtbot, make_pdf(PAGES))
    window.ask_panel.question.setText(QUESTION)
    with qtbot.waitSignal(window.answer_shown, timeout=180_000):
        window.ask_panel.ask_current()
    answer = window.answer
    verified = [i for i, c in enumerate(answer.claims) if c.verified]
    assert verified, answer
    assert window.ask_panel.answer_view.linked_claims() == set(verified)
    assert window.activate_claim(verified[0])
    check = answer.claims[verified[0]].verification
    assert window.viewer.text_view.highlighted_range() == (check.start, check.end)
    assert window.viewer.text_view.is_visible(check.start, check.end)
    assert " ".join(document.text[check.start : check.end].split())
    window.workers.shutdown()


def test_reader_shot_saves_the_window_after_a_click(tmp_path, make_pdf):
    import subprocess
    import sys

    out = tmp_path / "shot.png"
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "reader.cli",
            "shot",
            str(make_pdf(PAGES)),
            "--ask",
            QUESTION,
            "--no-model",
            "--click",
            "1",
            "--page-view",
            "--size",
            "1000x700",
            "--out",
            str(out),
            "--json",
        ],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert completed.returncode == 0, completed.stderr
    data = json.loads(completed.stdout)
    assert data["clicked"] == 1
    highlight = data["highlight"]
    assert highlight["visible"] is True and highlight["page"] == 2
    claim = next(c for c in data["claims"] if c["status"] == "exact")
    assert (highlight["start"], highlight["end"]) == (claim["start"], claim["end"])
    assert data["click_ms"] >= 0
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert (image.width(), image.height()) == (1000, 700)


def test_a_long_title_wraps_and_leaves_the_window_its_size(window, qtbot, make_file):
    title = " ".join(["Treatment of adolescents and children with chronic infection"] * 4)
    path = make_file("long.md", f"# {title}\n\nThe fee is due monthly.\n".encode())
    open_document(window, qtbot, path)
    assert title[:40] in window.viewer.title.text()
    window.resize(1200, 800)
    qtbot.wait(50)
    assert window.width() == 1200
    assert window.minimumSizeHint().width() <= 1200


def test_the_library_list_counts_a_single_page_and_chunk_in_the_singular(window, qtbot, make_file):
    open_document(window, qtbot, make_file("note.txt", b"One short note about the harbour."))
    entry = window.library_panel.documents.item(0).text()
    assert entry.endswith("1 page · 1 chunk"), entry


def test_an_answer_arriving_leaves_the_page_pane_its_width(window, qtbot, backend, make_pdf):
    """The verification summary is one long line; unwrapped, its label asked for its
    whole width and the splitter took it from the page (535 px became 353)."""
    doc = open_document(window, qtbot, make_pdf(PAGES))
    splitter = window.viewer.parentWidget()
    before = splitter.sizes()
    claim = "The price of grain doubled in 1710."
    answer_with(window, qtbot, backend, doc.id, [(claim, alias_for(window, doc.id, claim), claim)])
    assert "verified" in window.ask_panel.badge.text()
    qtbot.wait(50)
    assert splitter.sizes() == before


def test_the_library_list_keeps_the_shown_document_selected(window, qtbot, make_file, make_pdf):
    first = open_document(window, qtbot, make_pdf(PAGES))
    second_path = make_file("note.txt", b"One short note about the harbour.")
    window.library_panel.open_path(second_path)
    qtbot.waitUntil(lambda: window.current.id != first.id, timeout=20_000)
    selected = window.library_panel.documents.currentItem()
    assert selected.data(Qt.ItemDataRole.UserRole) == window.current.id
    # Shown another way than by the list (a claim, the history): the list follows.
    window.show_document(first.id)
    selected = window.library_panel.documents.currentItem()
    assert selected.data(Qt.ItemDataRole.UserRole) == first.id


def test_a_document_without_headings_says_so_in_the_outline(window, qtbot, make_file):
    from reader.ui.library_panel import NO_OUTLINE

    open_document(window, qtbot, make_file("note.txt", b"One short note about the harbour."))
    outline = window.library_panel.outline
    assert outline.topLevelItemCount() == 1
    note = outline.topLevelItem(0)
    assert note.text(0) == NO_OUTLINE and note.flags() == Qt.ItemFlag.NoItemFlags
    with qtbot.assertNotEmitted(window.library_panel.heading_chosen):
        outline.itemClicked.emit(note, 0)
