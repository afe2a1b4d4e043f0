"""Checking quotes against the canonical text, to the character."""

from reader.verify.passages import PassageVerifier
from reader.verify.verifier import DocumentVerifier

__all__ = ["DocumentVerifier", "PassageVerifier"]
