"""The ``reader`` command: parses arguments, calls the library, prints results.

The commands live in ``reader.commands`` (documents, answers, the window);
this module routes ``reader`` and ``reader FILE`` to the window and turns
failures into one line: expected ones (``ReaderError``) exit with status 2,
anything else is a bug and exits 1, with details only under READER_DEBUG.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from reader.commands import EXPECTED_FAILURE, cli
from reader.errors import ReaderError
from reader.text.escaping import one_line

__all__ = ["cli", "main"]


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
    except click.exceptions.Abort as abort:
        if os.environ.get("READER_DEBUG") and abort.__cause__ is not None:
            raise abort.__cause__ from None
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
