"""Progress of one question, reported through a plain callback (never Qt signals)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from reader.records.answers import CheckedClaim


@dataclass(frozen=True)
class Status:
    """A stage began: "retrieving", "loading model", "generating", "verifying", "retrying"."""

    stage: str
    detail: str = ""


@dataclass(frozen=True)
class Token:
    """A piece of the model's raw output."""

    text: str


@dataclass(frozen=True)
class ClaimChecked:
    """A claim is complete in the output and has been verified."""

    claim: CheckedClaim


Event = Status | Token | ClaimChecked
EventCallback = Callable[[Event], None]
