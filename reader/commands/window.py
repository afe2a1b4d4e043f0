"""Commands that open the window: gui, sample, open, shot."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from reader.commands.group import cli, echo_json
from reader.errors import ReaderError


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
    from reader.library import check_document_file
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
@click.option(
    "--page-view",
    is_flag=True,
    help="Show the original page instead of the text; --json then also says whether "
    "the quote is in the page's view (page_highlight_visible).",
)
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
        echo_json(result)
    else:
        click_note = f", clicked claim {result['clicked']}" if result["clicked"] else ""
        click.echo(f"saved {out}{click_note}")
