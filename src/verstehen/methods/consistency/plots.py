"""Conceptual consistency's figures as PNGs: the paper's Figure 5 (background vs CC per
relation) and Figure 6 (yes/no bias)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from verstehen.methods.consistency.breakdowns import (
    BestCombo,
    MajorityAnswers,
    RelationBreakdown,
    YesNoBias,
)
from verstehen.methods.consistency.stats import LEVEL
from verstehen.methods.consistency.summary import ConsistencySummary
from verstehen.methods.consistency.text import single_name
from verstehen.report.figures import new_figure, nothing_to_plot, save_png, spread_labels

DIAGONAL = ("y = x: as consistent as knowledgeable\n(above: more consistent than "
            "knowledgeable;\nbelow: more knowledgeable than consistent)")


def relations_figure(rel: dict[str, RelationBreakdown]) -> Any:
    """Paper Fig. 5: per relation, background S_B on r (x, ± SE) against the CC of that S_B
    (y, bootstrap interval), each labelled in a column right of the axes; y = x explained."""
    fig = new_figure(7.0, 5.6)
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], linestyle="--", color="0.6", linewidth=1, label=DIAGONAL)
    shown = {r: e for r, e in rel.items()
             if e.background.mean is not None and e.cc.cc is not None}
    # the test repeated from `shown` (always true) narrows the types for the checker
    points = [(e.background.mean, e.cc.cc) for e in shown.values()
              if e.background.mean is not None and e.cc.cc is not None]
    # labels in one column right of the axes, spread apart and kept between the axes' bottom
    # and top (above it they would run into the title), each with a line to its point
    heights = spread_labels(points, gap=0.045, within=(0.02, 0.98))
    for i, ((r, e), (x, y), label_y) in enumerate(zip(shown.items(), points, heights,
                                                      strict=True)):
        low, high = e.cc.low, e.cc.high
        yerr = [[y - low], [high - y]] if low is not None and high is not None else None
        ax.errorbar([x], [y], xerr=[e.background.se or 0.0], yerr=yerr, marker="o",
                    capsize=2, color="tab:blue", ecolor="0.7", linewidth=1,
                    label=None if i else f"a relation: S_B ± SE across,\nCC with its {LEVEL:.0%} "
                                         "bootstrap interval up and down")
        ax.annotate(f"{r} (n={e.cc.n})", (x, y), xytext=(1.04, label_y), fontsize=7,
                    va="center", annotation_clip=False,
                    arrowprops={"arrowstyle": "-", "color": "0.75", "linewidth": 0.5})
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("background score S_B on the relation (± SE)")
    ax.set_ylabel(f"conceptual consistency (AP, {LEVEL:.0%} bootstrap)")
    ax.set_title("Background knowledge vs consistency per relation\n(paper Figure 5)",
                 fontsize=10)
    if not shown:
        nothing_to_plot(ax, "no relation has both a background score (an answered fact of "
                            "it) and a CC (a correctly answered anchor question among the "
                            "anchors with such facts)")
    fig.legend(loc="outside lower center", ncol=2, fontsize=7)
    return fig


def plot_relations(rel: dict[str, RelationBreakdown], path: Path) -> None:
    """Write paper Fig. 5 (`relations_figure`) as a PNG."""
    save_png(relations_figure(rel), path)


def plot_bias(bias: YesNoBias, path: Path) -> None:
    """Write paper Fig. 6 as a PNG: accuracy on positive facts (said yes) and on negative facts
    (said no), bars for the majority vote and the best single combo, ± SE."""
    fig = new_figure(5.5, 4.0)
    ax = fig.add_subplot()
    sides = ("positive facts\n(said yes)", "negative facts\n(said no)")
    styles: list[tuple[str, MajorityAnswers | BestCombo, str]] = [
        ("majority vote", bias.majority, "tab:blue")]
    if bias.single is not None:
        styles.append((single_name(bias.single), bias.single, "tab:orange"))
    width = 0.8 / len(styles)
    for i, (name, e, color) in enumerate(styles):
        shown = [(j, side) for j, side in enumerate((e.positive, e.negative))
                 if side.rate is not None]
        xs = [j - 0.4 + width * (i + 0.5) for j, _ in shown]
        ax.bar(xs, [side.rate for _, side in shown], width,
               yerr=[side.se for _, side in shown], capsize=3, color=color, label=name)
        for x, (_, side) in zip(xs, shown, strict=True):
            ax.text(x, 0.02, f"n={side.n}", ha="center", fontsize=7, color="white")
    ax.axhline(0.5, linestyle="--", color="0.6", linewidth=1,
               label="0.5: a coin flip")
    ax.set_xticks(range(len(sides)), sides)
    ax.set_xlim(-0.6, len(sides) - 0.4)
    ax.set_ylim(0, 1)
    ax.set_ylabel("accuracy (± SE)")
    ax.set_title("Yes/no bias of the answers (paper Figure 6)", fontsize=10)
    fig.legend(loc="outside lower center", ncol=len(styles) + 1, fontsize=7)
    save_png(fig, path)


def write_figures(summary: ConsistencySummary, folder: Path) -> tuple[Path, Path]:
    """Figure 5 (background vs CC per relation) and Figure 6 (yes/no bias) as PNGs in
    `folder`: relations.png and bias.png."""
    relations, bias = folder / "relations.png", folder / "bias.png"
    plot_relations(summary.by_relation, relations)
    plot_bias(summary.bias, bias)
    return relations, bias
