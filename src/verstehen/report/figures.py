"""What every PNG figure shares: a figure on matplotlib's Agg canvas, and a save that turns an
unwritable path into one clear line."""

from __future__ import annotations

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


def spread_labels(points: list[tuple[float, float]], gap: float, near: float
                  ) -> list[float]:
    """Label heights for points, each at or above its point, at least `gap` above the label of
    any lower point within `near` horizontally (so labels of clustered points do not overlap)."""
    heights: list[float | None] = [None] * len(points)
    for i in sorted(range(len(points)), key=lambda k: (points[k][1], points[k][0])):
        x, y = points[i]
        below = [h for j, h in enumerate(heights)
                 if h is not None and abs(points[j][0] - x) < near]
        heights[i] = max([y, *(h + gap for h in below)])
    return [h for h in heights if h is not None]
