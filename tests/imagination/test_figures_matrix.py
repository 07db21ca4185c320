"""The imagination figures read right: matrix.png in percent with each measure on its colour
bar, the 25% chance level marked, and every model under its full name (issue 21, item 8)."""

from __future__ import annotations

import pytest

from verstehen.methods.imagination import plots
from verstehen.methods.imagination.stats import (
    IQARates,
    LengthRanks,
    PositionRanks,
    PositionRates,
    pair_matrix,
)
from verstehen.report import figures

from conftest import figures_saved_by

MODELS = ("hand/written", "local/smollm2-135m",
          "local//work/models/gemma-3-270m-q4_k_m.gguf [letter]")


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list:
    """The figures the plots module saves, each still written to its path."""
    return figures_saved_by(monkeypatch, plots)


def answers() -> list[dict]:
    # every QM x AM cell of direct and context questions: 2 correct, 1 wrong, 1 refused
    return [{"kind": "answer", "qm": qm, "am": am, "qtype": qtype, "content": "knowledge",
             "outcome": outcome, "score": None}
            for qm in MODELS[:2] for am in MODELS for qtype in ("DQ", "CQ")
            for outcome in ("correct", "correct", "wrong", "refused")]


def colour_bars(fig) -> dict[str, object]:
    """Each colour bar of the figure by its label (newlines as spaces)."""
    bars = {}
    for ax in fig.axes:
        for image in ax.get_images():
            if image.colorbar is not None:
                bars[image.colorbar.ax.get_ylabel().replace("\n", " ")] = image.colorbar
    return bars


def flat(texts) -> set[str]:
    return {t.get_text().replace("\n", "") for t in texts}


def test_matrix_colour_bars_are_in_percent_and_say_what_they_measure(drawn, tmp_path):
    plots.plot_matrix(pair_matrix(answers()), tmp_path / "matrix.png")
    bars = colour_bars(drawn[0])
    assert set(bars) == {"correct answers κ (% of answered)",
                         "answered α (% of answered or declined)"}
    for bar in bars.values():
        assert (bar.norm.vmin, bar.norm.vmax) == (0, 100)
    # the cells and the colour bar speak the same unit: 2 of 3 answered are right
    cells = {t.get_text() for ax in drawn[0].axes for t in ax.texts}
    assert "67%\nn=3" in cells and "75%\nn=4" in cells
    assert (tmp_path / "matrix.png").read_bytes()[:4] == b"\x89PNG"


def test_matrix_marks_chance_on_the_correctness_colour_bar_only(drawn, tmp_path):
    plots.plot_matrix(pair_matrix(answers()), tmp_path / "matrix.png")
    bars = colour_bars(drawn[0])
    kappa = bars["correct answers κ (% of answered)"]
    alpha = bars["answered α (% of answered or declined)"]
    assert any(list(line.get_ydata()) == [25, 25] for line in kappa.ax.get_lines())
    assert "25 chance" in {t.get_text() for t in kappa.ax.get_yticklabels()}
    assert not alpha.ax.get_lines()
    assert "25%" in drawn[0].get_suptitle() and "chance" in drawn[0].get_suptitle()


def test_matrix_labels_keep_the_provider(drawn, tmp_path):
    plots.plot_matrix(pair_matrix(answers()), tmp_path / "matrix.png")
    ax = drawn[0].axes[0]
    assert flat(ax.get_xticklabels()) == {"hand/written", "local/smollm2-135m"}
    assert {"hand/written", "local/smollm2-135m"} <= flat(ax.get_yticklabels())
    long = [t.get_text() for t in ax.get_yticklabels() if "gemma" in t.get_text()]
    assert long == ["local//work/models/\ngemma-3-270m-q4_k_m.gguf\n[letter]"]


def test_an_empty_matrix_says_why(drawn, tmp_path):
    plots.plot_matrix((), tmp_path / "matrix.png")
    texts = [t.get_text() for ax in drawn[0].axes for t in ax.texts]
    assert len(texts) == 1 and texts[0].startswith("nothing to plot:\nno answers")


def test_length_ranks_and_warm_up_keep_the_provider(drawn, tmp_path):
    plots.plot_length_ranks([LengthRanks("hand/written", "knowledge", "DQ", (0, 0, 0, 1.0))],
                            tmp_path / "ranks.png")
    assert flat(drawn[0].axes[0].get_yticklabels()) == {"hand/written · knowledge DQ"}
    rates = IQARates(4, 4, 0, 0, 0, 0.5, 0.25, 1.0, 0.0, 0.0)
    plots.plot_warmup([PositionRates("local/smollm2-135m", (rates,) * 5)],
                      [PositionRanks(p, 4, (0.25,) * 4) for p in range(1, 6)],
                      tmp_path / "warm-up.png")
    legend = drawn[1].axes[0].get_legend()
    assert flat(legend.get_texts()) == {"local/smollm2-135m", "average"}


def test_wrap_name_breaks_after_a_slash_or_space():
    assert figures.wrap_name("hand/written", 16) == "hand/written"
    assert figures.wrap_name("local/smollm2-135m", 10) == "local/\nsmollm2-135m"
    wrapped = figures.wrap_name("openai/gpt-4o-mini [wording 2, native order]", 20)
    assert wrapped == "openai/gpt-4o-mini\n[wording 2, native\norder]"
    assert wrapped.replace("\n", " ").replace("/ ", "/") == \
        "openai/gpt-4o-mini [wording 2, native order]"
