"""Answers as text for a terminal and as Markdown for export."""

from __future__ import annotations

from reader.records import Answer, CheckedClaim


def _marked_prose(answer: Answer, marker: str) -> tuple[str, dict[int, int]]:
    """The prose with a numbered marker after each verified claim's text.

    Returns the prose and, for each verified claim's index, its marker number.
    Unverified claims get no marker.
    """
    prose = answer.answer
    numbers: dict[int, int] = {}
    inserts: list[tuple[int, str]] = []
    cursor = 0
    for index, item in enumerate(answer.claims):
        if not item.verified:
            continue
        numbers[index] = len(numbers) + 1
        found = prose.find(item.claim.text, cursor) if item.claim.text else -1
        if found < 0:
            found = prose.find(item.claim.text) if item.claim.text else -1
        if found >= 0:
            end = found + len(item.claim.text)
            inserts.append((end, marker.format(numbers[index])))
            cursor = end
    for position, text in sorted(inserts, reverse=True):
        prose = prose[:position] + text + prose[position:]
    return prose, numbers


def verification_summary(answer: Answer) -> str:
    metrics = answer.metrics
    verified = metrics.exact + metrics.fuzzy
    if not metrics.claims:
        return "no claims to verify"
    rate = verified / metrics.claims
    return f"{verified} of {metrics.claims} claims verified ({rate:.0%})"


def _status_note(item: CheckedClaim) -> str:
    if item.verification.status == "fuzzy":
        return "fuzzy: the source text was damaged in extraction"
    return item.verification.status


def render_text(answer: Answer, titles: dict[str, str] | None = None) -> str:
    prose, numbers = _marked_prose(answer, " [{}]")
    lines = [prose or "(no answer)", ""]
    for index, item in enumerate(answer.claims):
        if index in numbers:
            where = f"p.{item.verification.page}"
            if titles and len(set(titles)) > 1 and item.doc_id in titles:
                where = f"{titles[item.doc_id]}, {where}"
            lines.append(f'[{numbers[index]}] {where}: "{item.claim.quote}" ({_status_note(item)})')
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
        lines.append("Unsupported, by the model's own account:")
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
            lines.append(f'[^{numbers[index]}]: {source}: "{item.claim.quote}" ({status})')
    failed = [item for item in answer.claims if not item.verified]
    if failed:
        lines += ["", "**Not verified:**", ""]
        lines += [
            f'- {item.claim.text} (quote: "{item.claim.quote}"; {item.verification.reason})'
            for item in failed
        ]
    if answer.unsupported:
        lines += ["", "**Unsupported (the model's own list):**", ""]
        lines += [f"- {text}" for text in answer.unsupported]
    lines += ["", f"_{verification_summary(answer)}; model: {answer.model}._", ""]
    return "\n".join(lines)
