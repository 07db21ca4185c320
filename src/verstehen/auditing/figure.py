"""The audit's verdict figure: a forest plot of each target (rows) and model (colour, one line
each within a row) with the certified interval [L, U] of the mean score against PG, that of
the ridiculous rate against RID, the verdict and the number of answers it rests on.

Drawn as inline SVG by `report/svg.py`; every mark links to the answers behind it and carries
its numbers as data attributes and in its title. The Potemkin lens's picture is in
`potemkin_figure.py`; both share the rows, columns and bands defined here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from verstehen.auditing.results import TargetAudit, asked_by_task
from verstehen.methods.certification.html import rule_sentence
from verstehen.methods.certification.verdict import Criterion, Decision
from verstehen.report.markup import Html, Value, concat, el
from verstehen.report.svg import (
    MUTED,
    VERDICT_COLOURS,
    Scale,
    axis,
    circle,
    clip,
    colour,
    interval,
    line,
    mark,
    rect,
    svg,
    text,
)

WIDTH = 1300
PITCH = 20      # px per model within a row
PAD = 6         # px above and below a row's models
LABEL_CHARS = 32
SYMBOLS = {"understands": "✓", "does_not_understand": "✗", "inconclusive": "?", None: "–"}
TICKS = (0, 0.2, 0.4, 0.6, 0.8, 1)


class Links(Protocol):
    """The record groups a column's marks open (None: no records to open)."""

    def deciding(self, t: TargetAudit) -> int | None:
        """The answers the verdict rests on."""

    def answers_of(self, t: TargetAudit) -> int | None:
        """Every answer asked for the verdict."""

    def ridiculous(self, t: TargetAudit) -> int | None:
        """The answers scored 0 (every answer when none was)."""

    def task(self, t: TargetAudit, task: str) -> int | None:
        """The answers of one task (classify, generate, edit)."""

    def definition(self, t: TargetAudit) -> int | None:
        """The model's definition of the concept, with its grade."""

    def pairs(self, t: TargetAudit) -> int | None:
        """The model's own examples and what it said of them."""


@dataclass(frozen=True)
class Column:
    """One model of one audit: its label, its criterion, its line per target key, and the
    record groups its marks link to."""

    label: str
    criterion: Criterion
    lines: Mapping[str, TargetAudit]
    links: Links


@dataclass(frozen=True)
class Row:
    """One target: its key (what the columns' lines are keyed by), name and subject."""

    key: str
    name: str
    subject: str
    is_concept: bool


@dataclass(frozen=True)
class Band:
    """Where a row is drawn: its top and bottom, and the centre line of each column."""

    row: Row
    top: float
    bottom: float
    centres: tuple[float, ...]


def bands(rows: Sequence[Row], columns: int, top: float) -> list[Band]:
    """The rows stacked from `top`, each with one line per column."""
    out = []
    for row in rows:
        height = 2 * PAD + PITCH * columns
        out.append(Band(row, top, top + height,
                        tuple(top + PAD + PITCH * (i + 0.5) for i in range(columns))))
        top += height
    return out


def key_of_models(columns: Sequence[Column], y: float) -> tuple[Html, float]:
    """Each column's colour and label in a line (wrapped to the width); the SVG and the y
    below it."""
    parts, x = [], 8.0
    for i, column in enumerate(columns):
        width = 30 + 7.2 * len(column.label)
        if x > 8 and x + width > WIDTH:
            x, y = 8.0, y + 18
        parts.append(rect(x, y - 10, 14, 10, fill=colour(i), rx=2))
        parts.append(text(x + 20, y, column.label, font_size=12.5, class_="model",
                          data_model=column.label))
        x += width + 16
    return concat(parts), y + 14


def row_labels(band: Band, shade: bool) -> Html:
    """A row's background (every other row shaded) and the target's name at its left (whole
    in its title when cut)."""
    name = band.row.name
    label = text(8, (band.top + band.bottom) / 2 + 4.5, clip(name, LABEL_CHARS),
                 el("title", name) if len(name) > LABEL_CHARS else None,
                 font_weight=600, class_="target", data_target=band.row.key)
    return concat(rect(0, band.top, WIDTH, band.bottom - band.top, fill="#f4f6f8") if shade
                  else None, label)


def reference(scale: Scale, values: Sequence[float], bands_: Sequence[Band], name: str,
              top: float) -> Html:
    """The dashed line of PG (or RID) across the rows; a piece per column's line when the
    columns' criteria differ."""
    style: dict[str, Value] = {"stroke": "#1d232b", "stroke_width": 1.5, "stroke_dasharray": "5 3",
             "class_": f"ref {name}"}
    if len(set(values)) == 1:
        x = scale(values[0])
        return line(x, top, x, bands_[-1].bottom, data_value=f"{values[0]:g}", **style)
    return concat(line(scale(v), y - PITCH / 2, scale(v), y + PITCH / 2,
                       data_value=f"{v:g}", **style)
                  for band in bands_ for v, y in zip(values, band.centres, strict=True))


def _verdict_words(decision: Decision | None) -> str:
    return "no verdict" if decision is None else decision.words


