"""What every PNG figure shares: a figure on matplotlib's Agg canvas, and a save through
`safe_files` (whole or not at all) that turns an unwritable path into one clear line."""

from __future__ import annotations

import math
import re
import textwrap
from pathlib import Path
from typing import Any

from verstehen.engine.store.safe_files import writing


def new_figure(width: float, height: float) -> Any:
    """A constrained-layout figure at 120 dpi on the Agg canvas (no pyplot, no GUI backend)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=120, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save_png(fig: Any, path: Path) -> None:
    """Write the figure as PNG, whole or not at all, or raise UserError naming the path."""
    with writing(path, "give a writable path") as handle:
        fig.savefig(handle, format="png")


def spread_labels(points: list[tuple[float, float]], gap: float,
                  within: tuple[float, float] | None = None) -> list[float]:
    """Heights for the points' labels in one column: each at or above its point, and at least
    `gap` above the label of the point below it. With `within` (low, high) every label stays in
    that range instead: the column moves down from `high` and the gap shrinks to fit."""
    order = sorted(range(len(points)), key=lambda k: (points[k][1], points[k][0]))
    if within is not None and len(points) > 1:
        gap = min(gap, (within[1] - within[0]) / (len(points) - 1))
    heights = [0.0] * len(points)
    previous = -math.inf if within is None else within[0] - gap
    for i in order:
        heights[i] = previous = max(points[i][1], previous + gap)
    if within is not None:
        limit = within[1]
        for i in reversed(order):
            heights[i] = min(heights[i], limit)
            limit = heights[i] - gap
    return heights


def wrap_name(name: str, width: int) -> str:
    """A model's full name on lines of about `width` characters, broken after a "/" or a
    space (`local//work/models/x.gguf [letter]`); a longer piece keeps its own line."""
    lines = [""]
    for piece in re.split(r"(?<=[/ ])", name):
        if lines[-1] and len(lines[-1].rstrip()) + len(piece.rstrip()) > width:
            lines.append("")
        lines[-1] += piece
    return "\n".join(line.rstrip() for line in lines)


def nothing_to_plot(ax: Any, why: str) -> None:
    """Say in the middle of the axes that there is nothing to plot, and why."""
    ax.text(0.5, 0.5, "nothing to plot:\n" + textwrap.fill(why, 48), ha="center",
            va="center", transform=ax.transAxes, fontsize=8, color="0.3",
            bbox={"facecolor": "white", "edgecolor": "0.8", "boxstyle": "round"})
