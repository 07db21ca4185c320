"""Potemkin scores as plain-text tables (paper Tables 1 and 6) and the Figure 4 plot."""

from __future__ import annotations

from pathlib import Path

from verstehen.methods.potemkin.records import OVERALL, TASKS
from verstehen.methods.potemkin.stats import KeystoneExpansion, PotemkinRate
from verstehen.report.figures import new_figure, save_png
from verstehen.report.tables import table


def format_rate(r: PotemkinRate) -> str:
    """`0.57 (0.06) n=40`, or `—  n=0` when no answer counted."""
    if r.rate is None or r.se is None:
        return f"—  n={r.n}"
    return f"{r.rate:.2f} ({r.se:.2f}) n={r.n}"


def _note(rows: list[dict[str, PotemkinRate]]) -> str:
    unparsed = sum(r.unparsed for rates in rows for r in rates.values())
    excluded = sum(r.excluded for rates in rows for r in rates.values())
    return (f"classify is scaled ×2 so chance accuracy (1/2) reads 1; standard errors in "
            f"parentheses; {unparsed} unparsed answers and {excluded} answers without a "
            "passed keystone are not counted")


def table1_text(t1: dict[str, dict[str, PotemkinRate]]) -> str:
    """Paper Table 1 as text: model, classify, generate, edit; then a note on scaling."""
    rows = [[model, *(format_rate(rates[t]) for t in TASKS)] for model, rates in t1.items()]
    pooled = [t1[OVERALL]] if OVERALL in t1 else []
    return table(["model", *TASKS], rows) + "\n" + _note(pooled)


def table6_text(t6: dict[str, dict[str, dict[str, PotemkinRate]]]) -> str:
    """Paper Table 6 as text: domain, model, classify, generate, edit; then the note."""
    rows = [[domain if i == 0 else "", model, *(format_rate(rates[t]) for t in TASKS)]
            for domain, models in t6.items() for i, (model, rates) in enumerate(models.items())]
    pooled = [models[OVERALL] for models in t6.values() if OVERALL in models]
    return table(["domain", "model", *TASKS], rows) + "\n" + _note(pooled)


def expansion_text(exp: KeystoneExpansion) -> str:
    """Paper Figure 4 as a table: k, share understood (SE), effective pairs, pairs; then models."""
    rows = [[str(p.k), "—" if p.share is None or p.se is None else f"{p.share:.2f} ({p.se:.2f})",
             f"{p.n_eff:.1f}", str(p.pairs)] for p in exp.points]
    lines = [table(["k", "share understood", "n_eff", "pairs"], rows),
             f"understood: the next {exp.next_uses} use answers all correct, after the "
             "definition and k classify answers are right",
             "models: " + (", ".join(exp.models) or "none")]
    if exp.dropped_models:
        lines.append("dropped (classify accuracy not above chance): "
                     + ", ".join(exp.dropped_models))
    return "\n".join(lines)


def plot_expansion(exp: KeystoneExpansion, path: Path) -> None:
    """Write a PNG of share understood against keystone size k, with SE error bars."""
    fig = new_figure(5, 3.5)
    ax = fig.add_subplot()
    points = [p for p in exp.points if p.share is not None]
    ax.errorbar([p.k for p in points], [p.share for p in points],
                yerr=[p.se or 0.0 for p in points], marker="o", capsize=3)
    ax.set_xticks([p.k for p in exp.points])
    ax.set_ylim(0, 1)
    ax.set_xlabel("keystone size k (correct classify answers after the definition)")
    ax.set_ylabel(f"share understood (next {exp.next_uses} uses right)")
    ax.set_title("Keystone expansion (paper Figure 4)")
    if not points:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    save_png(fig, path)
