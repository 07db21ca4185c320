"""The Potemkin lens of an audit as a picture: per concept (rows) and model (one line each),
whether the definition (the keystone) was graded right, the potemkin rate of each task with
its standard error, and incoherence with its standard error (Mancoridis et al., Tables 1
and 2: 1 - accuracy given a right definition, classify x 2 so chance reads 1; incoherence 2 x
the rate at which the model's classification of its own example contradicts it).
"""

from __future__ import annotations

from collections.abc import Sequence

from verstehen.auditing.figure import WIDTH, Band, Column, Row, bands, key_of_models, row_labels
from verstehen.auditing.results import TargetAudit, keystone_word
from verstehen.methods.potemkin.stats import TASKS
from verstehen.methods.potemkin.text import unreadable
from verstehen.report.markup import Html, concat, el
from verstehen.report.svg import (
    MUTED,
    VERDICT_COLOURS,
    Scale,
    axis,
    colour,
    interval,
    line,
    svg,
    text,
)
from verstehen.report.svg import mark as link_mark

KEYSTONE_X = 290
PANELS = {"classify": Scale(0, 2, 400, 620), "generate": Scale(0, 1, 650, 760),
          "edit": Scale(0, 1, 790, 900), "incoherence": Scale(0, 2, 950, 1150)}
COUNT_X = 1215  # where incoherence's n is written
TICKS = {2: (0, 0.5, 1, 1.5, 2), 1: (0, 0.5, 1)}
KEYSTONE_LOOK = {"right": ("✓ right", VERDICT_COLOURS["understands"]),
                 "wrong": ("✗ wrong", VERDICT_COLOURS["does_not_understand"]),
                 "ungraded": ("? ungraded", VERDICT_COLOURS[None])}


def _note(x: float, y: float, words: str) -> Html:
    return text(x, y + 4, words, fill=MUTED, font_style="italic", font_size=12)


def _bar(scale: Scale, y: float, value: float, se: float | None, paint: str) -> Html:
    spread = se or 0.0
    return interval(scale, y, value - spread, value + spread, value, paint)


def _keystone(t: TargetAudit, column: Column, y: float, paint: str, who: str) -> Html:
    word = keystone_word(t)
    words, shade = KEYSTONE_LOOK[word]
    said = text(KEYSTONE_X, y + 4.5, words, fill=shade, font_weight=600)
    dot = line(KEYSTONE_X - 12, y, KEYSTONE_X - 4, y, stroke=paint, stroke_width=4)
    return link_mark(dot + said, f"{who}: definition {word}", column.links.definition(t),
                     mark="keystone", keystone=word, model=column.label, target=t.key)


def _rates(t: TargetAudit, column: Column, y: float, paint: str, who: str) -> Html:
    """The three tasks' potemkin rates, or why there are none."""
    if not t.potemkin:
        why = {"ungraded": "no potemkin rate until the definition is graded",
               "wrong": "no potemkin rate: it counts only concepts defined right"}
        return _note(PANELS["classify"].left + 4, y, why.get(keystone_word(t), "—"))
    parts = []
    for task in TASKS:
        scale, r = PANELS[task], t.potemkin.get(task)
        data = {"mark": "potemkin", "task": task, "model": column.label, "target": t.key}
        if r is None or r.rate is None:
            parts.append(_note(scale.left + 4, y, "— n=0" + (unreadable(r) if r else "")))
            continue
        label = (f"{who}: potemkin rate on {task} {r.rate:.2f} ± {r.se or 0:.2f} "
                 f"(n={r.n}{unreadable(r)})")
        parts.append(link_mark(_bar(scale, y, r.rate, r.se, paint), label,
                               column.links.task(t, task), rate=f"{r.rate:.6f}",
                               se=f"{r.se or 0:.6f}", n=r.n, **data))
    return concat(parts)


def none_readable(unparsed: int) -> str:
    """Why incoherence has no value: "both self-classifications unreadable" and the like."""
    if unparsed == 0:
        return "no example classified"
    which = {1: "its one self-classification", 2: "both self-classifications"}.get(
        unparsed, f"all {unparsed} self-classifications")
    return f"{which} unreadable"


