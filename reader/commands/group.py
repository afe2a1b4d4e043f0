"""The ``reader`` command group and what its commands share."""

from __future__ import annotations

from typing import Any

import click

from reader import __version__
from reader.library import Library
from reader.text.escaping import json_line

EXPECTED_FAILURE = 2
TIMEOUT_HELP = (
    "Seconds reader waits on a model server at each step (to connect, for the first token, "
    "between tokens) and for the whole answer; without it: the settings, by default 10, "
    "120, 60 and 600."
)


def open_library() -> Library:
    library = Library()
    if library.read_only_reason:
        click.echo(
            f"note: the library at {library.path} cannot be written "
            f"({library.read_only_reason}): reading, searching and asking work; "
            "nothing is added or recorded.",
            err=True,
        )
    return library


def echo_json(value: Any) -> None:
    click.echo(json_line(value))


def _selftest(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from reader.commands.selftest import SelftestFailed, run_selftest

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
    help="Check this installation: ingest the sample, answer with the model `reader ask` uses, "
    "verify, read a scanned page by OCR, render the window offscreen; exit 0 or say which "
    "step failed.",
)
def cli() -> None:
    pass
