"""Commands on documents: ingest, list, text, chunks, search, verify, repair."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from reader.commands import EXPECTED_FAILURE, cli, echo_json, open_library
from reader.errors import ReaderError
from reader.textsafe import one_line


@cli.command(help="Add documents to the library (PDF, EPUB, XPS, MOBI, FB2, CBZ, TXT, MD).")
@click.argument("paths", nargs=-1, required=True, type=click.Path(readable=False, path_type=Path))
@click.option("--password", help="Password for encrypted PDFs.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per file.")
def ingest(paths: tuple[Path, ...], password: str | None, as_json: bool) -> None:
    failures = 0
    with open_library() as library:
        for path in paths:
            try:
                result = library.ingest(path, password=password)
            except ReaderError as error:
                failures += 1
                if as_json:
                    echo_json({"path": str(path), "error": str(error)})
                click.echo(f"error: {one_line(str(error))}", err=True)
                continue
            if as_json:
                echo_json(result.to_json())
            else:
                state = "added" if result.added else "already in the library"
                click.echo(
                    f"{result.doc_id}  {path}: {state}, {result.pages} pages, "
                    f"{result.chars} chars, {result.chunks} chunks"
                )
                for warning in result.warnings:
                    click.echo(f"  warning: {one_line(warning)}", err=True)
    if failures:
        sys.exit(EXPECTED_FAILURE)


@cli.command("list", help="List the documents in the library.")
@click.option("--json", "as_json", is_flag=True, help="A JSON array of documents.")
def list_documents(as_json: bool) -> None:
    with open_library() as library:
        documents = library.documents()
    if as_json:
        echo_json(documents)
        return
    for document in documents:
        click.echo(
            f"{document['id']}  {one_line(str(document['title']))}  ({document['pages']} pages, "
            f"{document['chunks']} chunks)  {one_line(str(document['path']))}"
        )


@cli.command(help="Print a document's canonical text (DOC: a file path or a document id).")
@click.argument("doc")
@click.option("--password", help="Password for an encrypted PDF not yet in the library.")
def text(doc: str, password: str | None) -> None:
    with open_library() as library:
        document = library.resolve(doc, password=password)
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
    if as_json:
        echo_json([chunk.to_json() for chunk in items])
        return
    for chunk in items:
        pages = f"p{chunk.page_start}" + (
            f"-{chunk.page_end}" if chunk.page_end != chunk.page_start else ""
        )
        heading = f"  [{one_line(chunk.heading_path)}]" if chunk.heading else ""
        preview = one_line(chunk.text)[:80]
        click.echo(f"{chunk.id}  {chunk.start}-{chunk.end}  {pages}{heading}  {preview}")


@cli.command(help="Full-text search (BM25) over the library or one document.")
@click.argument("query")
@click.option("--doc", help="Search only this document (a file path or a document id).")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(min=1))
@click.option("--json", "as_json", is_flag=True, help="A JSON array of hits.")
def search(query: str, doc: str | None, limit: int, as_json: bool) -> None:
    with open_library() as library:
        doc_id = library.resolve(doc).id if doc else None
        hits = library.search(query, doc_id=doc_id, limit=limit)
    if as_json:
        echo_json([{**hit.chunk.to_json(), "score": round(hit.score, 4)} for hit in hits])
        return
    for hit in hits:
        preview = one_line(hit.chunk.text)[:100]
        click.echo(f"{hit.score:7.3f}  {hit.chunk.id}  p{hit.chunk.page_start}  {preview}")


@cli.command(help="Check a quote against a document, or a batch of quotes (JSON lines).")
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
        for request in requests:
            if "error" in request:
                result: dict[str, Any] = {
                    "status": "miss",
                    "reason": request["error"],
                    "chunk_id": None,
                    "start": None,
                    "end": None,
                    "page": None,
                    "score": 0.0,
                    "occurrences": 0,
                }
            else:
                result = verifier.verify(request["quote"], request.get("source")).to_json()
            if as_json:
                echo_json(result)
            else:
                where = (
                    f" chars {result['start']}-{result['end']}, page {result['page']},"
                    if result["start"] is not None
                    else ""
                )
                click.echo(
                    f"{result['status']}:{where} chunk {result['chunk_id']}: {result['reason']}"
                )


@cli.command(
    help="Repair a damaged library: rebuild it from what is still readable and from the "
    "documents' files, keep the damaged file beside it, and say what was lost."
)
def repair() -> None:
    from reader.repair import repair_library

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
