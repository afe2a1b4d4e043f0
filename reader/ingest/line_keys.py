"""Printed lines as ingest compares them across pages: case folded, whitespace
runs as one space (what a running head, a slug or a repeated title line is
matched by).

A book has tens of thousands of lines; folding each alone was a twentieth of a
text PDF's ingest. Case folding acts on each character alone and folds none into
a line break, so all lines are folded at once, joined by line breaks, and split
again. (Collapsing the whitespace with regular expressions over the joined text
took three times as long as ``str.split`` on each line:
a negated class of whitespace is tested character by character.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


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
    lines = folded.split("\n")
    if len(lines) == len(texts):
        return [" ".join(line.split()) for line in lines]
    return [line_key(text, mask) for text in texts]
