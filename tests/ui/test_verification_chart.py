"""The Health view: what it counts, what it charts, and when it warns."""

from __future__ import annotations

import pytest

from reader.answer.stats import verification_stats
from tests.answer.test_cli_answers import rows

pytestmark = pytest.mark.gui


def test_health_says_how_many_answers_it_charts_and_warns_when_none_was_supported(qtbot):
    from reader.ui.verification_chart import HealthPanel

    panel = HealthPanel()
    qtbot.addWidget(panel)
    answers = rows([0.9] * 8, [0.0] * 8)
    answers[3] = {**answers[3], "model_claims": 0, "model_verified": 0, "model_supported": 0}
    panel.set_stats(verification_stats(answers))
    # Eight answers, seven with a model's claims: seven points, and the summary says so.
    assert len(panel.chart.points) == 7
    assert panel.summary.text().startswith("8 answers (7 charted); ")
    assert not panel.warning.isHidden()
    assert "none of the model's 70 claims was supported" in panel.warning.text()
