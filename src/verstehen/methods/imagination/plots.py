"""Plots of imaginary question answering: the rate grid (paper Fig. 2), length ranks (Fig. 5)
and the warm-up figure (Fig. 9: κ, α and length ranks by position in a sequence)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from verstehen.methods.imagination.stats import (
    POSITIONS,
    LengthRanks,
    MatrixRow,
    PositionRanks,
    PositionRates,
    sort_kinds,
)
from verstehen.report.figures import new_figure, nothing_to_plot, save_png, wrap_name

if TYPE_CHECKING:
    from matplotlib.axes import Axes

TITLES = {"DQ": "direct questions (DQ)", "CQ": "context questions (CQ)",
          "SQ": "sequential questions (SQ)"}
MEASURES = (("kappa", "Correctness rate κ"), ("alpha", "Answering rate α"))
COLORBAR_LABELS = {"kappa": "correct answers κ\n(% of answered)",
                   "alpha": "answered α\n(% of answered or declined)"}
CHANCE = 25  # percent: one of four choices at random
CHANCE_COLOR = "red"
QM_WRAP, AM_WRAP = 20, 26  # characters per line of a model's name on the x and y axes
RANK_LABELS = ("shortest", "2nd shortest", "3rd shortest", "longest")
RANK_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red")
AVERAGE_COLOR = "hotpink"  # the paper draws the mean over answer models in pink


def matrix_figure(rows: Sequence[MatrixRow]) -> Any:
    """Paper Fig. 2: κ and α heatmaps in percent (rows AM, columns QM, full model names), one
    column per (content, qtype), each cell with its n; a colour bar per measure, chance marked."""
    matrix = {(r.content, r.qtype, r.qm, r.am): r for r in rows}
    kinds = sort_kinds((c, q) for c, q, _, _ in matrix)
    qms = sorted({qm for _, _, qm, _ in matrix})
    ams = sorted({am for _, _, _, am in matrix})
    qm_labels = [wrap_name(m, QM_WRAP) for m in qms]
    am_labels = [wrap_name(m, AM_WRAP) for m in ams]
    qm_chars = max((len(line) for m in qm_labels for line in m.split("\n")), default=0)
    qm_lines = max((m.count("\n") + 1 for m in qm_labels), default=1)
    am_chars = max((len(line) for m in am_labels for line in m.split("\n")), default=0)
    am_lines = max((m.count("\n") + 1 for m in am_labels), default=1)
    # each heatmap: a QM column as wide as its label and a row as tall as its label, plus room
    # for the AM tick labels; then the colour bars and the two-line title
    column = max(0.55, 0.07 * qm_chars)
    width = len(kinds) * (0.4 + 0.065 * am_chars + max(column * len(qms), 1.8)) + 1.6
    height = 2 * (1.1 + 0.14 * qm_lines + max(0.35, 0.14 * am_lines) * len(ams)) + 0.6
    fig = new_figure(max(width, 5.0), max(height, 3.0))
    if not kinds:
        ax = fig.add_subplot()
        ax.set_axis_off()
        nothing_to_plot(ax, "no answers in the runs, so no (question model, answer model) "
                            "cell has a rate")
        return fig
    axes = fig.subplots(2, len(kinds), squeeze=False)
    for r, (attr, label) in enumerate(MEASURES):
        image = None
        for c, (content, qtype) in enumerate(kinds):
            image = _heatmap(axes[r][c], [[matrix.get((content, qtype, qm, am)) for qm in qms]
                                          for am in ams], attr)
            axes[r][c].set_xticks(range(len(qms)), qm_labels, fontsize=7)
            axes[r][c].set_yticks(range(len(ams)), am_labels, fontsize=7)
            axes[r][c].set_xlabel("question model", fontsize=8)
            if c == 0:
                axes[r][c].set_ylabel("answer model", fontsize=8)
            axes[r][c].set_title(f"{label} —\n{TITLES.get(qtype, qtype)}, {content}",
                                 fontsize=9)
        bar = fig.colorbar(image, ax=axes[r, :].tolist(), shrink=0.9,
                           label=COLORBAR_LABELS[attr])
        bar.ax.yaxis.label.set_fontsize(8)
        bar.ax.tick_params(labelsize=7)
        bar.set_ticks([0, 25, 50, 75, 100])
        if attr == "kappa":
            bar.ax.axhline(CHANCE, color=CHANCE_COLOR, linewidth=2.5)
            bar.set_ticks([0, CHANCE, 50, 75, 100],
                          labels=["0", f"{CHANCE} chance", "50", "75", "100"])
    fig.suptitle("Shared imagination: κ and α per question and answer model (paper Figure 2)"
                 f"\ncells in percent with their n; chance with four choices is κ = {CHANCE}%"
                 " (red line on the κ colour bar)", fontsize=9)
    return fig


def _heatmap(ax: Any, cells: list[list[MatrixRow | None]], attr: str) -> Any:
    """One measure of one (content, qtype) as a heatmap in percent, each cell with its n."""
    values = np.full((len(cells), len(cells[0]) if cells else 0), np.nan)
    for i, row in enumerate(cells):
        for j, rates in enumerate(row):
            v = None if rates is None else getattr(rates, attr)
            if v is not None:
                values[i, j] = 100 * v
            n = 0 if rates is None else (
                rates.answered if attr == "kappa" else rates.answered + rates.declined)
            ax.text(j, i, "–" if v is None else f"{round(v * 100)}%\nn={n}", ha="center",
                    va="center", fontsize=7,
                    color="black" if v is not None and v > 0.6 else "white")
    image = ax.imshow(np.ma.masked_invalid(values), vmin=0.0, vmax=100.0, cmap="viridis",
                      aspect="auto")
    ax.set_facecolor("0.35")
    return image


def plot_matrix(rows: Sequence[MatrixRow], path: Path) -> None:
    """Write paper Fig. 2 (`matrix_figure`) as a PNG."""
    save_png(matrix_figure(rows), path)


def plot_length_ranks(dist: Sequence[LengthRanks], path: Path) -> None:
    """Write paper Fig. 5 as a PNG: per (QM, qtype), stacked bars of answer length ranks."""
    keys = list(dist)
    fig = new_figure(7.0, 1.5 + 0.35 * max(len(keys), 1))
    ax = fig.add_subplot()
    labels = [f"{k.qm} · {k.content} {k.qtype}" for k in keys]
    left = [0.0] * len(keys)
    for rank, (name, color) in enumerate(zip(RANK_LABELS, RANK_COLORS, strict=True)):
        widths = [k.fractions[rank] for k in keys]
        ax.barh(range(len(keys)), widths, left=left, color=color, label=name)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.set_yticks(range(len(keys)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("fraction of questions by length rank of the designated answer")
    ax.set_title("Length rank of the correct choice (paper Figure 5)")
    if not keys:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    fig.legend(loc="outside lower center", ncol=4, fontsize=8)
    save_png(fig, path)


def _rate_panel(ax: Axes, positions: Sequence[PositionRates], attr: str, label: str) -> None:
    """One AM's rate per position as a line each, and their mean over AMs in pink."""
    x = list(POSITIONS)
    table = np.array([[np.nan if getattr(r, attr) is None else getattr(r, attr)
                       for r in row.rates] for row in positions], dtype=float)
    for row, values in zip(positions, table, strict=True):
        ax.plot(x, values, marker="o", linewidth=1, markersize=3, label=wrap_name(row.am, AM_WRAP))
    if positions:
        counts = np.sum(~np.isnan(table), axis=0)
        mean = np.divide(np.nansum(table, axis=0), counts, out=np.full(len(x), np.nan),
                         where=counts > 0)
        ax.plot(x, mean, color=AVERAGE_COLOR, linewidth=2.5, marker="o", label="average")
    else:
        ax.text(0.5, 0.5, "no answers to sequential questions", ha="center", va="center",
                transform=ax.transAxes, fontsize=8)
    ax.set_xticks(x)
    ax.set_xlim(0.5, len(x) + 0.5)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("position in the sequence")
    ax.set_title(label, fontsize=9)


