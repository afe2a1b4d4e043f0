from __future__ import annotations

import json
from pathlib import Path

import pytest

from reader.answer import ScriptedBackend
from reader.library import Library
from reader.records import Chunk

FILLER = " ".join(
    f"Archive note {n} records the weather, the harvest and the price of bread in that year."
    for n in range(9)
)
TREATY = (
    "The Treaty of Westphalia was signed in 1648. It ended the Thirty Years' War in the "
    "Holy Roman Empire. Historians see it as the start of the modern state system.\n\n"
    f"{FILLER}\n\n"
    "The Peace of Utrecht in 1713 ended the War of the Spanish Succession. It was a series "
    "of treaties signed in the Dutch city of Utrecht.\n\n"
    f"{FILLER}\n\n"
    "The Congress of Vienna met in 1814 and 1815. It redrew the map of Europe after the "
    "defeat of Napoleon.\n"
)


@pytest.fixture
def treaty(library: Library, tmp_path: Path) -> tuple[Library, str]:
    path = tmp_path / "treaties.txt"
    path.write_text(TREATY, encoding="utf-8")
    return library, library.ingest(path).doc_id


@pytest.fixture
def backend() -> ScriptedBackend:
    return ScriptedBackend()


def claims_json(*claims: tuple[str, str, str], answer: str = "", unsupported=()) -> str:
    return json.dumps(
        {
            "answer": answer or " ".join(text for text, _, _ in claims),
            "claims": [{"text": t, "source_id": s, "quote": q} for t, s, q in claims],
            "unsupported": list(unsupported),
        }
    )


def chunk_with(library: Library, doc_id: str, phrase: str) -> Chunk:
    return next(c for c in library.chunks(doc_id) if phrase in c.text)


class ReadsAhead(ScriptedBackend):
    """A scripted model that records what it is asked to load and read ahead."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded = 0
        self.read: list[list[dict[str, str]]] = []

    def load(self) -> None:
        self.loaded += 1

    def read_ahead(self, messages, cancel=None) -> int:
        self.read.append(messages)
        return 42
