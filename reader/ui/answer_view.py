"""The answer as the ask panel shows it: prose with markers on verified claims."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QTextBrowser, QToolTip

from reader.records import Answer

FUZZY_TIP = (
    "Fuzzy match: the quote is in the source, but the document's text was damaged in "
    "extraction (a ligature, a broken word), so the match is approximate."
)


def answer_html(answer: Answer, titles: dict[str, str] | None = None) -> str:
    """HTML for an answer. Verified claims link to ``claim:N``; others have no link.

    The link sits on ``shown_text``: the claim's words if its quote supports
    them, else the quote's own words.
    """
    prose = answer.answer or ""
    pieces: list[tuple[int, int, int]] = []  # (start, end, claim index) in the prose
    cursor = 0
    for index, item in enumerate(answer.claims):
        text = item.shown_text
        if not item.verified or not text:
            continue
        found = prose.find(text, cursor)
        if found < 0:
            found = prose.find(text)
        if found >= 0 and all(found >= e or found + len(text) <= s for s, e, _ in pieces):
            pieces.append((found, found + len(text), index))
            cursor = found + len(text)
    pieces.sort()
    numbers = {
        index: n
        for n, index in enumerate(
            [i for i, item in enumerate(answer.claims) if item.verified], start=1
        )
    }

    parts = []
    position = 0
    for start, end, index in pieces:
        parts.append(html.escape(prose[position:start]))
        parts.append(_linked(answer, index, numbers[index], html.escape(prose[start:end])))
        position = end
    parts.append(html.escape(prose[position:]))
    body = "".join(parts) or "<i>No answer.</i>"

    out = [f"<p>{body}</p>"]
    verified = [(i, item) for i, item in enumerate(answer.claims) if item.verified]
    if verified:
        out.append("<p><b>Sources</b></p><ol>")
        for index, item in verified:
            page = item.verification.page
            title = (titles or {}).get(item.doc_id or "", "")
            where = f"{html.escape(title)}, page {page}" if title else f"page {page}"
            kind = " (fuzzy)" if item.verification.status == "fuzzy" else ""
            if not item.grounded:
                kind += " (the claim was not grounded in this quote, so the quote is shown)"
            out.append(
                f'<li value="{numbers[index]}"><a href="claim:{index}">{where}</a>{kind}: '
                f"&ldquo;{html.escape(' '.join(item.claim.quote.split()))}&rdquo;</li>"
            )
        out.append("</ol>")
    failed = [item for item in answer.claims if not item.verified]
    if failed:
        out.append("<p><b>Not verified</b> (no link):</p><ul>")
        for item in failed:
            out.append(
                f"<li>{html.escape(item.claim.text)} <span style='color: gray'>"
                f"&mdash; {html.escape(item.verification.reason)}</span></li>"
            )
        out.append("</ul>")
    if answer.unsupported:
        out.append(
            "<p><b>Unsupported</b> (the model's own list, and claims their quotes do "
            "not say):</p><ul>"
        )
        out.extend(f"<li>{html.escape(text)}</li>" for text in answer.unsupported)
        out.append("</ul>")
    if answer.problem:
        out.append(f"<p style='color: gray'>Note: {html.escape(answer.problem)}</p>")
    return "\n".join(out)


def _linked(answer: Answer, index: int, number: int, escaped_text: str) -> str:
    item = answer.claims[index]
    if item.verification.status == "fuzzy":
        style = "color: #b36b00; text-decoration: underline dotted"
        marker = f"[{number}~]"
    else:
        style = "text-decoration: none"
        marker = f"[{number}]"
    return (
        f'<a href="claim:{index}" style="{style}">{escaped_text}</a>'
        f'<sup><a href="claim:{index}" style="{style}">{marker}</a></sup>'
    )


class AnswerView(QTextBrowser):
    """Shows an answer; emits ``claim_activated(index)`` for verified claims only."""

    claim_activated = Signal(int)

    def __init__(self) -> None:
        super().__init__()
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextBrowserInteraction
            | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
        )
        self.setMouseTracking(True)
        self.anchorClicked.connect(self._on_anchor_clicked)
        self.answer: Answer | None = None

    def show_answer(self, answer: Answer, titles: dict[str, str] | None = None) -> None:
        self.answer = answer
        self.setHtml(answer_html(answer, titles))

    def show_text(self, text: str) -> None:
        self.answer = None
        self.setPlainText(text)

    def linked_claims(self) -> set[int]:
        """Indexes of the claims that carry a link in the shown HTML."""
        source = self.toHtml()
        return {
            index
            for index in range(len(self.answer.claims if self.answer else []))
            if f'href="claim:{index}"' in source
        }

    def _on_anchor_clicked(self, url) -> None:
        target = url.toString()
        if target.startswith("claim:") and self.answer is not None:
            index = int(target.split(":", 1)[1])
            if 0 <= index < len(self.answer.claims) and self.answer.claims[index].verified:
                self.claim_activated.emit(index)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        anchor = self.anchorAt(event.position().toPoint())
        if anchor.startswith("claim:") and self.answer is not None:
            index = int(anchor.split(":", 1)[1])
            if self.answer.claims[index].verification.status == "fuzzy":
                QToolTip.showText(event.globalPosition().toPoint(), FUZZY_TIP, self)
        super().mouseMoveEvent(event)
