"""The window's documents: the library list, opening and ingesting files, the viewer.

A mixin of ``MainWindow``, which builds the widgets these methods use.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QInputDialog,
    QLineEdit,
    QListWidgetItem,
    QTreeWidgetItem,
)

from reader.errors import Cancelled, EncryptedDocumentError, ReaderError
from reader.ingest.extract import PYMUPDF_TYPES, TEXT_TYPES
from reader.ingest.workers import default_workers
from reader.library import IngestResult, Library
from reader.library.batch import ingest_paths
from reader.library.batch_report import BatchProgress, BatchReport
from reader.records import Document
from reader.text.escaping import one_line, rich_text_lines
from reader.ui.ocr_labels import IngestStep, document_note, ingest_line, library_pages
from reader.ui.workers import Task

RENAME_ACTION = "rename-document"
OPEN_FILTER = "Documents ({})".format(
    " ".join(f"*{suffix}" for suffix in [*PYMUPDF_TYPES, *TEXT_TYPES])
)

if TYPE_CHECKING:
    from reader.ui.main_window import MainWindow


class DocumentsMixin:
    """Methods of ``MainWindow``: their ``self`` is the window (typed so, for mypy)."""

    current: Document | None  # the document in the viewer
    ingest_task: Task | None

    # -- library -----------------------------------------------------------------------

    def refresh_library(self: MainWindow) -> None:
        self._offer_rename()
        selected = self.current.id if self.current else None
        self.documents.clear()
        for record in self.library.documents():
            title = one_line(record.title)
            pages = library_pages(list(record.ocr_pages), record.pages)
            item = QListWidgetItem(
                f"{title}\n{pages} · {record.chunks} chunks"
                + (" · warning" if record.warnings else "")
            )
            item.setData(Qt.ItemDataRole.UserRole, record.id)
            # The title comes first: the list elides a long one to its width.
            item.setToolTip(rich_text_lines(title, record.path, *record.warnings))
            self.documents.addItem(item)
            if record.id == selected:
                self.documents.setCurrentItem(item)

    def _offer_rename(self: MainWindow) -> None:
        """Give the list its Rename action (F2, and in its context menu), once: the
        list is built before the library is first shown."""
        if self.documents.findChild(QAction, RENAME_ACTION) is not None:
            return
        action = QAction("Re&name…", self.documents)
        action.setObjectName(RENAME_ACTION)
        action.setShortcut(QKeySequence(Qt.Key.Key_F2))
        action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        action.triggered.connect(self.rename_selected)
        self.documents.addAction(action)
        self.documents.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)

    def rename_selected(self: MainWindow) -> bool:
        """Ask for the selected document's new title and show it under that everywhere;
        an empty title goes back to the one read from its file."""
        item = self.documents.currentItem()
        if item is None:
            return False
        doc_id = str(item.data(Qt.ItemDataRole.UserRole))
        title, accepted = QInputDialog.getText(
            self,
            "Rename document",
            "Title (leave it empty for the title read from the file):",
            QLineEdit.EchoMode.Normal,
            self.library.titles([doc_id]).get(doc_id, ""),
        )
        if not accepted:
            return False
        try:
            shown = self.library.rename(doc_id, title.strip() or None)
        except ReaderError as error:
            self.show_error(error)
            return False
        if self.current is not None and self.current.id == doc_id:
            self.current.title = shown
            self._show_title(self.current)
        self.refresh_library()
        return True

    def choose_files(self: MainWindow) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open documents", "", OPEN_FILTER)
        for path in paths:
            self.open_path(Path(path))

    def dragEnterEvent(self: MainWindow, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self: MainWindow, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.open_path(Path(url.toLocalFile()))

    def ask_password(self: MainWindow, name: str) -> str | None:
        """Ask for a PDF's password; None when the user cancels."""
        password, accepted = QInputDialog.getText(
            self,
            "Password needed",
            rich_text_lines(f"{name} is password-protected. Password:"),
            QLineEdit.EchoMode.Password,
        )
        return password if accepted and password else None

    def open_path(self: MainWindow, path: Path, password: str | None = None) -> Task:
        """Ingest a file in the background (if needed) and show it."""
        database = self.database
        name = one_line(path.name)
        self.ingest_label.setText(f"Reading {name}…")
        self.ingest_label.show()
        self.ingest_progress.setRange(0, 0)
        self.ingest_progress.show()
        self.ingest_cancel.show()

        def work(report: Callable[[Any], None], cancel: threading.Event) -> IngestResult:
            page_count: list[int] = []  # the first total reported: see IngestStep

            def progress(done: int, total: int) -> None:
                if cancel.is_set():
                    raise Cancelled("Ingest cancelled.")
                if not page_count:
                    page_count.append(total)
                report(IngestStep(done, total, page_count[0]))

            with Library(database) as library:
                return library.ingest(path, password=password, progress=progress)

        def failed(error: ReaderError) -> None:
            self._ingest_finished()
            if isinstance(error, EncryptedDocumentError):
                if password is not None:
                    self.message.show_message(str(error))
                given = self.ask_password(path.name)
                if given:
                    self.open_path(path, given)
                return
            self.show_error(error)

        def done(result: IngestResult) -> None:
            self._ingest_finished()
            if password:
                self.passwords[result.doc_id] = password
            self.refresh_library()
            if result.warnings:
                self.message.show_message(" ".join(result.warnings), error=False)
            self.show_document(result.doc_id)

        def cancelled() -> None:
            self._ingest_finished()
            self.statusBar().showMessage("Ingest cancelled; the library is unchanged.", 5000)

        def progress(step: IngestStep) -> None:
            # While OCR runs the bar counts the pages OCR reads: they take the time.
            done, total = step.ocr or (step.done, step.total)
            self.ingest_progress.setRange(0, total)
            self.ingest_progress.setValue(done)
            self.ingest_label.setText(ingest_line(name, step))

        self.ingest_task = self.workers.submit(
            self.workers.documents, work, done, failed, progress, cancelled
        )
        return self.ingest_task

    def choose_folder(self: MainWindow) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder of documents")
        if folder:
            self.add_folder(Path(folder))

    def add_folder(self: MainWindow, folder: Path) -> Task | None:
        """Ingest every document in ``folder`` and its subfolders in the background, as
        ``reader ingest FOLDER`` does: unchanged files are skipped, several files are
        read at once, and a cancel keeps the documents already added."""
        if self.ingest_task is not None:
            self.message.show_message("Wait for the current ingest to finish, or cancel it.")
            return None
        database = self.database
        name = one_line(folder.name or str(folder))
        self.ingest_label.setText(f"Adding {name}: looking for documents…")
        self.ingest_label.show()
        self.ingest_progress.setRange(0, 0)
        self.ingest_progress.show()
        self.ingest_cancel.show()

        def work(report: Callable[[Any], None], cancel: threading.Event) -> BatchReport:
            with Library(database) as library:
                return ingest_paths(
                    library,
                    [folder],
                    workers=default_workers(),
                    on_progress=report,
                    cancel=cancel,
                )

        def progress(value: BatchProgress) -> None:
            self.ingest_progress.setRange(0, value.files_total)
            self.ingest_progress.setValue(value.files_done)
            self.ingest_label.setText(f"Adding {name}: {value.line()}")

        def failed(error: ReaderError) -> None:
            self._ingest_finished()
            self.show_error(error)

        def done(report: BatchReport) -> None:
            self._ingest_finished()
            self.refresh_library()
            self.message.show_message(_folder_message(name, report), error=bool(report.refused))

        def cancelled() -> None:  # only if the task stopped before the batch began
            self._ingest_finished()

        self.ingest_task = self.workers.submit(
            self.workers.documents, work, done, failed, progress, cancelled
        )
        return self.ingest_task

    def _ingest_finished(self: MainWindow) -> None:
        self.ingest_task = None
        self.ingest_progress.hide()
        self.ingest_label.hide()
        self.ingest_cancel.hide()

    def cancel_ingest(self: MainWindow) -> None:
        if self.ingest_task is not None:
            self.ingest_task.cancel()

    def remove_selected(self: MainWindow) -> None:
        item = self.documents.currentItem()
        if item is None:
            return
        doc_id = item.data(Qt.ItemDataRole.UserRole)
        self.library.remove(doc_id)
        if self.current and self.current.id == doc_id:
            self.current = None
            self.text_view.clear_document()
            self.outline.clear()
            self.viewer_title.setText("")
        self.refresh_library()

    def _on_document_activated(self: MainWindow, item: QListWidgetItem) -> None:
        self.show_document(item.data(Qt.ItemDataRole.UserRole))

    # -- viewer ------------------------------------------------------------------------

    def show_document(self: MainWindow, doc_id: str) -> Document:
        if self.current is not None and self.current.id == doc_id:
            return self.current
        document = self.library.document(doc_id)
        self.current = document
        self.text_view.set_document(document)
        self._show_title(document)
        self._fill_outline(document)
        self.page_view.show_message(
            "Click a claim to see its page."
            if document.kind == "pdf"
            else "No original pages for this kind of document."
        )
        self.refresh_history()
        self.document_shown.emit(doc_id)
        return document

    def _show_title(self: MainWindow, document: Document) -> None:
        title = one_line(document.title)
        ocr = document_note(document)
        self.viewer_title.setText(f"{title} — {document.pages} pages" + (f", {ocr}" if ocr else ""))
        self.setWindowTitle(f"{title} — reader")

    def _fill_outline(self: MainWindow, document: Document) -> None:
        self.outline.clear()
        stack: list[tuple[int, QTreeWidgetItem]] = []
        for heading in document.headings:
            item = QTreeWidgetItem([one_line(heading.title)])
            item.setData(0, Qt.ItemDataRole.UserRole, heading.offset)
            while stack and stack[-1][0] >= heading.level:
                stack.pop()
            if stack:
                stack[-1][1].addChild(item)
            else:
                self.outline.addTopLevelItem(item)
            stack.append((heading.level, item))

    def _on_outline_activated(self: MainWindow, item: QTreeWidgetItem) -> None:
        self.text_view.scroll_to(int(item.data(0, Qt.ItemDataRole.UserRole)))

    def show_find(self: MainWindow) -> None:
        self.find_box.show()
        self.find_box.setFocus()
        self.find_box.selectAll()

    def find_next(self: MainWindow, backwards: bool = False) -> bool:
        text = self.find_box.text()
        if not text:
            return False
        found = self.text_view.find_text(text, backwards)
        self.statusBar().showMessage("" if found else f"'{text}' not found", 3000)
        return found

    def toggle_page_view(self: MainWindow) -> None:
        self.viewer_tabs.setCurrentIndex(1 - self.viewer_tabs.currentIndex())

    def _on_viewer_tab(self: MainWindow, index: int) -> None:
        if index == 1 and self.answer is not None and self.text_view.highlighted_range():
            self._render_page_for_highlight()


def _folder_message(name: str, report: BatchReport) -> str:
    """What adding a folder did, in a sentence or two; the refused files with reasons."""
    added = report.count("added") + report.count("changed") + report.count("updated")
    if report.cancelled:
        text = (
            f"Adding {name} was cancelled: {added} documents were added and kept; "
            "add the folder again to go on where it stopped."
        )
    else:
        text = f"Added {name}: {report.summary()}."
    refused = report.refused
    if refused:
        reasons = " ".join(one_line(str(outcome.reason)) for outcome in refused[:3])
        more = f" (and {len(refused) - 3} more)" if len(refused) > 3 else ""
        text += f" Refused: {reasons}{more}"
    return text
