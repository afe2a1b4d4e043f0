"""``reader ingest``: add files and folders to the library, with progress and a summary."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from reader.commands.group import EXPECTED_FAILURE, cli, echo_json, open_library
from reader.errors import ReaderError
from reader.text.escaping import counted, one_line

if TYPE_CHECKING:
    from reader.library.batch_report import BatchProgress, BatchReport, FileOutcome


@cli.command(
    help="Add documents to the library (PDF, EPUB, XPS, MOBI, FB2, CBZ, TXT, MD): files, and "
    "folders walked for them. Files ingested before and unchanged (same size and time) are "
    "skipped without reading them, so an interrupted run goes on where it stopped."
)
@click.argument("paths", nargs=-1, type=click.Path(readable=False, path_type=Path))
@click.option("--password", help="Password for encrypted PDFs.")
@click.option(
    "--recursive/--no-recursive",
    default=True,
    help="Walk the folders' subfolders too (the default), or only their own files.",
)
@click.option(
    "--glob",
    "include",
    multiple=True,
    metavar="PATTERN",
    help="Take the files in folders that match PATTERN, e.g. '*.pdf' (repeatable; "
    "default: every kind reader reads).",
)
@click.option(
    "--exclude",
    multiple=True,
    metavar="PATTERN",
    help="Leave out files and folders that match PATTERN, e.g. 'drafts' (repeatable).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    help="Processes reading files at once (default: one per core, at most 4).",
)
@click.option(
    "--update",
    is_flag=True,
    help="Replace the old version of each changed file by its new one; answers that cited "
    "the old version move to the new one. Without PATHS: every changed file in the library.",
)
@click.option(
    "--ocr",
    "ocr_mode",
    type=click.Choice(["auto", "always", "never"]),
    help="Read pages by OCR: auto, pages without a usable text layer (the default, or as "
    "set in Settings); always, every page; never.",
)
@click.option(
    "--ocr-lang",
    metavar="CODES",
    help="OCR languages as Tesseract codes joined with +, e.g. eng+deu or chi_sim, or "
    "auto: each page in the languages of its script (the default, or as set in Settings).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per file.")
def ingest(
    paths: tuple[Path, ...],
    password: str | None,
    recursive: bool,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    workers: int | None,
    update: bool,
    ocr_mode: str | None,
    ocr_lang: str | None,
    as_json: bool,
) -> None:
    from reader.library import default_workers, ocr_settings
    from reader.library.batch import ingest_paths

    if not paths and not update:
        raise ReaderError("Give the files or folders to ingest (or --update alone).")
    # Asked for: documents already read otherwise are read again; not asked for: the
    # user's settings read new files, and what is in the library stays as it is.
    ocr = ocr_settings(ocr_mode, ocr_lang) if ocr_mode or ocr_lang else None
    many = len(paths) != 1 or Path(paths[0]).is_dir() or update
    # One file: a line on a terminal only (OCR can take minutes), none in a log.
    progress = IngestProgressLine(enabled=many or sys.stderr.isatty())

    def on_file(outcome: FileOutcome) -> None:
        progress.clear()
        if as_json:
            echo_json(outcome.to_json())
        elif outcome.state == "refused":
            if not many:
                click.echo(f"error: {one_line(str(outcome.reason))}", err=True)
        else:
            click.echo(f"{outcome.doc_id}  {one_line(str(outcome.path))}: {_state_words(outcome)}")
            # The warnings of a file read now, each naming it: they go to stderr, apart
            # from its line. A file already in the library was warned about when read.
            if outcome.added:
                for warning in outcome.warnings:
                    name = one_line(Path(outcome.path).name)
                    click.echo(f"  warning: {name}: {one_line(warning)}", err=True)
        progress.redraw()

    with open_library() as library:
        report = ingest_paths(
            library,
            paths,
            recursive=recursive,
            include=include,
            exclude=exclude,
            workers=workers or default_workers(),
            password=password,
            update=update,
            on_file=on_file,
            on_progress=progress.show,
            ocr=ocr,
        )
    progress.clear()
    if many:
        _print_summary(report)
    if report.cancelled:
        sys.exit(130)  # the shell's status for a run stopped by Ctrl+C
    if report.refused:
        sys.exit(EXPECTED_FAILURE)


class IngestProgressLine:
    """Progress on stderr: one line rewritten in place on a terminal, plain lines
    otherwise (a log keeps every step)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.terminal = enabled and sys.stderr.isatty()
        self.text = ""

    def show(self, progress: BatchProgress) -> None:
        if not self.enabled:
            return
        self.text = f"ingest: {progress.line()}"
        if self.terminal:
            self.redraw()
        else:
            click.echo(self.text, err=True)

    def clear(self) -> None:
        if self.terminal and self.text:
            click.echo("\r\x1b[K", nl=False, err=True)

    def redraw(self) -> None:
        if self.terminal and self.text:
            click.echo(f"\r\x1b[K{self.text}", nl=False, err=True)


def _state_words(outcome: FileOutcome) -> str:
    read_by_ocr = f" ({outcome.ocr_pages} read by OCR)" if outcome.ocr_pages else ""
    figures = (
        f"{counted(outcome.pages, 'page')}{read_by_ocr}, {outcome.chars} chars, "
        f"{counted(outcome.chunks, 'chunk')}"
    )
    if outcome.state == "unchanged":
        return f"already in the library, {figures}"
    if outcome.state == "changed":
        return f"added, {figures} ({outcome.reason})"
    if outcome.state == "updated":
        moved = (
            f", {counted(outcome.answers_moved, 'answer')} moved to it"
            if outcome.answers_moved
            else ""
        )
        return f"updated, {figures}; replaces {', '.join(outcome.replaced)}{moved}"
    return f"added, {figures}"


def _print_summary(report: BatchReport) -> None:
    click.echo(f"ingest: {report.summary()}", err=True)
    for outcome in report.outcomes:
        if outcome.state == "changed":
            click.echo(f"  changed: {one_line(str(outcome.path))}: {outcome.reason}", err=True)
    for outcome in report.refused:
        click.echo(
            f"  refused: {one_line(str(outcome.path))}: {one_line(str(outcome.reason))}", err=True
        )
    if report.cancelled:
        click.echo(
            "ingest: interrupted; the documents finished are kept: run the same command "
            "again to go on where it stopped.",
            err=True,
        )
