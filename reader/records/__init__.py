"""Typed records passed between the stages of reader.

Offsets everywhere are Python string indices into a document's canonical text:
the exact string the viewer shows.
"""

from reader.records.answers import (
    Answer,
    AnswerMetrics,
    AnswerSpan,
    CheckedClaim,
    ChoiceConfidence,
    Claim,
    Grounding,
    Verification,
    VerificationStatus,
    answer_from_json,
)
from reader.records.documents import (
    Chunk,
    Document,
    DocumentSummary,
    Furniture,
    FurnitureKind,
    Heading,
    OcrBox,
    OcrConfidence,
    OcrPageInfo,
    PageStarts,
    SearchHit,
    deep_link,
    furniture_from_json,
    page_at,
    page_name,
    printed_label,
)

__all__ = [
    "Answer",
    "AnswerMetrics",
    "AnswerSpan",
    "CheckedClaim",
    "ChoiceConfidence",
    "Chunk",
    "Claim",
    "Document",
    "DocumentSummary",
    "Furniture",
    "FurnitureKind",
    "Grounding",
    "Heading",
    "OcrBox",
    "OcrConfidence",
    "OcrPageInfo",
    "PageStarts",
    "SearchHit",
    "Verification",
    "VerificationStatus",
    "answer_from_json",
    "deep_link",
    "furniture_from_json",
    "page_at",
    "page_name",
    "printed_label",
]
