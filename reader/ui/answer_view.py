"""The answer as the ask panel shows it: prose with markers on verified claims."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QTextBrowser, QToolTip

from reader.library import claim_numbers, leading_answer, prose_pieces
from reader.records import Answer, CheckedClaim
from reader.text.escaping import html_text, one_line

# Faint backgrounds for a verified claim's words: quiet enough to read as prose.
VERIFIED_TINT = "#e6f2e8"
FUZZY_TINT = "#fbeed6"
DARK_VERIFIED_TINT = "#22402a"
FUZZY_TIP = "Fuzzy match: the quote is in the source, but not letter for letter: {reason}"


def answer_html(
    answer: Answer, titles: dict[str, str] | None = None, tint: str = VERIFIED_TINT
) -> str:
    """HTML for an answer: prose with a numbered superscript marker after each
    verified claim; the markers are the only links, one per verified claim.

    A verified claim's words (``shown_text``: its own if its quote supports them,
    else the quote's) are set off by a faint ``tint`` background, not as link
    text. Every piece of text is escaped, so the only links are the ones built
    here from the verifier's outcomes.
    """
    numbers = claim_numbers(answer)
    marked: set[int] = set()
    parts = []
    for piece in prose_pieces(answer):
        if piece.claim is None:
            parts.append(html.escape(piece.text))
        else:
            marked.add(piece.claim)
            text = _with_direct_answer(answer.claims[piece.claim], piece.text)
            parts.append(_marked(answer, piece.claim, numbers[piece.claim], text, tint))
    body = "".join(parts) or "<i>No answer.</i>"

    out = []
    lead = leading_answer(answer)
    if lead is not None:
        # The answer first: the quote's own words that answer, linked to their sentence.
        index, words = lead
        link = _marker_link(answer, index, numbers[index])
        out.append(f"<p><b>Answer:</b> <b>{html_text(words)}</b>{link}</p>")
    out.append(f"<p>{body}</p>")
    verified = [(i, item) for i, item in enumerate(answer.claims) if item.verified]
    if verified:
        out.append("<p><b>Sources</b></p>")
        for index, item in verified:
            number = numbers[index]
            # A claim missing from the prose has no marker there: its link is here.
            label = str(number) if index in marked else _marker_link(answer, index, number)
            out.append(
                f"<p style='margin-top: 2px; margin-bottom: 2px'>{label}. "
                f"{_source_line(item, titles)}</p>"
            )
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
            page = html_text(item.verification.page_name())
            where = f"{title}, {page}" if title else page
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


def _with_direct_answer(item: CheckedClaim, shown: str) -> str:
    """The escaped words shown for a claim, its direct answer in bold where it has one
    (``shown`` is the one-line quote, which the span's offsets index)."""
    span = item.answer_span
    if item.direct_answer is None or span is None or shown != one_line(item.shown_text):
        return html.escape(shown)
    start, end = span.in_quote
    return (
        html.escape(shown[:start])
        + f"<b>{html.escape(shown[start:end])}</b>"
        + html.escape(shown[end:])
    )


def _source_line(item: CheckedClaim, titles: dict[str, str] | None) -> str:
    """Document, page and status; the quote only when the prose does not already show
    it word for word as the claim's text."""
    page = html_text(item.verification.page_name())
    title = html_text((titles or {}).get(item.doc_id or "", ""))
    where = f"{title}, {page}" if title else page
    if item.verification.status == "fuzzy":  # why: extraction damage, or an OCR'd page
        status = f"fuzzy: {html_text(item.verification.reason)}"
    else:
        status = "verified"
    if item.from_evidence:
        status += "; evidence"
    if item.reanchored:
        status += "; linked to the sentence that says it"
    if item.why_no_direct_answer is not None:
        status += f"; no direct answer: {html_text(item.why_no_direct_answer)}"
    elif not item.grounded:
        status += "; the claim was not grounded in this quote, so the quote is shown"
    line = f"{where} ({status})"
    if one_line(item.shown_text) != one_line(item.claim.quote):
        line += f": &ldquo;{html_text(item.claim.quote)}&rdquo;"
    return line


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


def _marked(answer: Answer, index: int, number: int, escaped_text: str, tint: str) -> str:
    """A verified claim's words on a faint background, then its marker link. A fuzzy
    match gets a warm tint and an orange marker: its tooltip says why."""
    fuzzy = answer.claims[index].verification.status == "fuzzy"
    background = FUZZY_TINT if fuzzy else tint
    return (
        f'<span style="background-color: {background}">{escaped_text}</span>'
        f"{_marker_link(answer, index, number)}"
    )


def _marker_link(answer: Answer, index: int, number: int) -> str:
    fuzzy = answer.claims[index].verification.status == "fuzzy"
    color = "color: #b36b00; " if fuzzy else ""
    return f'<sup><a href="claim:{index}" style="{color}text-decoration: none">{number}</a></sup>'


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
        # On a dark palette the light tint would wash out light text.
        dark = self.palette().base().color().lightness() < 128
        self.setHtml(answer_html(answer, titles, DARK_VERIFIED_TINT if dark else VERIFIED_TINT))

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
