"""Answers: a model answers with quoted claims and every quote is verified."""

from reader.answer.backends import ScriptedBackend
from reader.answer.model_process import EmbeddedBackend
from reader.answer.pipeline import DEFAULT_MODE, Answerer
from reader.answer.server import ServerBackend, ServerTimeouts

__all__ = [
    "DEFAULT_MODE",
    "Answerer",
    "EmbeddedBackend",
    "ScriptedBackend",
    "ServerBackend",
    "ServerTimeouts",
]
