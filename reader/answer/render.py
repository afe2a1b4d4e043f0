"""Answers as text for a terminal and as Markdown for export."""

from __future__ import annotations

from reader.records import Answer, CheckedClaim


def _marked_prose(answer: Answer, marker: str) -> tuple[str, dict[int, int]]:
    """The prose with a numbered marker after each verified claim's shown text.

    Returns the prose and, for each verified claim's index, its marker number.
    Unverified claims get no marker. The marker follows ``shown_text``: the
    claim's words when the quote supports them, else the quote's own words.
    """
    prose = answer.answer
    numbers: dict[int, int] = {}
    inserts: list[tuple[int, str]] = []
    cursor = 0
    for index, item in enumerate(answer.claims):
        if not item.verified:
            continue
        numbers[index] = len(numbers) + 1
        shown = item.shown_text
        found = prose.find(shown, cursor) if shown else -1
        if found < 0:
            found = prose.find(shown) if shown else -1
        if found >= 0:
            end = found + len(shown)
            inserts.append((end, marker.format(numbers[index])))
            cursor = end
    for position, text in sorted(inserts, reverse=True):
        prose = prose[:position] + text + prose[position:]
    return prose, numbers


def verification_summary(answer: Answer) -> str:
    """ "3 of 4 claims verified, 2 grounded (75%)"; or why there is nothing to check."""
    metrics = answer.metrics
    verified = metrics.exact + metrics.fuzzy
    if answer.not_found is not None:
        return "not found in the documents"
    if not metrics.claims:
        return "no claims to verify"
    rate = verified / metrics.claims
    return (
        f"{verified} of {metrics.claims} claims verified, {metrics.grounded} grounded ({rate:.0%})"
    )


def _status_note(item: CheckedClaim) -> str:
    status: str = item.verification.status
    if status == "fuzzy":
        status = "fuzzy: the source text was damaged in extraction"
    if not item.grounded:
        status += "; shown as the quote: the claim was not grounded in it"
    return status


def ungrounded(answer: Answer) -> list[CheckedClaim]:
    """Claims whose quote verified but whose own words the quote does not support."""
    return [c for c in answer.claims if c.verified and not c.grounded]


def render_text(answer: Answer, titles: dict[str, str] | None = None) -> str:
    prose, numbers = _marked_prose(answer, " [{}]")
    lines = [prose or "(no answer)", ""]
    for index, item in enumerate(answer.claims):
        if index in numbers:
            where = f"p.{item.verification.page}"
            if titles and len(set(titles)) > 1 and item.doc_id in titles:
                where = f"{titles[item.doc_id]}, {where}"
            quote = " ".join(item.claim.quote.split())
            lines.append(f'[{numbers[index]}] {where}: "{quote}" ({_status_note(item)})')
    failed = [item for item in answer.claims if not item.verified]
    if failed:
        lines.append("")
        lines.append("Not verified (shown without a marker):")
        for item in failed:
            lines.append(
                f'- {item.claim.text} (quote: "{item.claim.quote}"; {item.verification.reason})'
            )
    if answer.unsupported:
        lines.append("")
        lines.append("Unsupported (the model's own list, and claims their quotes do not say):")
        lines.extend(f"- {text}" for text in answer.unsupported)
    if answer.problem:
        lines.append("")
        lines.append(f"Note: {answer.problem}")
    lines.append("")
    lines.append(f"Verification: {verification_summary(answer)}")
    return "\n".join(lines)


def render_markdown(answer: Answer, titles: dict[str, str] | None = None) -> str:
    prose, numbers = _marked_prose(answer, "[^{}]")
    lines = [f"## {answer.question}", "", prose or "_No answer._", ""]
    for index, item in enumerate(answer.claims):
        if index in numbers:
            title = (titles or {}).get(item.doc_id or "", "")
            source = (
                f"{title}, page {item.verification.page}"
                if title
                else f"page {item.verification.page}"
            )
            status = "verified" if item.verification.status == "exact" else "verified (fuzzy)"
            status += ", grounded" if item.grounded else ", not grounded: shown as the quote"
            quote = " ".join(item.claim.quote.split())
            lines.append(f'[^{numbers[index]}]: {source}: "{quote}" ({status})')
    failed = [item for item in answer.claims if not item.verified]
    if failed:
        lines += ["", "**Not verified:**", ""]
        lines += [
            f'- {item.claim.text} (quote: "{item.claim.quote}"; {item.verification.reason})'
            for item in failed
        ]
    if answer.unsupported:
        lines += [
            "",
            "**Unsupported (the model's own list, and claims their quotes do not say):**",
            "",
        ]
        lines += [f"- {text}" for text in answer.unsupported]
    lines += ["", f"_{verification_summary(answer)}; model: {answer.model}._", ""]
    return "\n".join(lines)
