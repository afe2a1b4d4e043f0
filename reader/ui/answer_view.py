"""The answer as the ask panel shows it: prose with markers on verified claims."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QTextBrowser, QToolTip

from reader.answer.render import claim_numbers, prose_pieces
from reader.records import Answer, CheckedClaim
from reader.textsafe import html_text

FUZZY_TIP = "Fuzzy match: the quote is in the source, but not letter for letter: {reason}"


def answer_html(answer: Answer, titles: dict[str, str] | None = None) -> str:
    """HTML for an answer. Verified claims link to ``claim:N``; others have no link.

    The link sits on ``shown_text``: the claim's words if its quote supports
    them, else the quote's own words. Every piece of text is escaped, so the
    only links are the ones built here from the verifier's outcomes.
    """
    numbers = claim_numbers(answer)
    parts = []
    for piece in prose_pieces(answer):
        text = html.escape(piece.text)
        if piece.claim is None:
            parts.append(text)
        else:
            parts.append(_linked(answer, piece.claim, numbers[piece.claim], text))
    body = "".join(parts) or "<i>No answer.</i>"

    out = [f"<p>{body}</p>"]
    verified = [(i, item) for i, item in enumerate(answer.claims) if item.verified]
    if verified:
        out.append("<p><b>Sources</b></p><ol>")
        for index, item in verified:
            page = item.verification.page
            title = html_text((titles or {}).get(item.doc_id or "", ""))
            where = f"{title}, page {page}" if title else f"page {page}"
            kind = " (evidence)" if item.from_evidence else ""
            if item.reanchored:
                kind += " (linked to the sentence that says it)"
            if item.verification.status == "fuzzy":  # why: extraction damage, or an OCR'd page
                kind = f" (fuzzy: {html_text(item.verification.reason)})"
            if not item.grounded:
                kind += " (the claim was not grounded in this quote, so the quote is shown)"
            out.append(
                f'<li value="{numbers[index]}"><a href="claim:{index}">{where}</a>{kind}: '
                f"&ldquo;{html_text(item.claim.quote)}&rdquo;</li>"
            )
        out.append("</ol>")
    failed = [item for item in answer.claims if not item.verified]
    if failed:
        out.append("<p><b>Not verified</b> (no link):</p><ul>")
        for item in failed:
            out.append(
                f"<li>{html_text(item.claim.text)} <span style='color: gray'>"
                f"&mdash; {html_text(item.verification.reason)}</span></li>"
            )
        out.append("</ul>")
    if answer.closest:
        out.append("<p><b>Closest passages</b> (they do not answer it):</p><ul>")
        for item in answer.closest:
            title = html_text((titles or {}).get(item.doc_id or "", ""))
            page = item.verification.page
            where = f"{title}, page {page}" if title else f"page {page}"
            out.append(f"<li>{where}: &ldquo;{html_text(item.claim.quote)}&rdquo;</li>")
        out.append("</ul>")
    if answer.unsupported:
        out.append(
            "<p><b>Unsupported</b> (the model's own list, and claims their quotes do "
            "not say):</p><ul>"
        )
        out.extend(f"<li>{html_text(text)}</li>" for text in answer.unsupported)
        out.append("</ul>")
    if answer.problem:
        out.append(f"<p style='color: gray'>Note: {html_text(answer.problem)}</p>")
    return "\n".join(out)


# A badge is a coloured box with white text: escaped model text can draw neither.
VERIFIED_BADGE_COLOR = "#1e7d3a"
UNVERIFIED_BADGE_COLOR = "#a93226"
# The "answer" field of the model's JSON as far as it has been written.
_PARTIAL_ANSWER = re.compile(r'"answer"\s*:\s*"((?:[^"\\]|\\.)*)')


def stream_html(raw_output: str, claims: list[CheckedClaim]) -> str:
    """HTML for an answer still being written: the model's draft, then the checked claims.

    The draft is dimmed, in italics and after a "Draft" label, in one
    paragraph, so none of its lines can pass for a checked claim. Each checked
    claim starts its own paragraph with a badge that only the verifier's
    outcome decides: "✓ verified" or "✗ not verified".
    """
    out = []
    partial = _PARTIAL_ANSWER.search(raw_output)
    if partial:
        draft = partial.group(1).replace('\\"', '"').replace("\\n", "\n")
        out.append(
            f"<p style='color: gray'><b>Draft, not yet checked:</b> <i>{html_text(draft)}</i></p>"
        )
    for item in claims:
        color = VERIFIED_BADGE_COLOR if item.verified else UNVERIFIED_BADGE_COLOR
        label = "&#10003; verified" if item.verified else "&#10007; not verified"
        out.append(
            f"<p><span style='background-color: {color}; color: white; font-weight: bold'>"
            f"&nbsp;{label}&nbsp;</span> {html_text(item.shown_text)}</p>"
        )
    if not out:
        out.append(f"<p style='color: gray'>Generating… {len(raw_output)} characters</p>")
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

    def show_stream(self, raw_output: str, claims: list[CheckedClaim]) -> None:
        """Show an answer being written (``stream_html``); nothing in it is a link yet."""
        self.answer = None
        self.setHtml(stream_html(raw_output, claims))

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
            verification = self.answer.claims[index].verification
            if verification.status == "fuzzy":
                tip = FUZZY_TIP.format(reason=verification.reason)
                QToolTip.showText(event.globalPosition().toPoint(), tip, self)
        super().mouseMoveEvent(event)
