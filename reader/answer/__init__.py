"""Answers: a model answers with quoted claims and every quote is verified."""

from reader.answer.backends import EmbeddedBackend, ScriptedBackend, ServerBackend
from reader.answer.pipeline import DEFAULT_MODE, Answerer
from reader.answer.reverify import reverify

__all__ = [
    "DEFAULT_MODE",
    "Answerer",
    "EmbeddedBackend",
    "ScriptedBackend",
    "ServerBackend",
    "reverify",
]
