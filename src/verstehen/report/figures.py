"""What every PNG figure shares: a figure on matplotlib's Agg canvas, and a save that turns an
unwritable path into one clear line."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from verstehen.errors import UserError


def new_figure(width: float, height: float) -> Any:
    """A constrained-layout figure at 120 dpi on the Agg canvas (no pyplot, no GUI backend)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=120, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save_png(fig: Any, path: Path) -> None:
    """Write the figure as PNG, or raise UserError naming the path."""
    try:
        fig.savefig(Path(path), format="png")
    except OSError as exc:
        raise UserError(f"cannot write the plot {path} ({exc.strerror or exc}): give a writable "
                        "path") from None


def spread_labels(points: list[tuple[float, float]], gap: float) -> list[float]:
    """Heights for the points' labels in one column: each at or above its point, and at least
    `gap` above the label of the point below it."""
    heights = [0.0] * len(points)
    previous = -math.inf
    for i in sorted(range(len(points)), key=lambda k: (points[k][1], points[k][0])):
        heights[i] = previous = max(points[i][1], previous + gap)
    return heights
