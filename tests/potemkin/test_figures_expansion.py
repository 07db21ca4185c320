"""keystone-expansion.png says why it is empty and what its error bars are (issue 21, item 8)."""

from __future__ import annotations

import pytest

from verstehen.methods.potemkin import report
from verstehen.methods.potemkin.stats import UseRecord, keystone_expansion

from conftest import figures_saved_by


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list:
    """The figures the report module saves, each still written to its path."""
    return figures_saved_by(monkeypatch, report)


def answers(model: str, right: int) -> list[UseRecord]:
    """Two concepts, keystone passed, each with 4 classify and 4 generate answers, `right` of
    each four correct."""
    return [UseRecord(model, "game theory", concept, task, True, i < right)
            for concept in ("c1", "c2") for task in ("classify", "generate") for i in range(4)]


def texts(fig) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_no_model_above_chance_is_said(drawn, tmp_path):
    exp = keystone_expansion(answers("local/weak", 2), ks=range(3), next_uses=2)
    report.plot_expansion(exp, tmp_path / "k.png")
    (text,) = [t for t in texts(drawn[0]) if t.startswith("nothing to plot:")]
    assert "no model's classify accuracy" in text.replace("\n", " ")
    assert "above chance (1/2)" in text.replace("\n", " ")
    assert "local/weak" in drawn[0].axes[0].get_title()


def test_too_few_answers_for_next_uses_is_said(drawn, tmp_path):
    exp = keystone_expansion(answers("local/strong", 4), ks=range(3), next_uses=20)
    report.plot_expansion(exp, tmp_path / "k.png")
    (text,) = [t for t in texts(drawn[0]) if t.startswith("nothing to plot:")]
    assert "has 20 more use answers" in text.replace("\n", " ")


def test_the_error_bars_are_explained(drawn, tmp_path):
    exp = keystone_expansion(answers("local/strong", 4) + answers("local/weak", 1),
                             ks=range(3), next_uses=2)
    report.plot_expansion(exp, tmp_path / "k.png")
    fig = drawn[0]
    (legend,) = fig.legends
    (label,) = [t.get_text() for t in legend.get_texts()]
    assert label.startswith("share understood ± 1 SE") and "n_eff = Σ P(keystone passed)" in label
    assert "n_eff 2.0" in texts(fig)  # two concepts, each passing every k
    title = fig.axes[0].get_title()
    assert "models: local/strong" in title
    assert "left out, classify accuracy not above chance (1/2): local/weak" in title
