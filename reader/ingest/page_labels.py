"""The numbers printed on a PDF's pages, from its page labels.

A book's front matter is numbered i, ii, iii and its first chapter starts again
at 1; an appendix may be A-1, A-2. The PDF says so in its page labels, and a
reader cites the printed number, not the page's place in the file.
"""

from __future__ import annotations

import re

import pymupdf

# PyMuPDF gives a prefix written as a UTF-16 hex string as it is: "<FEFF0043>1".
_HEX_STRING = re.compile(r"<FEFF((?:[0-9A-Fa-f]{4})+)>")


def printed_page_labels(document: pymupdf.Document) -> list[str]:
    """The label of each page, or none at all when the file has no labels, they
    cannot be read, or every label is only the page's own number."""
    try:
        if not document.get_page_labels():
            return []
        labels = [_decoded(label) for label in _page_labels(document)]
    except Exception:  # a damaged label tree: the pages keep their numbers
        return []
    if all(label == str(number) for number, label in enumerate(labels, start=1)):
        return []
    return labels


def _page_labels(document: pymupdf.Document) -> list[str]:
    """What ``get_label()`` gives for each page. It loads the page and reads and
    sorts the label rules again for every page; here they are read once, and the
    label found by the function ``get_label`` calls."""
    read_rules = getattr(document, "_get_page_labels", None)
    label_of = getattr(pymupdf.utils, "get_label_pno", None)
    if read_rules is None or label_of is None:  # another PyMuPDF: page by page
        return [document[number].get_label() for number in range(document.page_count)]
    rules = read_rules()
    if not rules:
        return [""] * document.page_count
    rules.sort()
    return [label_of(number, rules) for number in range(document.page_count)]


def _decoded(label: str) -> str:
    text = _HEX_STRING.sub(lambda match: bytes.fromhex(match.group(1)).decode("utf-16-be"), label)
    return " ".join(text.split())[:40]
