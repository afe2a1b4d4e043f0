"""From what Tesseract read to a page of canonical text with a box per character.

Tesseract's hOCR output gives paragraphs, lines and words in reading order, with
a box per character (in pixels of the page image) and a confidence per word.
Boxes become PDF points twice over: as displayed (page rotation applied), for
layout (columns, running heads), and unrotated, the space PyMuPDF's own
character boxes use, so a quote on an OCR'd page is drawn on the page image
exactly as on a page with a text layer. The page's text is then assembled as a
text layer's is: words joined by a space (none between two CJK words), lines by
a line break, paragraphs by a blank line.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from xml.etree import ElementTree

from reader.errors import IngestError

if TYPE_CHECKING:
    import pymupdf

    from reader.ingest.layout import TextBlock

Box = tuple[float, float, float, float]


@dataclass(slots=True)
class OcrWord:
    """A word as read: its text, one box per character (unrotated PDF points), and
    Tesseract's confidence in it, 0 to 100."""

    text: str
    char_boxes: list[Box]
    confidence: float


@dataclass(slots=True)
class OcrLine:
    words: list[OcrWord]
    box: Box  # as displayed, PDF points


@dataclass(slots=True)
class OcrParagraph:
    lines: list[OcrLine]
    box: Box  # as displayed, PDF points


@dataclass(slots=True)
class OcrPage:
    """What OCR read on one page, in reading order, and how."""

    paragraphs: list[OcrParagraph] = field(default_factory=list)
    turned: int = 0  # degrees the image was turned to read it upright
    seconds: float = 0.0
    # Whether most lines ran down the image Tesseract read: text it read turned by
    # 90 degrees (it gives such text no character boxes).
    sideways: bool = False

    @property
    def confidence(self) -> float:
        words = self.words()
        if not words:
            return 0.0
        return sum(word.confidence for word in words) / len(words)

    @property
    def confident_share(self) -> float:
        """The share of characters in words read with a confidence of 90 or more
        (0 on an empty page): near 0 for a page read upside down. The mean
        confidence cannot tell: a poor scan read upright has one as low."""
        words = self.words()
        characters = sum(len(word.text) for word in words)
        confident = sum(len(word.text) for word in words if word.confidence >= 90)
        return confident / characters if characters else 0.0

    def words(self) -> list[OcrWord]:
        return [w for paragraph in self.paragraphs for line in paragraph.lines for w in line.words]


class PixelsToPage:
    """Maps pixel boxes of a rendered page image to PDF points, displayed and unrotated.

    The maps are plain affine transforms applied here: a page holds thousands of
    character boxes, and PyMuPDF's rectangle objects made most of the parsing time.
    """

    def __init__(self, page: pymupdf.Page, matrix: pymupdf.Matrix, origin: pymupdf.Point):
        import pymupdf

        to_displayed = pymupdf.Matrix(1, 0, 0, 1, origin.x, origin.y) * ~matrix
        self._to_displayed = tuple(to_displayed)
        self._to_unrotated = tuple(to_displayed * page.derotation_matrix)

    def displayed(self, box: Sequence[float]) -> Box:
        return _transformed(box, self._to_displayed)

    def unrotated(self, box: Sequence[float]) -> Box:
        x0, y0, x1, y1 = _transformed(box, self._to_unrotated)
        return (round(x0, 2), round(y0, 2), round(x1, 2), round(y1, 2))


def _transformed(box: Sequence[float], matrix: Sequence[float]) -> Box:
    """The bounding box of ``box`` mapped by the affine ``matrix`` (a, b, c, d, e, f)."""
    a, b, c, d, e, f = matrix
    x0, y0, x1, y1 = box
    xs = (a * x0 + c * y0, a * x1 + c * y0, a * x0 + c * y1, a * x1 + c * y1)
    ys = (b * x0 + d * y0, b * x1 + d * y0, b * x0 + d * y1, b * x1 + d * y1)
    return (min(xs) + e, min(ys) + f, max(xs) + e, max(ys) + f)


# -- hOCR ---------------------------------------------------------------------------

_BBOX = re.compile(r"bbox\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)")
_CHAR_BOX = re.compile(r"x_bboxes\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)")
_WORD_CONFIDENCE = re.compile(r"x_wconf\s+(-?[\d.]+)")


def parse_hocr(hocr: str, to_page: PixelsToPage) -> OcrPage:
    """The paragraphs, lines and words of Tesseract's hOCR, boxes mapped to the page."""
    try:
        root = ElementTree.fromstring(hocr)
    except ElementTree.ParseError:
        raise IngestError(
            "Tesseract's output could not be read: ingest the document with --ocr never "
            "to keep its text layer only, or reinstall Tesseract."
        ) from None
    result = OcrPage()
    tall = 0
    for paragraph in _with_class(root, "ocr_par"):
        lines = []
        for line in _with_class(
            paragraph, "ocr_line", "ocr_caption", "ocr_textfloat", "ocr_header"
        ):
            read = [_word(element, to_page) for element in _with_class(line, "ocrx_word")]
            words = [word for word in read if word is not None]
            if words:
                x0, y0, x1, y1 = _bbox(line)
                tall += y1 - y0 > x1 - x0
                lines.append(OcrLine(words, to_page.displayed((x0, y0, x1, y1))))
        if lines:
            result.paragraphs.append(OcrParagraph(lines, to_page.displayed(_bbox(paragraph))))
    result.sideways = tall > sum(len(paragraph.lines) for paragraph in result.paragraphs) / 2
    return result


