"""Back matter: the parts of a document that point at its text without saying it.

An index ("Causby, Thomas Lee, 2, 3, 7, 11"), a table of contents, a list of
figures or tables and a list of works cited all hold a question's words as well
as the sentence that answers it does, and say nothing themselves. A chunk is
back matter when a heading over it names one of those parts, or when its text
has the shape of one: most of its words are page numbers (an index), or most of
its lines end in one (contents). Figures with decimals, percentages or units
are a table's data, not page numbers, and do not count.
"""

from __future__ import annotations

import re

# Headings of back matter, as a whole heading (numbered or not).
_HEADING = re.compile(
    r"^\s*(?:[\dIVXivx]+(?:\.\d+)*\.?\s+)?(?:"
    r"(?:general |subject |name |author |alphabetical )?index(?: of [\w ]+)?"
    r"|(?:table of )?contents|list of (?:figures|tables|illustrations|abbreviations|plates)"
    r"|references(?: cited)?|bibliography|select bibliography|works cited|literature cited"
    r"|sources cited|cited literature"
    r")\s*$",
    re.IGNORECASE,
)
# A page reference as an index gives it: "75", "158–60", "320n", "xii", with the
# comma or semicolon after it.
_PAGE_REFERENCE = re.compile(
    r"^(?:\d{1,4}(?:[–-]\d{1,4})?n?|[ivxlc]{1,6})[,;.]?$",
    re.IGNORECASE,
)
# A line of contents: ends in a page number, often after leader dots.
_CONTENTS_LINE = re.compile(r"\S.*?(?:\s|\.)(?:\d{1,4}|[ivxlc]{1,6})\s*$", re.IGNORECASE)
# Shares of a chunk's words or lines above which it has the shape of back matter.
INDEX_SHARE = 0.3
CONTENTS_SHARE = 0.6
# Too little text to judge by its shape.
MIN_WORDS = 12
MIN_LINES = 5


def is_back_matter_heading(heading: str) -> bool:
    return _HEADING.match(heading) is not None


def looks_like_back_matter(text: str) -> bool:
    """Whether ``text`` has the shape of an index or a table of contents."""
    tokens = text.split()
    if len(tokens) >= MIN_WORDS:
        references = sum(1 for token in tokens if _PAGE_REFERENCE.match(token))
        if references / len(tokens) >= INDEX_SHARE:
            return True
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) >= MIN_LINES:
        ending = sum(1 for line in lines if _CONTENTS_LINE.fullmatch(line.strip()))
        if ending / len(lines) >= CONTENTS_SHARE:
            return True
    return False


def is_back_matter(heading: tuple[str, ...], text: str) -> bool:
    """Whether a chunk under ``heading`` (outermost first) holding ``text`` is back matter."""
    return any(is_back_matter_heading(h) for h in heading) or looks_like_back_matter(text)
