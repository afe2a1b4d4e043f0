"""Printed lines as ingest compares them across pages: case folded, whitespace
runs as one space (what a running head, a slug or a repeated title line is
matched by).

A book has tens of thousands of lines; folding and splitting each alone was a
twentieth of a text PDF's ingest. Case folding acts on each character alone and
folds none into a line break, so one fold of all lines joined by line breaks,
and two substitutions over it, give every line's key at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

# Whitespace other than the line break, at a line's ends and in runs inside it.
_EDGE_SPACE = re.compile(r"^[^\S\n]+|[^\S\n]+$", re.MULTILINE)
_INNER_SPACE = re.compile(r"[^\S\n]{2,}|[^\S \n]")


def line_key(text: str, mask: Callable[[str], str] | None = None) -> str:
    """One line's key: ``" ".join(text.casefold().split())``, ``mask`` applied to
    the folded text first."""
    folded = text.casefold()
    return " ".join((mask(folded) if mask else folded).split())


def line_keys(texts: Sequence[str], mask: Callable[[str], str] | None = None) -> list[str]:
    """``line_key`` of each text (``mask`` applied to the folded text first), made
    in one pass over all of them; a text holding a line break is keyed alone."""
    folded = "\n".join(texts).casefold()
    if mask is not None:
        folded = mask(folded)
    keys = _INNER_SPACE.sub(" ", _EDGE_SPACE.sub("", folded)).split("\n")
    if len(keys) == len(texts):
        return keys
    return [line_key(text, mask) for text in texts]
