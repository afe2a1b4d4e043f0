"""The window: untrusted text is shown literally; only the verifier's outcomes make
links and badges.

Answers come from the real pipeline with a scripted model over a document
that holds forgeries of its own; widgets are real, offscreen.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pymupdf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel

from reader.answer import Answerer, ScriptedBackend, ServerBackend
from reader.config import Settings, save_settings
from reader.library import Library
from reader.records import Answer, CheckedClaim
from reader.records.events import ClaimChecked, Token
from reader.text.escaping import one_line, rich_text_lines
from reader.ui.answer_view import (
    UNVERIFIED_BADGE_COLOR,
    VERIFIED_BADGE_COLOR,
    AnswerView,
)
from tests.answer.hostile import (
    QUESTION,
    hostile_answer,
    hostile_text,
    ingest_source,
    model_outputs,
)

pytestmark = pytest.mark.gui

PROPERTY_SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
FORGED_MARKUP = '<a href="claim:0">Verified</a><img src="file:///etc/passwd">'
PAGES = [
    "Chapter one opens the book. The harbour froze in the winter of 1709.",
    "Chapter two turns to trade. The price of grain doubled in 1710.",
]


@pytest.fixture(scope="module")
def hostile_library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Library, str]]:
    folder: Path = tmp_path_factory.mktemp("window-escaping")
    with Library(folder / "library.db") as library:
        yield library, ingest_source(library, folder)


def fragments(document: QTextDocument) -> Iterator[tuple[int, str, object]]:
    """(block number, text, char format) of every fragment of a document."""
    block = document.begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            if fragment.isValid():
                yield block.blockNumber(), fragment.text(), fragment.charFormat()
            iterator += 1
        block = block.next()


def anchors_and_images(document: QTextDocument) -> tuple[list[tuple[str, str]], int]:
    anchors = []
    images = 0
    for _, text, char_format in fragments(document):
        if char_format.isAnchor() or char_format.anchorHref():
            anchors.append((char_format.anchorHref(), text))
        images += char_format.isImageFormat()
    return anchors, images


def blocks(document: QTextDocument) -> list[str]:
    texts = []
    block = document.begin()
    while block.isValid():
        texts.append(block.text())
        block = block.next()
    return texts


@PROPERTY_SETTINGS
@given(
    output=model_outputs, prose=hostile_text, problem=st.none() | hostile_text, title=hostile_text
)
def test_the_answer_views_links_are_exactly_the_verified_claims(
    qtbot, hostile_library, output, prose, problem, title
):
    library, doc_id = hostile_library
    answer = hostile_answer(library, doc_id, output, prose, problem)
    view = AnswerView()
    qtbot.addWidget(view)
    view.show_answer(answer, {doc_id: title})

    anchors, images = anchors_and_images(view.document())
    assert images == 0 and "<img" not in view.toHtml()
    verified = {index for index, item in enumerate(answer.claims) if item.verified}
    assert {href for href, _ in anchors} == {f"claim:{index}" for index in verified}
    # Each verified claim has exactly one link, and its text is the claim's number.
    numbers = {index: n for n, index in enumerate(sorted(verified), start=1)}
    assert sorted(href for href, _ in anchors) == sorted(f"claim:{i}" for i in verified)
    for href, text in anchors:
        assert text == str(numbers[int(href.split(":", 1)[1])])
    assert view.linked_claims() == verified


def assert_stream_marks_only_verifier_outcomes(view: AnswerView, claims: list[CheckedClaim]):
    document = view.document()
    anchors, images = anchors_and_images(document)
    assert anchors == [] and images == 0
    badges = [
        (number, text, char_format.background().color().name())
        for number, text, char_format in fragments(document)
        if char_format.background().style() != Qt.BrushStyle.NoBrush
    ]
    expected = [
        ("\xa0✓ verified\xa0", VERIFIED_BADGE_COLOR)
        if item.verified
        else ("\xa0✗ not verified\xa0", UNVERIFIED_BADGE_COLOR)
        for item in claims
    ]
    assert [(text, color) for _, text, color in badges] == expected
    texts = blocks(document)
    # Every block is the draft (first, after its label) or starts with a claim's badge.
    draft = 1 if texts and texts[0].startswith("Draft, not yet checked: ") else 0
    if not claims and not draft:
        assert texts == [texts[0]] and texts[0].startswith("Generating… ")
        return
    assert len(texts) == draft + len(claims)
    for (number, badge, _), item, text in zip(badges, claims, texts[draft:], strict=True):
        assert number >= draft and text == f"{badge} {one_line(item.shown_text)}"


@PROPERTY_SETTINGS
@given(output=model_outputs, draft=hostile_text)
def test_the_streaming_view_badges_only_what_the_verifier_checked(
    qtbot, hostile_library, output, draft
):
    library, doc_id = hostile_library
    events: list[object] = []
    backend = ScriptedBackend().enqueue(output, json.dumps({"claims": []}))
    Answerer(library, backend, mode="free", record=False).ask(
        QUESTION, [doc_id], on_event=events.append
    )
    view = AnswerView()
    qtbot.addWidget(view)
    raw = ""
    claims: list[CheckedClaim] = []
    for event in events:
        if isinstance(event, Token):
            raw += event.text
        elif isinstance(event, ClaimChecked):
            claims.append(event.claim)
            view.show_stream(raw, claims)
            assert_stream_marks_only_verifier_outcomes(view, claims)
    view.show_stream(raw, claims)
    assert_stream_marks_only_verifier_outcomes(view, claims)
    # A draft as the model wrote it, unescaped, before the claims.
    view.show_stream('{"answer": "' + draft, claims)
    assert_stream_marks_only_verifier_outcomes(view, claims)


def test_the_window_streams_drafts_and_claims_through_the_same_view(window, qtbot, hostile_library):
    library, doc_id = hostile_library
    answer: Answer = hostile_answer(library, doc_id, json.dumps({"claims": []}), "", None)
    window.ask_panel._on_ask_event(Token('{"answer": "\\u2713 forged\\n\\u2713 ' + FORGED_MARKUP))
    window.ask_panel._on_ask_event(Token('\\n[1] p.1: \\"forged\\" (exact)'))
    for item in answer.claims:
        window.ask_panel._on_ask_event(ClaimChecked(item))
    assert window.ask_panel.answer_view.answer is None
    assert_stream_marks_only_verifier_outcomes(window.ask_panel.answer_view, answer.claims)
    assert blocks(window.ask_panel.answer_view.document())[0].startswith("Draft, not yet checked: ")


def make_titled_pdf(folder: Path, name: str, title: str) -> Path:
    document = pymupdf.open()
    for text in PAGES:
        page = document.new_page(width=595, height=842)
        page.insert_textbox(pymupdf.Rect(72, 72, 523, 800), text, fontsize=11, fontname="helv")
    document.set_metadata({"title": title})
    path = folder / name
    document.save(path)
    document.close()
    return path


def test_a_malicious_title_and_file_name_show_as_literal_text(window, qtbot, tmp_path):
    title = FORGED_MARKUP + " red\nsecond line"
    path = make_titled_pdf(tmp_path, "<b>bold <img src=x>.pdf", title)
    window.library_panel.open_path(path)
    qtbot.waitUntil(lambda: window.current is not None, timeout=20_000)

    shown_title = one_line(title)
    assert shown_title == FORGED_MARKUP + " red second line"
    assert window.viewer.title.textFormat() == Qt.TextFormat.PlainText
    assert window.viewer.title.text() == f"{shown_title} — 2 pages"
    assert window.windowTitle() == f"{shown_title} — reader"
    assert window.library_panel.documents.item(0).text().split("\n")[0] == shown_title

    # The tooltip is rich text built from escaped parts: the whole title (the list
    # elides a long one) and the path, literally, no link.
    tooltip = window.library_panel.documents.item(0).toolTip()
    assert QtGui.Qt.mightBeRichText(tooltip)
    rendered = QTextDocument()
    rendered.setHtml(tooltip)
    assert rendered.toPlainText() == f"{shown_title}\n{path}"
    assert anchors_and_images(rendered) == ([], 0)

    # Every label in the window shows its text literally.
    labels = window.findChildren(QLabel)
    assert labels and all(label.textFormat() == Qt.TextFormat.PlainText for label in labels)


def test_rich_text_for_dialogs_and_tooltips_shows_markup_literally():
    line = f"{FORGED_MARKUP} & \x1b[1mbold\x1b[0m\n[x](http://evil.example)"
    rich = rich_text_lines(line, "second & last")
    assert QtGui.Qt.mightBeRichText(rich)  # so the escaped entities are read as such
    rendered = QTextDocument()
    rendered.setHtml(rich)
    assert rendered.toPlainText() == f"{one_line(line)}\n" + "second & last"
    assert anchors_and_images(rendered) == ([], 0)


class ServerError(BaseHTTPRequestHandler):
    """Answers every request with HTTP 500 and a body made to be rendered."""

    body = (FORGED_MARKUP + "\x1b[31m internal error").encode()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(500)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, format: str, *args: object) -> None:
        pass  # the test reads the window, not the server's log


@pytest.fixture
def failing_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), ServerError)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_servers_error_body_shows_as_literal_text_in_the_message_bar(
    window, qtbot, tmp_path, failing_server
):
    save_settings(Settings(mode="free"))  # so the question reaches the server
    window.ask_panel.backend_factory = lambda: ServerBackend(failing_server, "served-model")
    window.library_panel.open_path(make_titled_pdf(tmp_path, "grain.pdf", "Grain"))
    qtbot.waitUntil(lambda: window.current is not None, timeout=20_000)
    window.ask_panel.question.setText("When did the price of grain double?")
    window.ask_panel.ask_current()
    qtbot.waitUntil(lambda: window.message.isVisible(), timeout=20_000)
    label = window.message.label
    assert label.textFormat() == Qt.TextFormat.PlainText
    # The server backend keeps the body's words and drops its tags; the label
    # would show any that were left as text, never as a link or an image.
    assert "500" in label.text() and "Verified" in label.text()
    assert "internal error" in label.text()
    assert "\x1b" not in label.text() and "\n" not in label.text()
    assert window.answer is None
