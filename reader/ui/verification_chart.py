"""Verification health: per answer over time, the share of the model's claims whose
quote verified and the share supported by their quotes (evidence sentences verify
by construction, so they are left out), with a warning on a drop."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QVBoxLayout, QWidget

from reader.text.escaping import counted
from reader.ui.labels import plain_label

SERIES = (
    ("model_verified_rate", "verified", QColor(30, 140, 60)),
    ("model_supported_rate", "supported", QColor(40, 90, 200)),
    ("fuzzy_rate", "fuzzy", QColor(210, 140, 0)),
    ("miss_rate", "miss", QColor(200, 50, 50)),
)


class RateChart(QWidget):
    """A small line chart of per-answer rates (0 to 1), oldest on the left.

    The y axis is the share of an answer's claims, the x axis the answers
    numbered from the oldest shown; both carry a title and tick labels.
    """

    x_axis_title = "Answers, oldest to newest"
    y_axis_title = "Share of claims"

    def __init__(self) -> None:
        super().__init__()
        self.points: list[dict[str, float]] = []
        self.setMinimumHeight(200)

    def set_points(self, points: list[dict[str, float]]) -> None:
        self.points = points
        self.update()

    def x_tick_labels(self) -> list[tuple[int, str]]:
        """(point index, label) of the x axis ticks: the answer numbers, at most six."""
        count = len(self.points)
        if not count:
            return []
        stride = max(1, -(-(count - 1) // 5))  # ceiling: at most six ticks
        indexes = list(range(0, count, stride))
        if indexes[-1] != count - 1:
            indexes.append(count - 1)
        return [(index, str(index + 1)) for index in indexes]

    def paintEvent(self, event: Any) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        line = painter.fontMetrics().height()
        # Room on the left for the y title and ticks; below for x ticks, x title, legend.
        area = QRectF(self.rect()).adjusted(line + 40, 10, -14, -(3 * line + 10))
        text_pen = palette.text().color()
        painter.setPen(text_pen)
        for level in (0.0, 0.5, 1.0):
            y = area.bottom() - level * area.height()
            ticks = QRectF(line, y - 8, 36, 16)
            painter.drawText(ticks, Qt.AlignmentFlag.AlignRight, f"{level:.0%}")
            painter.setPen(QPen(palette.mid().color(), 1, Qt.PenStyle.DotLine))
            painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
            painter.setPen(text_pen)
        painter.save()
        painter.translate(2, area.center().y())
        painter.rotate(-90)
        y_title = QRectF(-area.height() / 2, 0, area.height(), line)
        painter.drawText(y_title, Qt.AlignmentFlag.AlignCenter, self.y_axis_title)
        painter.restore()
        x_title = QRectF(area.left(), area.bottom() + line + 2, area.width(), line)
        painter.drawText(x_title, Qt.AlignmentFlag.AlignCenter, self.x_axis_title)
        if not self.points:
            painter.drawText(
                area, Qt.AlignmentFlag.AlignCenter, "No answers with a model's claims yet."
            )
            return
        step = area.width() / max(1, len(self.points) - 1)
        for index, label in self.x_tick_labels():
            x = area.left() + index * step
            tick = QRectF(x - 20, area.bottom() + 2, 40, line)
            painter.drawText(tick, Qt.AlignmentFlag.AlignHCenter, label)
        legend_x = area.left()
        for key, label, color in SERIES:
            painter.setPen(QPen(color, 2))
            previous = None
            for index, point in enumerate(self.points):
                value = point.get(key)
                if value is None:
                    continue
                here = QPointF(area.left() + index * step, area.bottom() - value * area.height())
                if previous is not None:
                    painter.drawLine(previous, here)
                painter.drawEllipse(here, 2.5, 2.5)
                previous = here
            painter.drawText(QPointF(legend_x, self.height() - 6), label)
            legend_x += 80


class HealthPanel(QWidget):
    def __init__(self) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        self.summary = plain_label()
        self.summary.setWordWrap(True)
        self.warning = plain_label()
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet("color: #c0392b; font-weight: bold")
        self.warning.hide()
        self.chart = RateChart()
        layout.addWidget(self.summary)
        layout.addWidget(self.warning)
        layout.addWidget(self.chart, 1)

    def set_stats(self, figures: dict[str, Any]) -> None:
        overall = figures["overall"]
        verified = overall.get("model_verified_rate")
        supported = overall.get("model_supported_rate")
        points = []
        for row in figures["per_answer"]:
            made = row.get("model_claims") or 0
            if not made:
                continue
            claims = row["claims"] or 1
            points.append(
                {
                    "model_verified_rate": row.get("model_verified_rate"),
                    "model_supported_rate": row.get("model_supported_rate"),
                    "fuzzy_rate": row["fuzzy"] / claims,
                    "miss_rate": row["miss"] / claims,
                }
            )
        # Only answers with a model's claims have rates to chart: say how many.
        charted = f" ({len(points)} charted)" if len(points) != overall["answers"] else ""
        self.summary.setText(
            f"{counted(overall['answers'], 'answer')}{charted}; "
            f"{counted(overall.get('model_claims', 0), 'claim')} by a model: "
            f"{_percent(verified)} verified, {_percent(supported)} supported by their quotes; "
            f"{counted(overall.get('evidence_shown', 0), 'evidence sentence')} shown"
        )
        self.chart.set_points(points)
        alert = figures.get("alert")
        self.warning.setText(f"Warning: {alert}" if alert else "")
        self.warning.setVisible(bool(alert))


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"
