"""Entry point of the bundled application: the same ``reader`` command."""

import os

if not any(os.environ.get(name) for name in ("LC_ALL", "LC_CTYPE", "LANG")):
    # Started with no locale at all (a bare desktop launcher, `env -i`): Qt wants a
    # UTF-8 one and would otherwise print a warning on every start.
    os.environ["LC_CTYPE"] = "C.UTF-8"

import multiprocessing

from reader.cli import main

if __name__ == "__main__":
    # Ingest reads files in worker processes, and the model runs in a process of its
    # own; a bundled app starts them through itself.
    multiprocessing.freeze_support()
    main()
