"""Answers: a model answers with quoted claims and every quote is verified."""

from reader.answer.pipeline import DEFAULT_MODE, Answerer
from reader.models.backends import ScriptedBackend
from reader.models.model_process import EmbeddedBackend
from reader.models.server_client import ServerBackend, ServerTimeouts

__all__ = [
    "DEFAULT_MODE",
    "Answerer",
    "EmbeddedBackend",
    "ScriptedBackend",
    "ServerBackend",
    "ServerTimeouts",
]
