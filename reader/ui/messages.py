"""Messages to the user: any part of the window calls ``error``, ``warning``,
``info`` or ``report`` (for a ``ReaderError``), and the window's message bar,
which subscribes, draws them.

The parts never hold the bar: one object carries every message as a signal,
so a panel says what happened without knowing where it is shown. Call these
on the GUI thread (background work reports through its op's callbacks, which
run there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from PySide6.QtCore import QObject, Signal

from reader.errors import LibraryDamagedError, ReaderError

Level = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Message:
    """One message: its text (untrusted: the bar shows it as literal text), how
    serious it is, and whether it offers to repair the library."""

    text: str
    level: Level
    offers_repair: bool = False


class MessageHub(QObject):
    """The one object every message passes through."""

    posted = Signal(object)  # a Message


_hub: MessageHub | None = None


def hub() -> MessageHub:
    """The hub a message bar subscribes to (made on first use)."""
    global _hub
    if _hub is None:
        _hub = MessageHub()
    return _hub


def error(text: str) -> None:
    """Something failed."""
    hub().posted.emit(Message(text, "error"))


def warning(text: str) -> None:
    """Nothing failed, but the user should know (a file read with problems, a
    library that cannot be written)."""
    hub().posted.emit(Message(text, "warning"))


def info(text: str) -> None:
    """What finished work did."""
    hub().posted.emit(Message(text, "info"))


def report(failure: ReaderError) -> None:
    """A ``ReaderError``'s message; a damaged library's offers to repair it."""
    hub().posted.emit(
        Message(str(failure), "error", offers_repair=isinstance(failure, LibraryDamagedError))
    )
