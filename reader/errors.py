"""One family of errors, each with a message a user can act on.

The CLI prints ``str(error)`` as a single line and exits with status 2; the GUI
shows the same text in a message box. So every message says what happened and
what to do about it, and never contains a traceback.
"""

from __future__ import annotations


class ReaderError(Exception):
    """Base class for every expected failure in reader."""


class IngestError(ReaderError):
    """A document could not be turned into canonical text."""


class UnsupportedFormatError(IngestError):
    pass


class FileMissingError(IngestError):
    """No file at the path: nothing there, or a symbolic link that leads nowhere."""


class DanglingLinkError(FileMissingError):
    """A symbolic link whose target does not exist."""


class LinkLoopError(FileMissingError):
    """Symbolic links that point at each other and never reach a file."""


class NotAFileError(UnsupportedFormatError):
    """Something that is not a regular file: a folder, a pipe, a device, a socket."""


class UnreadableFileError(IngestError):
    """The file exists but this user may not read it."""


class EmptyDocumentError(IngestError):
    pass


class CorruptDocumentError(IngestError):
    pass


class EncryptedDocumentError(IngestError):
    pass


class NoTextLayerError(IngestError):
    pass


class DecodingError(IngestError):
    pass


class TooLargeError(IngestError):
    pass


class StoreError(ReaderError):
    """The library database could not be read or written."""


class LibraryDamagedError(StoreError):
    """The library file is damaged; reader will not write to it until repaired."""


class LibraryReadOnlyError(StoreError):
    """The library can be read but not written (a read-only file or folder)."""


class DocumentNotFoundError(ReaderError):
    pass


class ChunkNotFoundError(ReaderError):
    pass


class ModelError(ReaderError):
    """A language model could not be found, loaded or reached."""


class Cancelled(ReaderError):
    """The user cancelled the work (a question, an ingest, a repair) before it ended.

    Every stage raises this one type, so a handler tells a cancel from a failure
    with one ``except Cancelled`` before its ``except ReaderError``."""


class DisplayError(ReaderError):
    """The window cannot open: there is no display, or Qt cannot load what drawing on it
    needs (its platform plugin or the system libraries the plugin links to)."""
