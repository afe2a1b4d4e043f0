"""Answers as text for a terminal and as Markdown for export."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from reader.records import Answer, CheckedClaim
from reader.text.escaping import (
    counted,
    escape_markdown,
    escape_terminal,
    guard_markdown_line,
    guard_terminal_line,
    markdown_inline,
    markdown_text,
    one_line,
    terminal_text,
)


@dataclass(frozen=True, slots=True)
class ProsePiece:
    """A run of an answer's prose, cleaned to one line.

    ``claim`` is the index of the verified claim whose shown words these are,
    or None for words no verified claim stands behind.
    """

    text: str
    claim: int | None = None


def prose_pieces(answer: Answer) -> list[ProsePiece]:
    """The prose folded to one line (model text never starts a line of its own),
    cut where each verified claim's ``shown_text`` stands.

    The words shown for a claim are the claim's own when its quote supports
    them, else the quote's; unverified claims get no piece of their own.
    """
    prose = one_line(answer.answer)
    spans: list[tuple[int, int, int]] = []  # (start, end, claim index) in the prose
    cursor = 0
    for index, item in enumerate(answer.claims):
        shown = one_line(item.shown_text)
        if not item.verified or not shown:
            continue
        found = prose.find(shown, cursor)
        if found < 0:
            found = prose.find(shown)
        end = found + len(shown)
        if found >= 0 and all(found >= e or end <= s for s, e, _ in spans):
            spans.append((found, end, index))
            cursor = end
    pieces = []
    position = 0
    for start, end, index in sorted(spans):
        if start > position:
            pieces.append(ProsePiece(prose[position:start]))
        pieces.append(ProsePiece(prose[start:end], index))
        position = end
    if position < len(prose):
        pieces.append(ProsePiece(prose[position:]))
    return pieces


def claim_numbers(answer: Answer) -> dict[int, int]:
    """Each verified claim's index mapped to its marker number, 1, 2, ... in order."""
    verified = [index for index, item in enumerate(answer.claims) if item.verified]
    return {index: number for number, index in enumerate(verified, start=1)}


def _marked_prose(answer: Answer, escape: Callable[[str], str], marker: str) -> str:
    """The prose, escaped piece by piece, with a numbered marker after each verified
    claim's shown words: the markers are the only text not escaped."""
    numbers = claim_numbers(answer)
    parts = []
    for piece in prose_pieces(answer):
        parts.append(escape(piece.text))
        if piece.claim is not None:
            parts.append(marker.format(numbers[piece.claim]))
    return "".join(parts)


def leading_answer(answer: Answer) -> tuple[int, str] | None:
    """The first claim's direct answer (words a model chose from its quote, standing
    on their own: ``reader.answer.spans``) worth a line of its own before the
    prose: (the claim's index, the words). A direct answer is never its whole
    sentence, which the prose shows already."""
    for index, item in enumerate(answer.claims):
        if item.direct_answer:
            return index, item.direct_answer
    return None


def _lead(answer: Answer, escape: Callable[[str], str], label: str, marker: str) -> list[str]:
    """The direct answer's line, with its claim's marker, and a blank line; or nothing.
    It starts with reader's own ``label``, which the prose's lines cannot."""
    found = leading_answer(answer)
    if found is None:
        return []
    index, words = found
    number = claim_numbers(answer)[index]
    return [f"{label}{escape(one_line(words))}{marker.format(number)}", ""]


def verification_summary(answer: Answer) -> str:
    """What was checked, with the model's claims apart from the evidence shown.

    "2 model claims: 2 verified, 1 in its own words (50%); 1 evidence sentence".
    Evidence sentences are taken from the text, so they verify by construction
    and get no rate; the rate is the model's, and it can fall.
    """
    metrics = answer.metrics
    if answer.not_found is not None:
        return "not answered by the documents"
    if not metrics.claims:
        return "no claims to verify"
    parts = []
    if metrics.model_claims:
        rate = metrics.model_supported / metrics.model_claims
        claims = counted(metrics.model_claims, "model claim")
        part = (
            f"{claims}: {metrics.model_verified} verified, "
            f"{metrics.model_supported} supported by their quotes ({rate:.0%})"
        )
        if metrics.reanchored:
            part += f", {metrics.reanchored} linked to the sentence that says it"
        parts.append(part)
    if metrics.evidence_shown:
        parts.append(counted(metrics.evidence_shown, "evidence sentence"))
    return "; ".join(parts)


def _status_note(item: CheckedClaim, text: Callable[[str], str]) -> str:
    """The claim's status; a fuzzy one with its reason (extraction damage, or a
    page read by OCR and what to check on it), passed through ``text``."""
    status: str = item.verification.status
    if status == "fuzzy":
        status = f"fuzzy: {text(item.verification.reason)}"
    if item.from_evidence:
        status += "; evidence"
    elif item.reanchored:
        status += "; linked to the sentence that says it"
    if item.why_no_direct_answer is not None:
        status += f"; no direct answer: {text(item.why_no_direct_answer)}"
    elif not item.grounded and item.from_evidence and item.grounding is not None:
        # The sentence is the source's own: what failed is whether it answers.
        status += f"; it may not answer: {text(item.grounding.reason)}"
    elif not item.grounded:
        status += "; shown as the quote: the claim was not grounded in it"
    return status