def _incoherence(t: TargetAudit, column: Column, y: float, paint: str, who: str) -> Html:
    scale, inc = PANELS["incoherence"], t.incoherence
    data = {"mark": "incoherence", "model": column.label, "target": t.key}
    if inc is None:
        return _note(scale.left + 4, y, "— no examples made")
    if inc.incoherence is None:
        words = f"— {none_readable(inc.unparsed)}"
        return link_mark(_note(scale.left + 4, y, words) + text(COUNT_X, y + 4.5, "0",
                                                                fill=MUTED),
                         f"{who}: incoherence — n=0, {none_readable(inc.unparsed)}",
                         column.links.pairs(t), n=0, unparsed=inc.unparsed, **data)
    label = (f"{who}: incoherence {inc.incoherence:.2f} ± {inc.se or 0:.2f} (n={inc.n}"
             + (f", {inc.unparsed} unreadable" if inc.unparsed else "") + ")")
    count = text(COUNT_X, y + 4.5, f"{inc.n}", fill=MUTED)
    return link_mark(_bar(scale, y, inc.incoherence, inc.se, paint) + count, label,
                     column.links.pairs(t), rate=f"{inc.incoherence:.6f}",
                     se=f"{inc.se or 0:.6f}", n=inc.n, unparsed=inc.unparsed, **data)


def _model_line(band: Band, i: int, column: Column) -> Html:
    y, t, paint = band.centres[i], column.lines.get(band.row.key), colour(i)
    if t is None:
        return _note(KEYSTONE_X, y, "not in this audit")
    who = f"{band.row.name}, {column.label}"
    return (_keystone(t, column, y, paint, who) + _rates(t, column, y, paint, who)
            + _incoherence(t, column, y, paint, who))


def potemkin_figure(rows: Sequence[Row], columns: Sequence[Column]) -> Html:
    """The Potemkin lens of the concepts among the rows, as inline SVG (empty without any)."""
    concepts = [r for r in rows if r.is_concept]
    if not concepts or not columns:
        return concat()
    models, y = key_of_models(columns, 18)
    heads_y = y + 32
    heads = [text(KEYSTONE_X - 12, heads_y, "definition", font_weight=600),
             text(PANELS["classify"].left, heads_y - 18,
                  "potemkin rate (1 − accuracy given a right definition)", font_weight=600),
             text(COUNT_X, heads_y, "n", font_weight=600)]
    heads += [text(scale.left, heads_y, name, font_weight=600)
              for name, scale in PANELS.items()]
    stacked = bands(concepts, len(columns), heads_y + 10)
    bottom = stacked[-1].bottom
    body = [row_labels(b, k % 2 == 1) for k, b in enumerate(stacked)]
    for name, scale in PANELS.items():
        body.append(axis(scale, heads_y + 8, bottom + 2, TICKS[int(scale.high)], name=name))
        if scale.high == 2:  # the scaled rates: 1 is what guessing gives
            x = scale(1)
            body.append(line(x, heads_y + 6, x, bottom, stroke="#1d232b", stroke_width=1.2,
                             stroke_dasharray="4 3", class_="ref chance", data_value=1))
            body.append(text(x, bottom + 32, "chance", text_anchor="middle", font_size=11.5))
    for band in stacked:
        body.extend(_model_line(band, i, column) for i, column in enumerate(columns))
    label = (f"The Potemkin lens on {len(concepts)} concepts: whether each model defined each "
             "concept right, its potemkin rate per task and its incoherence, with standard "
             "errors")
    return svg(WIDTH, bottom + 42, models + concat(heads) + concat(body), label=label,
               cls="potemkin")


LEGEND = ("Definition: whether the model's own definition of the concept was graded right "
          "(the keystone). Potemkin rate: of the answers on a concept it defined right, the "
          "share it got wrong (1 − accuracy; classify × 2, so 1 is chance; an unreadable "
          "generate or edit answer counts as wrong, an unreadable classification is left "
          "out). Incoherence: 2 × the rate at which the model's classification of its own "
          "example contradicts what it was asked to make (0 coherent, 1 chance). Dots with "
          "± one standard error.")


def potemkin_legend(waiting: int) -> Html:
    """The sentence under the Potemkin picture, and how to grade definitions still waiting."""
    more = "" if not waiting else (
        f" {waiting} definition{'s wait' if waiting > 1 else ' waits'} for a grade: rerun with "
        "--judge MODEL, or `verstehen annotate` the potemkin folder, then `verstehen report` "
        "the audit again.")
    return el("p", LEGEND + more, class_="legend")