def _with_class(element: ElementTree.Element, *names: str) -> list[ElementTree.Element]:
    return [
        child for child in element.iter() if child is not element and child.get("class") in names
    ]


def _bbox(element: ElementTree.Element) -> tuple[int, int, int, int]:
    match = _BBOX.search(element.get("title", ""))
    if match is None:
        return (0, 0, 0, 0)
    x0, y0, x1, y1 = (int(value) for value in match.groups())
    return (x0, y0, x1, y1)


def _character_box(character: ElementTree.Element) -> tuple[int, int, int, int] | None:
    match = _CHAR_BOX.search(character.get("title", ""))
    if match is None:
        return None
    x0, y0, x1, y1 = (int(value) for value in match.groups())
    # Tesseract gives text it reads sideways boxes of no width.
    return None if x1 <= x0 or y1 <= y0 else (x0, y0, x1, y1)


def _word(element: ElementTree.Element, to_page: PixelsToPage) -> OcrWord | None:
    confidence_match = _WORD_CONFIDENCE.search(element.get("title", ""))
    confidence = float(confidence_match.group(1)) if confidence_match else 0.0
    text_parts: list[str] = []
    boxes: list[Box] = []
    characters = _with_class(element, "ocrx_cinfo")
    character_boxes = [_character_box(character) for character in characters]
    # Without a box for every character (text read sideways), the word's box is shared.
    if characters and all(box is not None for box in character_boxes):
        for character, pixels in zip(characters, character_boxes, strict=True):
            text = unicodedata.normalize("NFC", "".join(character.itertext()))
            text = "".join(char for char in text if not char.isspace())
            box = to_page.unrotated(pixels or (0, 0, 0, 0))
            text_parts.append(text)
            boxes.extend([box] * len(text))
    else:  # no character boxes: share the word's box out evenly along its length
        text = "".join(char for char in "".join(element.itertext()) if not char.isspace())
        x0, y0, x1, y1 = _bbox(element)
        count = max(1, len(text))
        for index, char in enumerate(text):
            text_parts.append(char)
            part: Box
            if x1 - x0 >= y1 - y0:
                step = (x1 - x0) / count
                part = (x0 + index * step, y0, x0 + (index + 1) * step, y1)
            else:
                step = (y1 - y0) / count
                part = (x0, y0 + index * step, x1, y0 + (index + 1) * step)
            boxes.append(to_page.unrotated(part))
    text = "".join(text_parts)
    if not text:
        return None
    return OcrWord(text, boxes, confidence)


# -- the page as canonical text -------------------------------------------------------

_CJK = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def line_text(line: OcrLine) -> tuple[str, list[Box], list[tuple[int, int, float]]]:
    """A line's text (words joined by a space, none between two CJK words), a box per
    character (a space gets the gap between its words), and each word's range and
    confidence within the line."""
    parts: list[str] = []
    boxes: list[Box] = []
    words: list[tuple[int, int, float]] = []
    length = 0
    previous: OcrWord | None = None
    for word in line.words:
        if previous is not None and not (
            _CJK.match(previous.text[-1]) and _CJK.match(word.text[0])
        ):
            left, right = previous.char_boxes[-1], word.char_boxes[0]
            boxes.append(
                (
                    min(left[2], right[0]),
                    min(left[1], right[1]),
                    max(left[2], right[0]),
                    max(left[3], right[3]),
                )
            )
            parts.append(" ")
            length += 1
        words.append((length, length + len(word.text), word.confidence))
        parts.append(word.text)
        boxes.extend(word.char_boxes)
        length += len(word.text)
        previous = word
    return "".join(parts), boxes, words


@dataclass(slots=True)
class ScannedPage:
    """An OCR'd page as extraction uses it: text blocks like a text layer's, a box per
    character of the page's text, and each word's range in it with its confidence."""

    blocks: list[TextBlock]
    boxes: list[Box | None]
    words: list[tuple[int, int, float]]
    confidence: float
    turned: int


def scanned_page(page: OcrPage) -> ScannedPage:
    """The page's paragraphs as text blocks; its text is assembled exactly as a text
    layer's is (lines joined by a line break, blocks by a blank line)."""
    from reader.ingest.layout import TextBlock

    blocks: list[TextBlock] = []
    boxes: list[Box | None] = []
    words: list[tuple[int, int, float]] = []
    offset = 0
    for paragraph in page.paragraphs:
        lines: list[str] = []
        line_boxes: list[Box] = []
        if blocks:
            boxes.extend([None, None])
            offset += 2
        for line in paragraph.lines:
            text, char_boxes, line_words = line_text(line)
            if lines:
                boxes.append(None)
                offset += 1
            words.extend((offset + start, offset + end, conf) for start, end, conf in line_words)
            lines.append(text)
            line_boxes.append(line.box)
            boxes.extend(char_boxes)
            offset += len(text)
        heights = [box[3] - box[1] for box in line_boxes]
        blocks.append(TextBlock(lines, sum(heights) / len(heights), paragraph.box, line_boxes))
    return ScannedPage(blocks, boxes, words, page.confidence, page.turned)
