"""The paper's Figure 4 (keystone expansion) as a PNG."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from verstehen.methods.potemkin.stats import KeystoneExpansion
from verstehen.methods.potemkin.text import expansion_definition
from verstehen.report.figures import new_figure, nothing_to_plot, save_png

TITLE_WIDTH = 80  # characters of a title line of the 6-inch Figure 4 at font size 9


def expansion_figure(exp: KeystoneExpansion) -> Any:
    """Paper Figure 4: share understood against keystone size k, ± 1 SE, with the models
    counted; when there is nothing to plot, why."""
    fig = new_figure(6.0, 4.6)
    ax = fig.add_subplot()
    points = [p for p in exp.points if p.share is not None]
    ax.errorbar([p.k for p in points], [p.share for p in points],
                yerr=[p.se or 0.0 for p in points], marker="o", capsize=3,
                label="share understood ± 1 SE; SE = √(share·(1 − share) / n_eff),\n"
                      "n_eff = Σ P(keystone passed) over the (model, concept) pairs")
    for p in exp.points:
        if p.share is None and points:
            ax.text(p.k, 0.02, "no pair", ha="center", fontsize=7, color="0.4")
        elif p.share is not None:
            ax.annotate(f"n_eff {p.n_eff:.1f}", (p.k, p.share + (p.se or 0.0)),
                        xytext=(0, 4), textcoords="offset points", ha="center", fontsize=7,
                        color="0.4")
    ks = [p.k for p in exp.points]
    ax.set_xticks(ks)
    if ks:
        ax.set_xlim(min(ks) - 0.5, max(ks) + 0.5)
    ax.set_ylim(0, 1)
    ax.set_xlabel("keystone size k (correct classify answers after the definition)")
    ax.set_ylabel(f"share understood (next {exp.next_uses} uses right)")
    counted = [textwrap.fill("definition: " + expansion_definition(exp), TITLE_WIDTH),
               textwrap.fill("models: " + (", ".join(exp.models) or "none"), TITLE_WIDTH)]
    if exp.dropped_models:
        counted.append(textwrap.fill("left out, classify accuracy not above chance (1/2): "
                                     + ", ".join(exp.dropped_models), TITLE_WIDTH))
    ax.set_title("\n".join(["Keystone expansion (paper Figure 4)", *counted]), fontsize=9)
    if points:
        fig.legend(loc="outside lower center", fontsize=7)
    else:
        nothing_to_plot(ax, _why_empty(exp))
    return fig


def _why_empty(exp: KeystoneExpansion) -> str:
    if exp.dropped_models and not exp.models:
        return ("no model's classify accuracy is above chance (1/2) on the concepts whose "
                "definition it got right, and only such models are counted (`potemkin score "
                "--all-models` counts all)")
    if not exp.models:
        return "no graded use answers"
    if exp.definition == "paper":
        return ("no (model, concept) with a passed keystone has a classify answer left after "
                "k of them")
    return (f"no (model, concept) with a passed keystone has {exp.next_uses} more use "
            "answers after k classify answers (`potemkin score --next-uses` sets how many)")


def plot_expansion(exp: KeystoneExpansion, path: Path) -> None:
    """Write Figure 4 (`expansion_figure`) as a PNG."""
    save_png(expansion_figure(exp), path)
