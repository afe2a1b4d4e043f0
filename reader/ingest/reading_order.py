"""The order a person reads a page's text blocks in: column by column.

PyMuPDF gives blocks in the order the PDF draws them, which on two- and
three-column pages often jumps between columns (or puts the footnotes first).
A page is read here as a stack of bands: a block wider than a column (a title,
an abstract, a figure spanning the page) is a band of its own; between such
blocks, the narrow blocks are grouped into the columns the page's gutters
separate, and read column by column, each top to bottom.

Gutters are vertical strips no narrow block crosses, with a real share of the
page's text on each side. A page without one keeps PyMuPDF's order: on
single-column pages that order is usually right, and re-sorting would only
risk reordering tables and side notes.
"""

from __future__ import annotations

from collections.abc import Sequence

Box = tuple[float, float, float, float]

# A gutter is at least this wide (points); word gaps inside a line are narrower.
MIN_GUTTER = 6.0
# Each side of a gutter holds at least this share of the page's text, in
# paragraphs (blocks of at least PARAGRAPH characters): table cells and
# labels beside a figure do not make columns.
MIN_SIDE_SHARE = 0.15
PARAGRAPH = 60
# A block at least this share of the text area's width spans columns.
WIDE_SHARE = 0.6


def reading_order(boxes: Sequence[Box], weights: Sequence[int]) -> list[int]:
    """Indexes of the blocks in reading order.

    ``boxes`` are the blocks' rectangles as displayed (rotation applied);
    ``weights`` their amounts of text, which decide whether a gutter separates
    real columns.
    """
    count = len(boxes)
    if count < 2:
        return list(range(count))
    left = min(box[0] for box in boxes)
    right = max(box[2] for box in boxes)
    width = right - left
    if width <= 0:
        return list(range(count))
    narrow = [i for i in range(count) if boxes[i][2] - boxes[i][0] < WIDE_SHARE * width]
    gutters = _gutters([boxes[i] for i in narrow], [weights[i] for i in narrow], sum(weights))
    if not gutters:
        return list(range(count))
    wide = {i for i in range(count) if any(_crosses(boxes[i], g) for g in gutters)}
    order: list[int] = []
    band: list[int] = []
    for index in sorted(range(count), key=lambda i: (_middle_y(boxes[i]), boxes[i][0])):
        if index in wide:
            order += _by_columns(band, boxes, gutters)
            order.append(index)
            band = []
        else:
            band.append(index)
    order += _by_columns(band, boxes, gutters)
    return order


def _gutters(boxes: list[Box], weights: list[int], total: int) -> list[tuple[float, float]]:
    """Vertical strips no block crosses, with paragraphs making up enough text on both sides."""
    if not boxes or total <= 0:
        return []
    spans = sorted((box[0], box[2]) for box in boxes)
    gaps: list[tuple[float, float]] = []
    reach = spans[0][1]
    for x0, x1 in spans[1:]:
        if x0 - reach >= MIN_GUTTER:
            gaps.append((reach, x0))
        reach = max(reach, x1)
    paragraphs = [(box, w) for box, w in zip(boxes, weights, strict=True) if w >= PARAGRAPH]
    gutters = []
    for gap in gaps:
        before = sum(w for box, w in paragraphs if box[2] <= gap[0])
        after = sum(w for box, w in paragraphs if box[0] >= gap[1])
        if min(before, after) >= MIN_SIDE_SHARE * total:
            gutters.append(gap)
    return gutters


def _crosses(box: Box, gutter: tuple[float, float]) -> bool:
    return box[0] < gutter[0] and box[2] > gutter[1]


def _middle_y(box: Box) -> float:
    return (box[1] + box[3]) / 2


def _by_columns(
    indexes: list[int], boxes: Sequence[Box], gutters: list[tuple[float, float]]
) -> list[int]:
    """Blocks between two wide ones: column by column, each top to bottom.

    Blocks of a column that overlap vertically (the pieces of a formula, a
    label beside a figure) keep the order the PDF draws them in.
    """

    columns: dict[int, list[int]] = {}
    for index in indexes:
        centre = (boxes[index][0] + boxes[index][2]) / 2
        columns.setdefault(sum(1 for gutter in gutters if centre > gutter[1]), []).append(index)

    order: list[int] = []
    for number in sorted(columns):
        members = sorted(columns[number], key=lambda i: boxes[i][1])
        clusters: list[list[int]] = []
        bottom = float("-inf")
        for index in members:
            if clusters and boxes[index][1] < bottom:
                clusters[-1].append(index)
            else:
                clusters.append([index])
            bottom = max(bottom, boxes[index][3]) if len(clusters[-1]) > 1 else boxes[index][3]
        for cluster in clusters:
            order += sorted(cluster)
    return order
