"""The library column: the document list, adding files and folders (ingest, with
progress and cancel), renaming and removing, and the open document's outline.

It says what happened through its signals; the window decides what follows
(showing a document, clearing the viewer).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from reader.errors import EncryptedDocumentError, ReaderError
from reader.library import PYMUPDF_TYPES, TEXT_TYPES, FileOutcome, Library, default_workers
from reader.library.batch import ingest_paths
from reader.library.batch_report import BatchProgress, BatchReport
from reader.records import Document
from reader.text.escaping import counted, one_line, rich_text_lines
from reader.ui import messages
from reader.ui.elided_list import elide_to_width
from reader.ui.labels import plain_label
from reader.ui.library_op import LibraryOp
from reader.ui.ocr_labels import IngestStep, ingest_line, library_pages
from reader.ui.progress import ProgressStrip
from reader.ui.workers import Job, Task, Workers

RENAME_ACTION = "rename-document"
OPEN_FILTER = "Documents ({})".format(
    " ".join(f"*{suffix}" for suffix in [*PYMUPDF_TYPES, *TEXT_TYPES])
)


NO_OUTLINE = "No headings found in this document."


class LibraryPanel(QWidget):
    document_chosen = Signal(str)  # a document to show: clicked in the list, or just read
    document_renamed = Signal(str, str)  # its id and the title it is shown under now
    document_removed = Signal(str)
    heading_chosen = Signal(int)  # the outline heading's offset in the text
    status_message = Signal(str, int)  # a passing note for the status bar, and its ms

    def __init__(self, library: Library, workers: Workers, passwords: dict[str, str]) -> None:
        super().__init__()
        self.library = library  # the GUI thread's; the window swaps it after a repair
        self.workers = workers
        self.passwords = passwords  # given for PDFs this session, by document id
        self.shown: str | None = None  # the viewer's document, kept selected in the list
        self.ingest_task: Task | None = None

        self.documents = QListWidget()
        self.documents.setAccessibleName("Documents")
        elide_to_width(self.documents)  # a long title's tooltip has it whole
        self.documents.itemActivated.connect(self._on_document_activated)
        self.documents.itemClicked.connect(self._on_document_activated)
        self._offer_rename()
        open_button = QPushButton("&Open…")
        open_button.clicked.connect(self.choose_files)
        folder_button = QPushButton("Add &folder…")
        folder_button.clicked.connect(self.choose_folder)
        remove_button = QPushButton("&Remove")
        remove_button.clicked.connect(self.remove_selected)
        self.progress = ProgressStrip("Cancel ingest")
        self.outline = QTreeWidget()
        self.outline.setHeaderLabel("Outline")
        self.outline.itemActivated.connect(self._on_outline_activated)
        self.outline.itemClicked.connect(self._on_outline_activated)

        layout = QVBoxLayout(self)
        layout.addWidget(plain_label("Library", bold=True))
        layout.addWidget(self.documents, 2)
        buttons = QHBoxLayout()
        buttons.addWidget(open_button)
        buttons.addWidget(folder_button)
        buttons.addWidget(remove_button)
        layout.addLayout(buttons)
        layout.addWidget(self.progress)
        layout.addWidget(self.outline, 3)

    # -- the list ------------------------------------------------------------------------

    def refresh(self) -> None:
        self.documents.clear()
        for record in self.library.documents():
            title = one_line(record.title)
            pages = library_pages(list(record.ocr_pages), record.pages)
            item = QListWidgetItem(
                f"{title}\n{pages} · {counted(record.chunks, 'chunk')}"
                + (" · warning" if record.warnings else "")
            )
            item.setData(Qt.ItemDataRole.UserRole, record.id)
            # The title comes first: the list elides a long one to its width.
            item.setToolTip(rich_text_lines(title, record.path, *record.warnings))
            self.documents.addItem(item)
            if record.id == self.shown:
                self.documents.setCurrentItem(item)

    def select_shown(self, doc_id: str) -> None:
        """Keep the viewer's document selected in the list, however it was opened."""
        self.shown = doc_id
        for row in range(self.documents.count()):
            item = self.documents.item(row)
            if item.data(Qt.ItemDataRole.UserRole) == doc_id:
                self.documents.setCurrentItem(item)
                return

    def _offer_rename(self) -> None:
        """Give the list its Rename action (F2, and in its context menu)."""
        action = QAction("Re&name…", self.documents)
        action.setObjectName(RENAME_ACTION)
        action.setShortcut(QKeySequence(Qt.Key.Key_F2))
        action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        action.triggered.connect(self.rename_selected)
        self.documents.addAction(action)
        self.documents.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)

    def rename_selected(self) -> bool:
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
            messages.report(error)
            return False
        self.document_renamed.emit(doc_id, shown)
        self.refresh()
        return True

    def remove_selected(self) -> None:
        item = self.documents.currentItem()
        if item is None:
            return
        doc_id = item.data(Qt.ItemDataRole.UserRole)
        self.library.remove(doc_id)
        self.document_removed.emit(doc_id)
        self.refresh()

    def _on_document_activated(self, item: QListWidgetItem) -> None:
        self.document_chosen.emit(item.data(Qt.ItemDataRole.UserRole))

    # -- adding documents ----------------------------------------------------------------

    def choose_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open documents", "", OPEN_FILTER)
        for path in paths:
            self.open_path(Path(path))

    def ask_password(self, name: str) -> str | None:
        """Ask for a PDF's password; None when the user cancels."""
        password, accepted = QInputDialog.getText(
            self,
            "Password needed",
            rich_text_lines(f"{name} is password-protected. Password:"),
            QLineEdit.EchoMode.Password,
        )
        return password if accepted and password else None

    def open_path(self, path: Path, password: str | None = None) -> Task:
        """Ingest a file in the background (if needed), then choose it to be shown."""
        name = one_line(path.name)

        def ingest(job: Job) -> FileOutcome:
            page_count: list[int] = []  # the first total reported: see IngestStep

            def progress(done: int, total: int) -> None:
                job.stop_if_cancelled("Ingest cancelled.")
                if not page_count:
                    page_count.append(total)
                job.report(IngestStep(done, total, page_count[0]))

            return job.library.ingest(path, password=password, progress=progress)

        def failed(error: ReaderError) -> None:
            self.ingest_task = None
            if isinstance(error, EncryptedDocumentError):
                if password is not None:
                    messages.error(str(error))
                given = self.ask_password(path.name)
                if given:
                    self.open_path(path, given)
                return
            messages.report(error)

        def done(result: FileOutcome) -> None:
            self.ingest_task = None
            if password:
                self.passwords[result.doc_id] = password
            self.refresh()
            if result.warnings:
                messages.warning(" ".join(result.warnings))
            self.document_chosen.emit(result.doc_id)

        def cancelled() -> None:
            self.ingest_task = None
            self.status_message.emit("Ingest cancelled; the library is unchanged.", 5000)

        def progress(step: IngestStep) -> None:
            # While OCR runs the bar counts the pages OCR reads: they take the time.
            done, total = step.ocr or (step.done, step.total)
            self.progress.show_step(ingest_line(name, step), done, total)

        self.ingest_task = (
            LibraryOp(self, self.workers, op=ingest, success=done)
            .failure(failed)
            .on_cancelled(cancelled)
            .on_progress(progress)
            .with_progress(f"Reading {name}…", self.progress)
            .run_in_background()
        )
        return self.ingest_task

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder of documents")
        if folder:
            self.add_folder(Path(folder))

    def add_folder(self, folder: Path) -> Task | None:
        """Ingest every document in ``folder`` and its subfolders in the background, as
        ``reader ingest FOLDER`` does: unchanged files are skipped, several files are
        read at once, and a cancel keeps the documents already added."""
        if self.ingest_task is not None:
            messages.error("Wait for the current ingest to finish, or cancel it.")
            return None
        name = one_line(folder.name or str(folder))

        def ingest(job: Job) -> BatchReport:
            return ingest_paths(
                job.library,
                [folder],
                workers=default_workers(),
                on_progress=job.report,
                cancel=job.cancel_event,
            )

        def progress(value: BatchProgress) -> None:
            self.progress.show_step(
                f"Adding {name}: {value.line()}", value.files_done, value.files_total
            )

        def failed(error: ReaderError) -> None:
            self.ingest_task = None
            messages.report(error)

        def done(report: BatchReport) -> None:
            self.ingest_task = None
            self.refresh()
            say = messages.error if report.refused else messages.info
            say(_folder_message(name, report))

        def cancelled() -> None:  # only if the task stopped before the batch began
            self.ingest_task = None

        self.ingest_task = (
            LibraryOp(self, self.workers, op=ingest, success=done)
            .failure(failed)
            .on_cancelled(cancelled)
            .on_progress(progress)
            .with_progress(f"Adding {name}: looking for documents…", self.progress)
            .run_in_background()
        )
        return self.ingest_task

    # -- the outline ---------------------------------------------------------------------

    def show_outline(self, document: Document) -> None:
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
        if not document.headings:
            # An empty box reads as a window still loading or broken.
            note = QTreeWidgetItem([NO_OUTLINE])
            note.setFlags(Qt.ItemFlag.NoItemFlags)
            self.outline.addTopLevelItem(note)

    def _on_outline_activated(self, item: QTreeWidgetItem) -> None:
        offset = item.data(0, Qt.ItemDataRole.UserRole)
        if offset is not None:
            self.heading_chosen.emit(int(offset))


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
