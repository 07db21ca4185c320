"""Plots of imaginary question answering: the rate grid (paper Fig. 2) and length ranks (Fig. 5)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from verstehen.methods.imagination.stats import LengthRanks, MatrixRow, sort_qtypes
from verstehen.report.figures import new_figure, save_png

TITLES = {"DQ": "direct questions (DQ)", "CQ": "context questions (CQ)",
          "SQ": "sequential questions (SQ)"}
MEASURES = (("kappa", "Correctness rate κ"), ("alpha", "Answering rate α"))
RANK_LABELS = ("shortest", "2nd shortest", "3rd shortest", "longest")
RANK_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red")


def short_name(model: str) -> str:
    """`local/smollm2-135m [letter]` -> `smollm2-135m [letter]`: the part after the last "/"."""
    m = re.fullmatch(r"(.*?)(\s*\[[^\]]*\])?", model)
    base, suffix = (m.group(1), m.group(2) or "") if m else (model, "")
    return base.rsplit("/", 1)[-1] + suffix


def plot_matrix(rows: Sequence[MatrixRow], path: Path) -> None:
    """Write paper Fig. 2 as a PNG: κ and α heatmaps (rows AM, columns QM), one column per qtype;
    each cell shows the rate x 100 and its n."""
    matrix = {(r.qtype, r.qm, r.am): r for r in rows}
    qtypes = sort_qtypes(q for q, _, _ in matrix)
    qms = sorted({qm for _, qm, _ in matrix})
    ams = sorted({am for _, _, am in matrix})
    cols = max(len(qtypes), 1)
    qm_chars = max((len(short_name(m)) for m in qms), default=0)
    am_chars = max((len(short_name(m)) for m in ams), default=0)
    # each heatmap: 0.5 in per QM column and 0.35 in per AM row, plus room for tick labels
    width = cols * (1.2 + 0.07 * am_chars + max(0.5 * len(qms), 1.8)) + 1.2
    height = 2 * (1.4 + 0.05 * qm_chars + 0.35 * len(ams))
    fig = new_figure(max(width, 4.0), max(height, 3.0))
    if not qtypes:
        ax = fig.add_subplot()
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        save_png(fig, path)
        return
    axes = fig.subplots(2, cols, squeeze=False)
    image = None
    for c, qtype in enumerate(qtypes):
        for r, (attr, label) in enumerate(MEASURES):
            ax = axes[r][c]
            values = np.full((len(ams), len(qms)), np.nan)
            for i, am in enumerate(ams):
                for j, qm in enumerate(qms):
                    rates = matrix.get((qtype, qm, am))
                    v = None if rates is None else getattr(rates, attr)
                    if v is not None:
                        values[i, j] = v
                    n = 0 if rates is None else (
                        rates.answered if attr == "kappa" else rates.answered + rates.declined)
                    ax.text(j, i, "–" if v is None else f"{round(v * 100)}\nn={n}",
                            ha="center", va="center", fontsize=7,
                            color="black" if v is not None and v > 0.6 else "white")
            image = ax.imshow(np.ma.masked_invalid(values), vmin=0.0, vmax=1.0,
                              cmap="viridis", aspect="auto")
            ax.set_facecolor("0.35")
            ax.set_xticks(range(len(qms)), [short_name(m) for m in qms], rotation=45,
                          ha="right", fontsize=8)
            ax.set_yticks(range(len(ams)), [short_name(m) for m in ams], fontsize=8)
            ax.set_xlabel("question model")
            if c == 0:
                ax.set_ylabel("answer model")
            ax.set_title(f"{label} —\n{TITLES.get(qtype, qtype)}", fontsize=9)
    fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8, label="rate")
    save_png(fig, path)


def plot_length_ranks(dist: Sequence[LengthRanks], path: Path) -> None:
    """Write paper Fig. 5 as a PNG: per (QM, qtype), stacked bars of answer length ranks."""
    keys = list(dist)
    fig = new_figure(7.0, 1.5 + 0.35 * max(len(keys), 1))
    ax = fig.add_subplot()
    labels = [f"{short_name(k.qm)} · {k.qtype}" for k in keys]
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