def _model_line(band: Band, i: int, column: Column, score: Scale, rid: Scale,
                verdict_x: float) -> Html:
    """One model on one target: the two intervals and the verdict with n."""
    y, t, paint = band.centres[i], column.lines.get(band.row.key), colour(i)
    who = f"{band.row.name}, {column.label}"
    if t is None:
        return text(score.left + 4, y + 4, "not in this audit", fill=MUTED, font_style="italic",
                    font_size=12)
    v = t.verdict
    decision = None if v is None else v.decision.value
    data = {"model": column.label, "target": t.key}
    swatch = circle(verdict_x + 5, y, 5, fill=paint)
    words = el("tspan", f"{SYMBOLS[decision]} {_verdict_words(t.decision)}",
               fill=VERDICT_COLOURS[decision], font_weight="600")
    if v is None:
        note = text(score.left + 4, y + 4, f"no verdict ({t.asked} answered)",
                    fill=MUTED, font_style="italic", font_size=12)
        said = text(verdict_x + 16, y + 4.5, words, el("tspan", f" n={t.asked}", fill=MUTED))
        return note + mark(swatch + said, f"{who}: no verdict, {t.asked} answered",
                           column.links.answers_of(t), mark="verdict", decision="none",
                           n=t.asked, **data)
    n = asked_by_task(t)
    c = column.criterion
    scored_zero = round(v.ridiculous_rate * v.n)
    score_mark = mark(
        interval(score, y, v.score_lower, v.score_upper, v.mean_score, paint),
        f"{who}: mean score {v.mean_score:.2f}, [L, U] = [{v.score_lower:.2f}, "
        f"{v.score_upper:.2f}] against PG {c.pg:g}; {v.decision.words}; n={n}",
        column.links.answers_of(t), mark="score", mean=f"{v.mean_score:.6f}",
        lower=f"{v.score_lower:.6f}", upper=f"{v.score_upper:.6f}", n=v.n,
        decision=decision, **data)
    rid_mark = mark(
        interval(rid, y, v.ridiculous_lower, v.ridiculous_upper, v.ridiculous_rate, paint),
        f"{who}: ridiculous rate {v.ridiculous_rate:.2f} ({scored_zero} of {v.n} answers "
        f"scored 0), [{v.ridiculous_lower:.3f}, {v.ridiculous_upper:.3f}] against RID "
        f"{c.rid:g}", column.links.ridiculous(t), mark="ridiculous",
        rate=f"{v.ridiculous_rate:.6f}", lower=f"{v.ridiculous_lower:.6f}",
        upper=f"{v.ridiculous_upper:.6f}", n=v.n, **data)
    said = text(verdict_x + 16, y + 4.5, words, el("tspan", f" n={v.n}", fill=MUTED))
    verdict_mark = mark(swatch + said, f"{who}: {v.decision.words} ({v.decided_by_words}), "
                        f"n={n}", column.links.deciding(t), mark="verdict", decision=decision,
                        n=v.n, **data)
    return score_mark + rid_mark + verdict_mark


def verdict_figure(rows: Sequence[Row], columns: Sequence[Column]) -> Html:
    """The forest plot of every row and column, as inline SVG (empty without rows)."""
    if not rows or not columns:
        return concat()
    score, rid = Scale(0, 1, 280, 720), Scale(0, 1, 765, 1000)
    verdict_x = 1025
    models, y = key_of_models(columns, 18)
    pgs = [c.criterion.pg for c in columns]
    rids = [c.criterion.rid for c in columns]
    heads_y = y + 14
    heads = (text(score.left, heads_y, "mean score [L, U] against PG " + _values(pgs),
                  font_weight=600) +
             text(rid.left, heads_y, "ridiculous rate [L, U] · RID " + _values(rids),
                  font_weight=600) +
             text(verdict_x, heads_y, "verdict, n", font_weight=600))
    stacked = bands(rows, len(columns), heads_y + 10)
    body = [row_labels(b, k % 2 == 1) for k, b in enumerate(stacked)]
    bottom = stacked[-1].bottom
    body.append(axis(score, heads_y + 8, bottom + 2, TICKS, name="score"))
    body.append(axis(rid, heads_y + 8, bottom + 2, TICKS, name="ridiculous"))
    body.append(reference(score, pgs, stacked, "pg", heads_y + 6))
    body.append(reference(rid, rids, stacked, "rid", heads_y + 6))
    body.append(text(score(pgs[0]), bottom + 32, "PG", text_anchor="middle", font_weight=600))
    body.append(text(rid(rids[0]), bottom + 32, "RID", text_anchor="middle", font_weight=600))
    for band in stacked:
        body.extend(_model_line(band, i, column, score, rid, verdict_x)
                    for i, column in enumerate(columns))
    return svg(WIDTH, bottom + 42, models + heads + concat(body),
               label=_summary(rows, columns), cls="verdicts")


def _values(values: Sequence[float]) -> str:
    return " / ".join(f"{v:g}" for v in dict.fromkeys(values))


def _summary(rows: Sequence[Row], columns: Sequence[Column]) -> str:
    """The figure in one line: per model, how many targets got each verdict."""
    said = []
    for column in columns:
        lines = [column.lines[r.key] for r in rows if r.key in column.lines]
        counts = {w: sum(_verdict_words(t.decision) == w for t in lines)
                  for w in ("understands", "does not understand", "inconclusive", "no verdict")}
        said.append(f"{column.label}: " + ", ".join(f"{n} {w}" for w, n in counts.items() if n))
    return (f"Verdicts on {len(rows)} targets, mean score and ridiculous rate with their "
            f"certified bounds; " + "; ".join(said))


def legend(columns: Sequence[Column]) -> Html:
    """The sentence under the figure: what the marks are, then the rule with its values."""
    criteria = list(dict.fromkeys(c.criterion for c in columns))
    rules = " ".join(rule_sentence(c) for c in criteria)
    return el("p", "Each line is a model on a target: the dot is the observed mean score "
              "(left) or rate of ridiculous answers, those scored 0 (right), the bar its "
              f"certified interval [L, U] from the n answers beside the verdict. {rules} Click "
              "a mark for the answers behind it.", class_="legend")


def figure_html(drawing: Html, caption: Html) -> Html:
    """A drawing with its caption, or nothing when there is no drawing."""
    return el("figure", drawing, caption, class_="chart") if drawing else concat()

