"""relations.png keeps its labels under the title and explains its diagonal; bias.png its 0.5
line (issue 21, item 8)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verstehen.methods.consistency import plots
from verstehen.methods.consistency.breakdowns import (
    CCEntry,
    MajorityAnswers,
    MeanEntry,
    RateEntry,
    RelationBreakdown,
    YesNoBias,
)
from verstehen.report import figures

from conftest import figures_saved_by

NONE = CCEntry(None, None, None, 0, None)


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list:
    """The figures the plots module saves, each still written to its path."""
    return figures_saved_by(monkeypatch, plots)


def relation(s_b: float, cc: float) -> RelationBreakdown:
    return RelationBreakdown(MeanEntry(s_b, 0.03, 40), CCEntry(cc, cc - 0.1, 1.0, 40, 0.5),
                             NONE, NONE)


def legend_texts(fig) -> list[str]:
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes)]
    return [t.get_text() for legend in legends if legend is not None
            for t in legend.get_texts()]


def test_relation_labels_stay_below_the_title(drawn, tmp_path):
    # twelve relations near the top: spread upwards from their points, the labels and their
    # leader lines would run into the title
    rel = {f"relation {i}": relation(0.3 + 0.05 * i, 0.9 + 0.008 * i) for i in range(12)}
    plots.plot_relations(rel, tmp_path / "relations.png")
    fig = drawn[0]
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    title = ax.title.get_window_extent(renderer)
    labels = [t for t in ax.texts if t.get_text().startswith("relation")]
    assert len(labels) == 12
    for label in labels:
        assert label.get_window_extent(renderer).y1 < title.y0
        assert label.arrow_patch.get_window_extent(renderer).y1 < title.y0
    assert max(label.get_window_extent(renderer).y1 for label in labels) <= \
        ax.get_window_extent(renderer).y1 + 5  # at most half a line above the axes' top


def test_the_diagonal_is_explained(drawn, tmp_path):
    plots.plot_relations({"used for": relation(0.5, 0.7)}, tmp_path / "relations.png")
    texts = legend_texts(drawn[0])
    assert any(t.startswith("y = x: as consistent as knowledgeable") for t in texts)
    assert any("95% bootstrap interval" in t and "± SE" in t for t in texts)


def test_no_relation_to_plot_says_why(drawn, tmp_path):
    plots.plot_relations({"used for": RelationBreakdown(MeanEntry(0.5, 0.1, 3), NONE, NONE,
                                                         NONE)}, tmp_path / "relations.png")
    texts = [t.get_text() for t in drawn[0].axes[0].texts]
    assert texts == [t for t in texts if t.startswith("nothing to plot:\nno relation has")]
    assert len(texts) == 1


def test_the_coin_flip_line_of_the_bias_figure_is_explained(drawn, tmp_path):
    side = RateEntry(0.7, 0.05, 10)
    plots.plot_bias(YesNoBias(MajorityAnswers(side, side, 0.7, 0), None, 0),
                     tmp_path / "bias.png")
    assert legend_texts(drawn[0]) == ["0.5: a coin flip", "majority vote"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), max_size=30))
def test_spread_labels_within_a_range(points):
    heights = figures.spread_labels(points, gap=0.045, within=(0.02, 0.98))
    assert all(0.02 - 1e-9 <= h <= 0.98 + 1e-9 for h in heights)
    gap = min(0.045, 0.96 / max(len(points) - 1, 1))
    ordered = sorted(heights)
    assert all(b - a >= gap - 1e-9 for a, b in itertools.pairwise(ordered))
    # the labels keep the order of their points (by height, then x)
    by_point = sorted(range(len(points)), key=lambda k: (points[k][1], points[k][0]))
    assert [heights[k] for k in by_point] == ordered
