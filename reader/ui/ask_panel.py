"""The ask column: a question, its answer streamed then checked, the history of
answers and the verification health, each on a tab.

It says what happened through its signals (a claim clicked, an answer shown);
the window takes the viewer to a clicked claim.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from reader.config import load_settings
from reader.errors import ReaderError, StoreError
from reader.library import Backend, Library, render_markdown, reverify, verification_summary
from reader.records import Answer, CheckedClaim
from reader.records.events import ClaimChecked, Status, Token
from reader.text.escaping import one_line
from reader.ui import messages
from reader.ui.answer_view import AnswerView
from reader.ui.labels import plain_label
from reader.ui.library_op import LibraryOp
from reader.ui.question_box import QuestionBox
from reader.ui.verification_chart import HealthPanel
from reader.ui.workers import Job, Task, Workers

BackendFactory = Callable[[], Backend | None]
ASK_TAB = 0


class AskPanel(QTabWidget):
    claim_clicked = Signal(int)  # the claim's index in the answer shown
    answer_shown = Signal()
    status_message = Signal(str, int)  # a passing note for the status bar, and its ms

    def __init__(self, library: Library, workers: Workers, backend_factory: BackendFactory) -> None:
        super().__init__()
        self.library = library  # the GUI thread's; the window swaps it after a repair
        self.workers = workers
        self.backend_factory = backend_factory
        self.document_id: str | None = None  # the viewer's: "This document", and its history
        self.answer: Answer | None = None  # the answer shown
        self.ask_task: Task | None = None
        self._streamed_claims: list[CheckedClaim] = []
        self._streamed_text = ""

        self.question = QuestionBox()
        self.question.setPlaceholderText("Ask a question (Enter to ask, Esc to cancel)")
        self.question.returnPressed.connect(self.ask_current)
        # While a question is typed, the model is loaded and reads ahead.
        self.question.textEdited.connect(self._prepare_while_typing)
        self.prepare_task: Task | None = None
        self._prepared = False
        self.question.installEventFilter(self)
        self.scope = QComboBox()
        self.scope.addItems(["This document", "Whole library"])
        self.ask_button = QPushButton("&Ask")
        self.ask_button.clicked.connect(self.ask_current)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_ask)
        self.cancel_button.setEnabled(False)
        self.status = plain_label()
        self.badge = plain_label(bold=True)
        # Long lines wrap: a label asks for its text's whole width, and the window's
        # splitter would take it from the page beside the answer.
        for label in (self.status, self.badge):
            label.setWordWrap(True)
        self.answer_view = AnswerView()
        self.answer_view.claim_activated.connect(self.claim_clicked)
        copy_button = QPushButton("&Copy as Markdown")
        copy_button.clicked.connect(self.copy_markdown)
        save_button = QPushButton("Sa&ve as Markdown…")
        save_button.clicked.connect(self.save_markdown)
        ask_page = QWidget()
        ask_layout = QVBoxLayout(ask_page)
        ask_layout.addWidget(self.question)
        row = QHBoxLayout()
        row.addWidget(self.scope, 1)
        row.addWidget(self.ask_button)
        row.addWidget(self.cancel_button)
        ask_layout.addLayout(row)
        ask_layout.addWidget(self.status)
        ask_layout.addWidget(self.badge)
        ask_layout.addWidget(self.answer_view, 1)
        export_row = QHBoxLayout()
        export_row.addWidget(copy_button)
        export_row.addWidget(save_button)
        ask_layout.addLayout(export_row)

        self.history = QListWidget()
        # An entry wraps to the panel's width, so its question and time are read whole.
        self.history.setWordWrap(True)
        # Entries of two or three lines each: told apart by their shading and a gap.
        self.history.setAlternatingRowColors(True)
        self.history.setSpacing(2)
        self.history.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.history.itemActivated.connect(self.reopen_answer)
        self.history.itemClicked.connect(self.reopen_answer)
        self.health = HealthPanel()
        self.addTab(ask_page, "As&k")
        self.addTab(self.history, "&History")
        self.addTab(self.health, "Hea&lth")

    # -- asking ------------------------------------------------------------------------

    def ask_current(self) -> Task | None:
        question = self.question.text().strip()
        if not question or self.ask_task is not None:
            return None
        doc_ids: list[str] | None = None  # the whole library
        if self.scope.currentIndex() == 0:
            if self.document_id is None:
                messages.error("Open a document first, or ask the whole library.")
                return None
            doc_ids = [self.document_id]
        return self.ask(question, doc_ids)

    def ask(self, question: str, doc_ids: list[str] | None) -> Task:
        factory = self.backend_factory
        mode = load_settings().mode
        self._streamed_claims = []
        self._streamed_text = ""
        self.answer = None
        self.badge.setText("")
        self.answer_view.show_text("")
        # Behind the model being prepared as the question was typed, on the same thread.
        self.status.setText("Loading model…" if self.prepare_task is not None else "Starting…")
        self.ask_button.setEnabled(False)
        self.cancel_button.setEnabled(True)

        def answer(job: Job) -> Answer:
            backend = factory()
            answerer = job.library.answerer(backend, mode=mode)
            load = getattr(backend, "load", None)
            if load is not None and answerer.uses_model:
                job.report(Status("loading model"))
                load()
            job.stop_if_cancelled("Cancelled.")
            return answerer.ask(question, doc_ids, on_event=job.report, cancel=job.cancel_event)

        self.ask_task = (
            LibraryOp(self, self.workers, op=answer, success=self._on_answer)
            .failure(self._on_ask_failed)
            .on_cancelled(self._on_ask_cancelled)
            .on_progress(self._on_ask_event)
            .on_model_thread()
            .run_in_background()
        )
        return self.ask_task

    def _prepare_while_typing(self, text: str) -> Task | None:
        """Once per question, when the user starts typing it: load the model and have
        it read the start every question's prompt shares (``Answerer.prepare``), on
        the model's thread, so the answer begins sooner. Quiet: an ask queued behind
        it waits for it, and a model that will not load says so when asked."""
        if not text.strip() or self._prepared or self.ask_task is not None:
            return None
        self._prepared = True
        factory = self.backend_factory
        mode = load_settings().mode

        def prepare(job: Job) -> int:
            return job.library.answerer(factory(), mode=mode).prepare(cancel=job.cancel_event)

        def ended(*_args: object) -> None:
            self.prepare_task = None

        self.prepare_task = (
            LibraryOp(self, self.workers, op=prepare, success=ended)
            .failure(ended)
            .on_cancelled(ended)
            .on_model_thread()
            .run_in_background()
        )
        return self.prepare_task

    def forget_preparation(self) -> None:
        """The settings changed (the model, perhaps): prepare again at the next keystroke."""
        self._prepared = False

    def cancel_ask(self) -> None:
        if self.ask_task is not None:
            self.ask_task.cancel()
            self.status.setText("Cancelling…")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.question
            and event.type() == QEvent.Type.KeyPress
            and event.key() == Qt.Key.Key_Escape  # type: ignore[attr-defined]
        ):
            self.cancel_ask()
            return True
        return super().eventFilter(watched, event)

    def _on_ask_event(self, event: object) -> None:
        if isinstance(event, Status):
            self.status.setText(f"{event.stage.capitalize()}… {event.detail}".strip())
        elif isinstance(event, Token):
            self._streamed_text += event.text
            self._show_stream()
        elif isinstance(event, ClaimChecked):
            self._streamed_claims.append(event.claim)
            self._show_stream()

    def _show_stream(self) -> None:
        self.answer_view.show_stream(self._streamed_text, self._streamed_claims)

    def _ask_finished(self) -> None:
        self.ask_task = None
        self._prepared = False  # the next question's start is read as it is typed
        self.ask_button.setEnabled(True)
        self.cancel_button.setEnabled(False)

    def _on_answer(self, answer: Answer) -> None:
        self._ask_finished()
        self.show_answer(answer)
        source = "from the evidence" if answer.mode == "passages" else f"by {answer.model}"
        self.status.setText(f"Answered in {answer.metrics.seconds:.1f} s {source}.")
        if answer.not_recorded:
            messages.report(StoreError(f"The answer is shown but {answer.not_recorded}."))
        self.refresh_history()
        self.refresh_health()

    def show_answer(self, answer: Answer) -> None:
        self.answer = answer
        # Titles only: loading whole documents here would cost the GUI thread.
        doc_ids = {c.doc_id for c in answer.claims if c.doc_id} | set(answer.doc_ids)
        self.answer_view.show_answer(answer, self.library.titles(doc_ids))
        self.badge.setText(verification_summary(answer).capitalize())
        self.answer_shown.emit()

    def _on_ask_failed(self, error: ReaderError) -> None:
        self._ask_finished()
        self.status.setText("")
        messages.report(error)

    def _on_ask_cancelled(self) -> None:
        self._ask_finished()
        self.status.setText("Cancelled.")

    # -- history, health, export -----------------------------------------------------------

    def refresh_history(self) -> None:
        self.history.clear()
        for answer in self.library.answers(self.document_id, limit=100):
            # The question, then when and how it was answered on one line: a date on a
            # line of its own read as belonging to the question below it.
            item = QListWidgetItem(
                f"{one_line(answer.question)}\n"
                f"{local_time(answer.created_at)} · {verification_summary(answer)}"
            )
            item.setData(Qt.ItemDataRole.UserRole, answer.id)
            self.history.addItem(item)

    def reopen_answer(self, item: QListWidgetItem) -> Task:
        """Re-verify a stored answer against the library as it is now, then show it.

        Building a document's verifier takes a noticeable moment on a long book, so
        it happens on a worker with its own connection, like ingest.
        """
        answer_id = int(item.data(Qt.ItemDataRole.UserRole))

        def recheck(job: Job) -> Answer | None:
            stored = job.library.answer(answer_id)
            return reverify(job.library, stored) if stored is not None else None

        def done(answer: Answer | None) -> None:
            if answer is None:
                messages.error("That answer is no longer in the history.")
                return
            self.show_answer(answer)
            self.setCurrentIndex(ASK_TAB)
            self.status.setText(f"Asked {local_time(answer.created_at)}; checked again just now.")

        def failed(error: ReaderError) -> None:
            self.status.setText("")
            messages.report(error)

        self.status.setText("Checking the stored answer against the library…")
        return (
            LibraryOp(self, self.workers, op=recheck, success=done)
            .failure(failed)
            .run_in_background()
        )

    def refresh_health(self) -> None:
        self.health.set_stats(self.library.verification_stats())

    def markdown(self) -> str | None:
        if self.answer is None:
            return None
        doc_ids = sorted({c.doc_id for c in self.answer.claims if c.doc_id})
        return render_markdown(self.answer, self.library.titles(doc_ids))

    def copy_markdown(self) -> None:
        text = self.markdown()
        if text:
            QApplication.clipboard().setText(text)
            self.status_message.emit("Answer copied as Markdown.", 4000)

    def save_markdown(self) -> None:
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
