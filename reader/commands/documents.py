"""Commands on documents: list, rename, text, chunks, search, verify, repair (ingest has
``reader.commands.ingesting``)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from reader.commands.group import EXPECTED_FAILURE, cli, echo_json, open_library
from reader.errors import ReaderError
from reader.records import Verification, page_name
from reader.text.escaping import clean, counted, one_line

# ``reader verify``'s status when a quote was not found: the check ran, the quote failed it.
QUOTE_MISSED = 1


@cli.command("list", help="List the documents in the library.")
@click.option(
    "--stale",
    is_flag=True,
    help="Only documents whose file changed or is gone since it was ingested "
    "(`reader ingest --update` takes in the new versions).",
)
@click.option("--json", "as_json", is_flag=True, help="A JSON array of documents.")
def list_documents(stale: bool, as_json: bool) -> None:
    if stale:
        _list_stale(as_json)
        return
    with open_library() as library:
        documents = library.documents()
    if as_json:
        echo_json([document.to_json() for document in documents])
        return
    if not documents:
        # On stderr: what lists the library finds no line of it on stdout.
        click.echo(
            "The library is empty: add documents with `reader ingest FILE_OR_FOLDER`.", err=True
        )
    for document in documents:
        ocr_pages = document.ocr_pages
        ocr = f"{counted(len(ocr_pages), 'page')} read by OCR, " if ocr_pages else ""
        click.echo(
            f"{document.id}  {one_line(document.title)}  ({counted(document.pages, 'page')}, "
            f"{ocr}{counted(document.chunks, 'chunk')})  {one_line(document.path)}"
        )


def _list_stale(as_json: bool) -> None:
    from reader.library.stale import stale_documents

    with open_library() as library:
        stale = stale_documents(library)
    if as_json:
        echo_json([document.to_json() for document in stale])
        return
    for document in stale:
        click.echo(
            f"{document.doc_id}  {document.state}  {one_line(document.title)}  "
            f"{one_line(document.path)}"
        )


@cli.command(
    help="Give a document the title it is shown under everywhere (DOC: a file path or a "
    "document id); it stays when the file is ingested again. --reset goes back to the "
    "title read from the file."
)
@click.argument("doc")
@click.argument("title", required=False)
@click.option("--reset", is_flag=True, help="Show the title read from the file again.")
@click.option("--password", help="Password for an encrypted PDF not yet in the library.")
def rename(doc: str, title: str | None, reset: bool, password: str | None) -> None:
    if reset == (title is not None):
        raise ReaderError('Give the new title (reader rename DOC "Title"), or --reset.')
    with open_library() as library:
        document = library.resolve(doc, password=password)
        shown = library.rename(document.id, None if reset else title)
    click.echo(f"{document.id}  {one_line(shown)}")


@cli.command(
    help="Print a document's canonical text (DOC: a file path or a document id). Piped or "
    "redirected, it is the canonical text exactly, so offsets point into it; on a terminal, "
    "the control characters and escape sequences a file may hold are left out."
)
@click.argument("doc")
@click.option("--password", help="Password for an encrypted PDF not yet in the library.")
def text(doc: str, password: str | None) -> None:
    with open_library() as library:
        document = library.resolve(doc, password=password)
    if sys.stdout.isatty():
        # On a terminal the prompt would run on from the last line: end it.
        shown = clean(document.text)
        sys.stdout.write(shown if shown.endswith("\n") else shown + "\n")
    else:
        sys.stdout.write(document.text)
    sys.stdout.flush()


@cli.command(help="Show a document's chunks with offsets, headings and pages.")
@click.argument("doc")
@click.option("--password", help="Password for an encrypted PDF not yet in the library.")
@click.option("--json", "as_json", is_flag=True, help="One JSON array of chunks.")
def chunks(doc: str, password: str | None, as_json: bool) -> None:
    with open_library() as library:
        document = library.resolve(doc, password=password)
        items = library.chunks(document.id)
    read_by_ocr = set(document.ocr_page_numbers())
    if as_json:
        echo_json(
            [
                {**chunk.to_json(), "ocr_pages": sorted(read_by_ocr.intersection(chunk.pages))}
                for chunk in items
            ]
        )
        return
    for chunk in items:
        pages = f"p{chunk.page_start}" + (
            f"-{chunk.page_end}" if chunk.page_end != chunk.page_start else ""
        )
        ocr = "  (OCR)" if read_by_ocr.intersection(chunk.pages) else ""
        heading = f"  [{one_line(chunk.heading_path)}]" if chunk.heading else ""
        preview = one_line(chunk.text)[:80]
        click.echo(f"{chunk.id}  {chunk.start}-{chunk.end}  {pages}{ocr}{heading}  {preview}")


@cli.command(help="Full-text search (BM25) over the library or one document.")
@click.argument("query")
@click.option("--doc", help="Search only this document (a file path or a document id).")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(min=1))
@click.option("--json", "as_json", is_flag=True, help="A JSON array of hits.")
def search(query: str, doc: str | None, limit: int, as_json: bool) -> None:
    with open_library() as library:
        doc_id = library.resolve(doc).id if doc else None
        hits = library.search(query, doc_id=doc_id, limit=limit)
        titles = library.titles(sorted({hit.chunk.doc_id for hit in hits}))
        pages = {doc: library.page_map(doc) for doc in {hit.chunk.doc_id for hit in hits}}
    if as_json:
        echo_json(
            [
                {
                    **hit.chunk.to_json(),
                    "title": titles.get(hit.chunk.doc_id),
                    "page_labels": [
                        pages[hit.chunk.doc_id].page_label(page) for page in hit.chunk.pages
                    ],
                    "score": round(hit.score, 4),
                }
                for hit in hits
            ]
        )
        return
    if not hits:
        where = "that document" if doc_id else "the library"
        click.echo(f"No passage of {where} holds those words; try others.", err=True)
    for hit in hits:
        preview = one_line(hit.chunk.text)[:100]
        # Within one document its title would only repeat; across the library it says where.
        shown = titles.get(hit.chunk.doc_id) or hit.chunk.doc_id
        title = "" if doc_id else f"{one_line(shown, limit=40)}, "
        printed = pages[hit.chunk.doc_id].page_label(hit.chunk.page_start)
        page = one_line(page_name(hit.chunk.page_start, printed, short=True))
        click.echo(f"{hit.score:7.3f}  {hit.chunk.id}  {title}{page}  {preview}")


@cli.command(
    help="Check a quote against a document, or a batch of quotes (JSON lines).\n\n"
    "Exit status: 0 when every quote is found (exact or fuzzy), 1 when any quote is "
    "missed (the text output says which and why), 2 when the check cannot be made "
    "(no such document, a file that cannot be read, wrong options, a batch line that is "
    "not JSON or holds no quote)."
)
@click.argument("doc")
@click.option("--quote", help="The quote to check.")
@click.option("--source", help="The chunk id the quote claims to come from.")
@click.option(
    "--batch",
    type=click.File("r", encoding="utf-8"),
    help='A file of JSON lines {"quote": ..., "source": ...}; "-" reads stdin.',
)
@click.option("--password", help="Password for an encrypted PDF not yet in the library.")
@click.option("--json", "as_json", is_flag=True, help="JSON output (one object per quote).")
def verify(
    doc: str,
    quote: str | None,
    source: str | None,
    batch: Any,
    password: str | None,
    as_json: bool,
) -> None:
    if (quote is None) == (batch is None):
        raise ReaderError("Give either --quote TEXT or --batch FILE.")
    with open_library() as library:
        document = library.resolve(doc, password=password)
        verifier = library.verifier(document.id)
        requests: list[dict[str, Any]]
        if quote is not None:
            requests = [{"quote": quote, "source": source}]
        else:
            requests = list(_read_batch(batch))
        any_missed = any_unreadable = False
        for request in requests:
            if "error" in request:  # a line with no quote: a miss, with the same fields
                result: dict[str, Any] = Verification("miss", request["error"]).to_json()
                any_unreadable = True
            else:
                result = verifier.verify(request["quote"], request.get("source")).to_json()
            if result["status"] == "miss":
                any_missed = True
            if as_json:
                echo_json(result)
            else:
                click.echo(_verification_line(request.get("quote"), result))
    if any_unreadable:
        # A line that could not be checked is the input's fault, not a quote's: the
        # other lines are still checked and said, in their places.
        sys.exit(EXPECTED_FAILURE)
    if any_missed:
        sys.exit(QUOTE_MISSED)


def _page_name(result: dict[str, Any]) -> str:
    label = result.get("page_label")
    return one_line(page_name(int(result["page"]), None if label is None else str(label)))


def _verification_line(quote: str | None, result: dict[str, Any]) -> str:
    """``exact: "QUOTE" at chars 10-31, page 2, chunk ID: REASON``, or for a miss
    ``miss: "QUOTE" not found: REASON`` (a batch line that holds no quote: its problem).

    The quote is shown whole: quotes that differ only in their last words ("for
    fourteen years", "for fifteen years") must not print the same line."""
    shown = f'"{one_line(quote)}" ' if quote is not None else ""
    reason = one_line(str(result["reason"]))
    if result["status"] == "miss":
        return f"miss: {shown}not found: {reason}" if shown else f"miss: {reason}"
    return (
        f"{result['status']}: {shown}at chars {result['start']}-{result['end']}, "
        f"{_page_name(result)}, chunk {result['chunk_id']}: {reason}"
    )


@cli.command(
    help="Repair a damaged library: rebuild it from what is still readable and from the "
    "documents' files, keep the damaged file beside it, and say what was lost."
)
def repair() -> None:
    from reader.library.repair import repair_library

    report = repair_library(progress=lambda step: click.echo(f"repair: {step}", err=True))
    for line in report.lines():
        click.echo(line)


def _read_batch(handle: Any) -> Any:
    for number, line in enumerate(handle, start=1):
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except json.JSONDecodeError:
            yield {"error": f"line {number} of the batch is not valid JSON"}
            continue
        if not isinstance(request, dict) or not isinstance(request.get("quote"), str):
            yield {"error": f"line {number} of the batch has no string 'quote'"}
            continue
        source = request.get("source")
        yield {"quote": request["quote"], "source": source if isinstance(source, str) else None}
