"""The window's questions: asking, the streamed and finished answer, claims, history.

A mixin of ``MainWindow``, which builds the widgets these methods use.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QListWidgetItem,
)

from reader.answer import Answerer
from reader.answer.events import ClaimChecked, Status, Token
from reader.answer.render import render_markdown, verification_summary
from reader.config import load_settings
from reader.errors import Cancelled, ReaderError, StoreError
from reader.ingest.layout import render_page
from reader.library import Library, reverify
from reader.records import Answer, CheckedClaim
from reader.text.escaping import one_line
from reader.text.reading_view import outside
from reader.ui.ocr_labels import page_note
from reader.ui.workers import Task

if TYPE_CHECKING:
    from reader.ui.main_window import MainWindow


class AskingMixin:
    """Methods of ``MainWindow``: their ``self`` is the window (typed so, for mypy)."""

    answer: Answer | None  # the answer shown
    ask_task: Task | None
    last_click_ms: float | None
    _streamed_claims: list[CheckedClaim]
    _streamed_text: str

    # -- asking ------------------------------------------------------------------------

    def ask_current(self: MainWindow) -> Task | None:
        question = self.question.text().strip()
        if not question or self.ask_task is not None:
            return None
        whole_library = self.scope.currentIndex() == 1
        if not whole_library and self.current is None:
            self.message.show_message("Open a document first, or ask the whole library.")
            return None
        doc_ids = None if whole_library else [self.current.id]  # type: ignore[union-attr]
        return self.ask(question, doc_ids)

    def ask(self: MainWindow, question: str, doc_ids: list[str] | None) -> Task:
        database = self.database
        factory = self.backend_factory
        mode = load_settings().mode
        self._streamed_claims = []
        self._streamed_text = ""
        self.answer = None
        self.badge.setText("")
        self.answer_view.show_text("")
        self.ask_status.setText("Starting…")
        self.ask_button.setEnabled(False)
        self.cancel_button.setEnabled(True)

        def work(report: Callable[[Any], None], cancel: threading.Event) -> Answer:
            backend = factory()
            with Library(database) as library:
                answerer = Answerer(library, backend, mode=mode)
                load = getattr(backend, "load", None)
                if load is not None and answerer.uses_model:
                    report(Status("loading model"))
                    load()
                if cancel.is_set():
                    raise Cancelled("Cancelled.")
                return answerer.ask(question, doc_ids, on_event=report, cancel=cancel)

        self.ask_task = self.workers.submit(
            self.workers.model,
            work,
            self._on_answer,
            self._on_ask_failed,
            self._on_ask_event,
            self._on_ask_cancelled,
        )
        return self.ask_task

    def cancel_ask(self: MainWindow) -> None:
        if self.ask_task is not None:
            self.ask_task.cancel()
            self.ask_status.setText("Cancelling…")

    def _on_ask_event(self: MainWindow, event: object) -> None:
        if isinstance(event, Status):
            self.ask_status.setText(f"{event.stage.capitalize()}… {event.detail}".strip())
        elif isinstance(event, Token):
            self._streamed_text += event.text
            self._show_stream()
        elif isinstance(event, ClaimChecked):
            self._streamed_claims.append(event.claim)
            self._show_stream()

    def _show_stream(self: MainWindow) -> None:
        self.answer_view.show_stream(self._streamed_text, self._streamed_claims)

    def _ask_finished(self: MainWindow) -> None:
        self.ask_task = None
        self.ask_button.setEnabled(True)
        self.cancel_button.setEnabled(False)

    def _on_answer(self: MainWindow, answer: Answer) -> None:
        self._ask_finished()
        self.show_answer(answer)
        source = "from the evidence" if answer.mode == "passages" else f"by {answer.model}"
        self.ask_status.setText(f"Answered in {answer.metrics.seconds:.1f} s {source}.")
        if answer.not_recorded:
            self.show_error(StoreError(f"The answer is shown but {answer.not_recorded}."))
        self.refresh_history()
        self.refresh_health()

    def show_answer(self: MainWindow, answer: Answer) -> None:
        self.answer = answer
        # Titles only: loading whole documents here would cost the GUI thread.
        doc_ids = {c.doc_id for c in answer.claims if c.doc_id} | set(answer.doc_ids)
        self.answer_view.show_answer(answer, self.library.titles(doc_ids))
        self.badge.setText(verification_summary(answer).capitalize())
        self.answer_shown.emit()

    def _on_ask_failed(self: MainWindow, error: ReaderError) -> None:
        self._ask_finished()
        self.ask_status.setText("")
        self.show_error(error)

    def _on_ask_cancelled(self: MainWindow) -> None:
        self._ask_finished()
        self.ask_status.setText("Cancelled.")

    # -- claims ------------------------------------------------------------------------

    def activate_claim(self: MainWindow, index: int) -> bool:
        """Scroll the viewer to a verified claim's span and highlight it."""
        if self.answer is None or not 0 <= index < len(self.answer.claims):
            return False
        item = self.answer.claims[index]
        check = item.verification
        if not item.verified or check.start is None or check.end is None or not item.doc_id:
            return False
        started = time.perf_counter()
        if self.current is None or self.current.id != item.doc_id:
            self.show_document(item.doc_id)
        self.text_view.highlight(check.start, check.end)
        self.text_view.viewport().repaint()
        self.last_click_ms = (time.perf_counter() - started) * 1000
        read_by_ocr = (
            " (read by OCR)"
            if self.current is not None and check.page in self.current.ocr_page_numbers()
            else ""
        )
        self.statusBar().showMessage(
            f"Claim {index + 1}: page {check.page}{read_by_ocr}, "
            f"characters {check.start}–{check.end}",
            8000,
        )
        if self.current is not None and self.current.kind == "pdf":
            self._render_page_for_highlight()
        return True

    def _render_page_for_highlight(self: MainWindow) -> None:
        document = self.current
        span = self.text_view.highlighted_range()
        if document is None or span is None or document.kind != "pdf":
            return
        start, end = span
        page = document.page_of(start)
        page_start, page_end = document.page_range(page)
        # The quoted words on the span's first page, not the running head between them.
        relative = [
            (low - page_start, min(high, page_end) - page_start)
            for low, high in outside(start, end, document.furniture)
            if low < page_end
        ]
        path, password = document.path, self.passwords.get(document.id)
        # A page read by OCR has no text layer to take boxes from: they were stored.
        ocr_boxes = (
            self.library.ocr_boxes(document.id, page)
            if page in document.ocr_page_numbers()
            else None
        )

        def work(report: Callable[[Any], None], cancel: threading.Event) -> Any:
            return render_page(path, page, password=password, spans=relative, ocr_boxes=ocr_boxes)

        note = page_note(document, page)

        def done(result: Any) -> None:
            width, height, stride, samples, rects = result
            image = QImage(samples, width, height, stride, QImage.Format.Format_RGB888).copy()
            self.page_view.show_page(image, page, rects, note)
            self.page_shown.emit(page)

        def failed(error: ReaderError) -> None:
            self.page_view.show_message(f"The original page cannot be shown: {error}")

        self.workers.submit(self.workers.documents, work, done, failed)

    # -- history, health, export, settings -----------------------------------------------

    def refresh_history(self: MainWindow) -> None:
        self.history.clear()
        doc_id = self.current.id if self.current else None
        for answer in self.library.answers(doc_id, limit=100):
            item = QListWidgetItem(
                f"{one_line(answer.question)}\n{verification_summary(answer)}\n"
                f"{local_time(answer.created_at)}"
            )
            item.setData(Qt.ItemDataRole.UserRole, answer.id)
            self.history.addItem(item)

    def _on_history_activated(self: MainWindow, item: QListWidgetItem) -> Task:
        """Re-verify a stored answer against the library as it is now, then show it.

        Building a document's verifier takes a noticeable moment on a long book, so
        it happens on a worker with its own connection, like ingest.
        """
        answer_id = int(item.data(Qt.ItemDataRole.UserRole))
        database = self.database

        def work(report: Callable[[Any], None], cancel: threading.Event) -> Answer | None:
            with Library(database) as library:
                stored = library.answer(answer_id)
                return reverify(library, stored) if stored is not None else None

        def done(answer: Answer | None) -> None:
            if answer is None:
                self.message.show_message("That answer is no longer in the history.")
                return
            self.show_answer(answer)
            self.side_tabs.setCurrentIndex(0)
            self.ask_status.setText(
                f"Asked {local_time(answer.created_at)}; checked again just now."
            )

        def failed(error: ReaderError) -> None:
            self.ask_status.setText("")
            self.show_error(error)

        self.ask_status.setText("Checking the stored answer against the library…")
        return self.workers.submit(self.workers.documents, work, done, failed)

    def refresh_health(self: MainWindow) -> None:
        self.health.set_stats(self.library.verification_stats())

    def markdown(self: MainWindow) -> str | None:
        if self.answer is None:
            return None
        doc_ids = sorted({c.doc_id for c in self.answer.claims if c.doc_id})
        return render_markdown(self.answer, self.library.titles(doc_ids))

    def copy_markdown(self: MainWindow) -> None:
        text = self.markdown()
        if text:
            QApplication.clipboard().setText(text)
            self.statusBar().showMessage("Answer copied as Markdown.", 4000)

    def save_markdown(self: MainWindow) -> None:
        text = self.markdown()
        if not text:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Save answer", "answer.md", "Markdown (*.md)")
        if path:
            Path(path).write_text(text, encoding="utf-8")


def local_time(stamp: str) -> str:
    """A stored UTC time (ISO 8601) as the user's local date and time, to the second;
    a stamp that does not parse is shown as it is."""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is None:  # stamps are written in UTC
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")
