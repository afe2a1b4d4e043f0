"""Checking quotes against the canonical text, to the character."""

from reader.verify.document import DocumentVerifier
from reader.verify.passages import PassageVerifier

__all__ = ["DocumentVerifier", "PassageVerifier"]
