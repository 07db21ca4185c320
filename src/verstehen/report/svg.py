"""Inline SVG for the HTML report, made with `report/markup.py`'s elements (no matplotlib, no
script): linear scales, axes with labelled ticks, intervals with a dot, and marks that open the
records behind them.

Every element escapes its text and attributes, so callers pass plain values. A mark that rests
on records is an SVG `<a class="rec" data-g=...>`, the same link the page's tables use, so the
page's one click handler opens its records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from verstehen.report.markup import Content, Html, Value, concat, el

# Okabe-Ito colours (told apart by colour-blind readers), one per model, in order
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000")
VERDICT_COLOURS = {"understands": "#1a7f37", "does_not_understand": "#b42318",
                   "inconclusive": "#8a6d00", None: "#777777"}
MUTED = "#5b6470"
GRID = "#e3e7eb"


def colour(index: int) -> str:
    """The colour of the index-th model (the palette repeats after seven)."""
    return PALETTE[index % len(PALETTE)]


def _at(**values: float) -> dict[str, Value]:
    """Coordinates to one decimal (enough for a screen, and short)."""
    return {k: f"{v:.1f}" for k, v in values.items()}


def text(x: float, y: float, *words: Content, **values: Value) -> Html:
    """Text at (x, y) (baseline): words (escaped) and `tspan`s or a `title`."""
    return el("text", *words, **_at(x=x, y=y), **values)


def line(x1: float, y1: float, x2: float, y2: float, **values: Value) -> Html:
    """A straight line."""
    return el("line", **_at(x1=x1, y1=y1, x2=x2, y2=y2), **values)


def rect(x: float, y: float, width: float, height: float, **values: Value) -> Html:
    """A rectangle."""
    return el("rect", **_at(x=x, y=y, width=width, height=height), **values)


def circle(x: float, y: float, r: float, **values: Value) -> Html:
    """A circle centred at (x, y)."""
    return el("circle", **_at(cx=x, cy=y, r=r), **values)


@dataclass(frozen=True)
class Scale:
    """A linear map from values in [low, high] to pixels in [left, right] (clipped)."""

    low: float
    high: float
    left: float
    right: float

    def __call__(self, value: float) -> float:
        share = (min(max(value, self.low), self.high) - self.low) / (self.high - self.low)
        return self.left + share * (self.right - self.left)


def axis(scale: Scale, top: float, bottom: float, ticks: Sequence[float], *, name: str) -> Html:
    """Light grid lines at the ticks from top to bottom, each labelled under the bottom; the
    group and each tick carry their value (`data-axis`, `data-value`)."""
    parts = [line(scale.left, bottom, scale.right, bottom, stroke=MUTED)]
    for t in ticks:
        x = scale(t)
        parts.append(line(x, top, x, bottom, stroke=GRID, class_="grid"))
        parts.append(line(x, bottom, x, bottom + 4, stroke=MUTED, class_="tick",
                          data_value=f"{t:g}"))
        parts.append(text(x, bottom + 16, f"{t:g}", text_anchor="middle", font_size=11,
                          fill=MUTED))
    return el("g", parts, class_="axis", data_axis=name)


def interval(scale: Scale, y: float, low: float, high: float, mid: float, paint: str) -> Html:
    """A horizontal interval [low, high] with end caps and a dot at `mid`."""
    x1, x2, xm = scale(low), scale(high), scale(mid)
    return concat(
        line(x1, y, x2, y, stroke=paint, stroke_width=3, stroke_linecap="butt"),
        line(x1, y - 5, x1, y + 5, stroke=paint, stroke_width=2),
        line(x2, y - 5, x2, y + 5, stroke=paint, stroke_width=2),
        circle(xm, y, 4.5, fill=paint, stroke="#fff", stroke_width=1.5, class_="dot"))


def mark(inner: Html, label: str, group: int | None, **data: Value) -> Html:
    """A mark: `inner` with `label` as its title (tooltip and accessible name) and its data
    attributes; a link to the records of `group` when it has one."""
    values: dict[str, Value] = {"aria_label": label, **{f"data_{k}": v for k, v in data.items()}}
    if group is None:
        return el("g", el("title", label), inner, class_="mark", **values)
    return el("a", el("title", label), inner, href="#records", class_="rec mark", data_g=group,
              **values)


def svg(width: float, height: float, inner: Html, *, label: str, cls: str) -> Html:
    """An inline SVG drawing of `width` px (it shrinks with a narrower page), its `<title>`
    and aria-label saying what it shows."""
    return el("svg", el("title", label), inner, xmlns="http://www.w3.org/2000/svg", class_=cls,
              width=f"{width:g}", viewBox=f"0 0 {width:g} {height:.0f}", role="group",
              aria_label=label, font_family="system-ui, sans-serif", font_size="13")


def clip(words: str, limit: int) -> str:
    """`words` cut to `limit` characters with an ellipsis."""
    return words if len(words) <= limit else words[:limit - 1] + "…"