def _where(item: CheckedClaim, titles: dict[str, str] | None, library_wide: bool) -> str:
    """The claim's page, and its document's title when more than one could be meant."""
    where = terminal_text(item.verification.page_name(short=True))
    if titles and (library_wide or len(titles) > 1) and item.doc_id in titles:
        where = f"{terminal_text(titles[item.doc_id])}, {where}"
    return where


def render_text(answer: Answer, titles: dict[str, str] | None = None) -> str:
    """The answer for a terminal: prose with ``[n]`` markers, then one line per source.

    Untrusted text is folded to one line with escape sequences dropped and
    marker look-alikes escaped, so only verified claims get ``[n]`` lines.
    """
    prose = guard_terminal_line(_marked_prose(answer, escape_terminal, " [{}]"))
    numbers = claim_numbers(answer)
    lead = _lead(answer, escape_terminal, "Answer: ", " [{}]")
    lines = [*lead, prose or "(no answer)", ""]
    for index, item in enumerate(answer.claims):
        if index in numbers:
            where = _where(item, titles, answer.library_wide)
            quote = terminal_text(item.claim.quote)
            note = _status_note(item, terminal_text)
            lines.append(f'[{numbers[index]}] {where}: "{quote}" ({note})')
    failed = [item for item in answer.claims if not item.verified]
    if failed:
        lines.append("")
        lines.append("Not verified (shown without a marker):")
        for item in failed:
            lines.append(
                f"- {terminal_text(item.claim.text)} (quote: "
                f'"{terminal_text(item.claim.quote)}"; {terminal_text(item.verification.reason)})'
            )
    if answer.closest:
        lines.append("")
        lines.append("Closest passages (they do not answer it):")
        for item in answer.closest:
            where = _where(item, titles, answer.library_wide)
            lines.append(f'- {where}: "{terminal_text(item.claim.quote)}"')
    if answer.unsupported:
        lines.append("")
        lines.append("Unsupported (the model's own list, and claims their quotes do not say):")
        lines.extend(f"- {terminal_text(text)}" for text in answer.unsupported)
    if answer.problem:
        lines.append("")
        lines.append(f"Note: {terminal_text(answer.problem)}")
    lines.append("")
    lines.append(f"Verification: {verification_summary(answer)}")
    return "\n".join(lines)


def render_markdown(answer: Answer, titles: dict[str, str] | None = None) -> str:
    """The answer as Markdown: prose with ``[^n]`` footnote references, one footnote per
    verified claim.

    Untrusted text is folded to one line with its markup escaped, so the only
    links, footnotes, headings and list items are reader's own.
    """
    prose = guard_markdown_line(_marked_prose(answer, escape_markdown, "[^{}]"))
    numbers = claim_numbers(answer)
    lead = _lead(answer, escape_markdown, "**Answer:** ", "[^{}]")
    lines = [f"## {markdown_text(answer.question)}", "", *lead, prose or "_No answer._", ""]
    for index, item in enumerate(answer.claims):
        if index in numbers:
            title = one_line((titles or {}).get(item.doc_id or "", ""))
            page = markdown_inline(item.verification.page_name())
            source = f"{markdown_text(title)}, {page}" if title else page
            status = "evidence, verified" if item.from_evidence else "verified"
            if item.reanchored:
                status += ", linked to the sentence that says it"
            if item.verification.status == "fuzzy":
                status += f" (fuzzy: {markdown_inline(item.verification.reason)})"
            if item.why_no_direct_answer is not None:
                status += f", no direct answer: {markdown_inline(item.why_no_direct_answer)}"
            elif not item.grounded and item.from_evidence and item.grounding is not None:
                status += f", it may not answer: {markdown_inline(item.grounding.reason)}"
            else:
                status += ", grounded" if item.grounded else ", not grounded: shown as the quote"
            quote = markdown_inline(item.claim.quote)
            lines.append(f'[^{numbers[index]}]: {source}: "{quote}" ({status})')
    failed = [item for item in answer.claims if not item.verified]
    if failed:
        lines += ["", "**Not verified:**", ""]
        lines += [
            f"- {markdown_text(item.claim.text)} (quote: "
            f'"{markdown_inline(item.claim.quote)}"; {markdown_inline(item.verification.reason)})'
            for item in failed
        ]
    if answer.closest:
        lines += ["", "**Closest passages (they do not answer it):**", ""]
        for item in answer.closest:
            title = one_line((titles or {}).get(item.doc_id or "", ""))
            page = markdown_inline(item.verification.page_name())
            source = f"{markdown_text(title)}, {page}" if title else page
            lines.append(f'- {source}: "{markdown_inline(item.claim.quote)}"')
    if answer.unsupported:
        lines += [
            "",
            "**Unsupported (the model's own list, and claims their quotes do not say):**",
            "",
        ]
        lines += [f"- {markdown_text(text)}" for text in answer.unsupported]
    summary = f"{verification_summary(answer)}; model: {markdown_inline(answer.model)}."
    lines += ["", f"_{summary}_", ""]
    return "\n".join(lines)
