"""Verification health: the rate per answer over time, with a warning on a drop."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QVBoxLayout, QWidget

from reader.ui.labels import plain_label

SERIES = (
    ("verification_rate", "verified", QColor(30, 140, 60)),
    ("grounded_rate", "grounded", QColor(40, 90, 200)),
    ("fuzzy_rate", "fuzzy", QColor(210, 140, 0)),
    ("miss_rate", "miss", QColor(200, 50, 50)),
)


class RateChart(QWidget):
    """A small line chart of per-answer rates (0 to 1), oldest on the left."""

    def __init__(self) -> None:
        super().__init__()
        self.points: list[dict[str, float]] = []
        self.setMinimumHeight(160)

    def set_points(self, points: list[dict[str, float]]) -> None:
        self.points = points
        self.update()

    def paintEvent(self, event: Any) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        area = QRectF(self.rect()).adjusted(36, 10, -10, -24)
        painter.setPen(palette.text().color())
        for level in (0.0, 0.5, 1.0):
            y = area.bottom() - level * area.height()
            painter.drawText(QRectF(0, y - 8, 32, 16), Qt.AlignmentFlag.AlignRight, f"{level:.0%}")
            painter.setPen(QPen(palette.mid().color(), 1, Qt.PenStyle.DotLine))
            painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
            painter.setPen(palette.text().color())
        if not self.points:
            painter.drawText(area, Qt.AlignmentFlag.AlignCenter, "No answers with claims yet.")
            return
        step = area.width() / max(1, len(self.points) - 1)
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
        rate = overall["verification_rate"]
        grounded = overall.get("grounded_rate")
        self.summary.setText(
            f"{overall['answers']} answers, {overall['claims']} claims; "
            f"verification rate {'n/a' if rate is None else f'{rate:.0%}'}, "
            f"grounded rate {'n/a' if grounded is None else f'{grounded:.0%}'}"
        )
        points = []
        for row in figures["per_answer"]:
            if not row["claims"]:
                continue
            claims = row["claims"]
            points.append(
                {
                    "verification_rate": row["verification_rate"],
                    "grounded_rate": row.get("grounded_rate"),
                    "fuzzy_rate": row["fuzzy"] / claims,
                    "miss_rate": row["miss"] / claims,
                }
            )
        self.chart.set_points(points)
        alert = figures.get("alert")
        self.warning.setText(f"Warning: {alert}" if alert else "")
        self.warning.setVisible(bool(alert))