def plot_warmup(positions: Sequence[PositionRates], ranks: Sequence[PositionRanks],
                path: Path) -> None:
    """Write paper Fig. 9 as a PNG: κ and α per AM (and their mean, pink) by position in the
    five-question sequences, and the length ranks of the designated answer by position."""
    fig = new_figure(12.0, 4.2)
    left, middle, right = fig.subplots(1, 3)
    for ax, (attr, label) in zip((left, middle), MEASURES, strict=True):
        _rate_panel(ax, positions, attr, label)
    if positions:
        left.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    x = [r.position for r in ranks]
    bottom = [0.0] * len(ranks)
    for rank, (name, color) in enumerate(zip(RANK_LABELS, RANK_COLORS, strict=True)):
        heights = [r.fractions[rank] for r in ranks]
        right.bar(x, heights, bottom=bottom, color=color, label=name)
        bottom = [a + b for a, b in zip(bottom, heights, strict=True)]
    for r in ranks:
        right.text(r.position, 1.01, f"n={r.n}", ha="center", va="bottom", fontsize=7)
    if not ranks:
        right.text(0.5, 0.5, "no sequential questions", ha="center", va="center",
                   transform=right.transAxes, fontsize=8)
    right.set_xticks(list(POSITIONS))
    right.set_ylim(0, 1.08)
    right.set_xlabel("position in the sequence")
    right.set_title("Length rank of the correct choice", fontsize=9)
    if ranks:
        right.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=4)
    fig.suptitle("Warm-up: sequential questions by position (paper Figure 9)", fontsize=10)
    save_png(fig, path)
