"""Conceptual consistency as plain text for the terminal: CC, S_B, S_A; relations, concepts,
yes/no bias (its figures: plots.py)."""

from __future__ import annotations

from verstehen.methods.consistency.breakdowns import (
    MIN_ANCHORS,
    TOP_CONCEPTS,
    BestCombo,
    CCEntry,
    ConceptBreakdown,
    ConceptCounts,
    MajorityAnswers,
    MeanEntry,
    RateEntry,
    RelationBreakdown,
    YesNoBias,
)
from verstehen.methods.consistency.stats import LEVEL, Consistency
from verstehen.methods.consistency.summary import ConsistencySummary
from verstehen.text.display import Table
from verstehen.text.tables import plural

DASH = "—"

def _num(x: float | None) -> str:
    return DASH if x is None else f"{x:.2f}"


def format_cc(e: CCEntry) -> str:
    """`0.62 [0.55, 0.69] n=200`; without an interval `0.62 n=1`; `—  n=3` with no CC."""
    if e.cc is None:
        return f"{DASH}  n={e.n}"
    if e.low is None or e.high is None:
        return f"{e.cc:.2f} n={e.n}"
    return f"{e.cc:.2f} [{e.low:.2f}, {e.high:.2f}] n={e.n}"


def format_rate(e: RateEntry | MeanEntry) -> str:
    """`0.67 (0.27) n=3` for a rate or mean entry with its SE; `—  n=0` when there is none."""
    value = e.rate if isinstance(e, RateEntry) else e.mean
    if value is None or e.se is None:
        return f"{DASH}  n={e.n}"
    return f"{value:.2f} ({e.se:.2f}) n={e.n}"


def cc_line(c: Consistency) -> str:
    """CC with its bootstrap interval, n and base rate, in one line (the result's headline)."""
    if c.cc is None:
        why = "no anchor to score" if c.n == 0 else "no correct anchor"
        return f"CC {DASH} ({why}, n={c.n}; base rate {_num(c.base_rate)})"
    if c.cc_low is None or c.cc_high is None:
        return f"CC {c.cc:.2f} (no bootstrap interval, n={c.n}; base rate {_num(c.base_rate)})"
    return (f"CC {c.cc:.2f} [{c.cc_low:.2f}, {c.cc_high:.2f}] ({LEVEL:.0%} bootstrap, "
            f"n={c.n}; base rate {_num(c.base_rate)})")


def consistency_text(c: Consistency) -> str:
    """CC with its bootstrap interval, n and base rate; S_B and S_A with SEs; the left-out."""
    level = f"{LEVEL:.0%}"
    lines = [cc_line(c), "  (AP of predicting a correct anchor answer from S_B; the base rate "
                         "is the AP of a score that knows nothing)"]
    if warning := base_rate_warning(c):
        lines.append(warning)
    if c.s_b is not None and c.s_a is not None:
        lines.append(f"background score S_B {c.s_b:.2f} (SE {c.s_b_se:.2f}), "
                     f"task score S_A {c.s_a:.2f} (SE {c.s_a_se:.2f}), n={c.n}")
    if c.s_b_relations is not None:
        interval = ("" if c.s_b_relations_low is None or c.s_b_relations_high is None else
                    f" [{c.s_b_relations_low:.2f}, {c.s_b_relations_high:.2f}]")
        lines.append(f"background score by relation {c.s_b_relations:.2f}{interval} (paper "
                     f"Figure 4a: S_B on each relation's facts averaged over the anchors, then "
                     f"over the {c.relations} relations; {level} bootstrap)")
    lines.append(f"left out: {plural(c.unanswered, 'anchor')} with an unanswered anchor "
                 f"question, {c.no_background} with no answered background fact")
    return "\n".join(lines)


def base_rate_warning(c: Consistency) -> str | None:
    """A warning when every anchor question in CC was answered correctly, or none was: CC then
    says nothing of the background score; None otherwise."""
    if c.n == 0 or c.base_rate not in (0.0, 1.0):
        return None
    if c.base_rate == 1.0:
        return ("warning: CC is not informative: every anchor question was answered correctly "
                "(base rate 1.00), so any background score, however poor, gets CC 1")
    return ("warning: CC is not informative: no anchor question was answered correctly (base "
            "rate 0.00), so the background score has nothing to predict")


def relation_table(rel: dict[str, RelationBreakdown]) -> Table:
    """Per relation: background S_B (SE) n, CC of S_B restricted to r, CC with / without r."""
    rows = [[r, format_rate(e.background), format_cc(e.cc), format_cc(e.with_),
             format_cc(e.without)] for r, e in rel.items()]
    return Table("per relation (paper Figures 5 and 7)",
                 ["relation", "S_B on r", "CC of S_B on r", "CC with r", "CC without r"], rows)


def relation_text(rel: dict[str, RelationBreakdown]) -> str:
    """The per-relation table, then what its brackets and columns mean."""
    return (relation_table(rel).text()
            + f"\nstandard errors in parentheses, {LEVEL:.0%} bootstrap intervals in brackets; "
            "with / without: anchors whose background facts do / do not include the relation")


def concept_selection(shown: int, counts: ConceptCounts | None) -> str:
    """Which concepts the per-concept table shows, of how many, and by what selection (the
    paper's: the most frequent in the anchors' background facts, each in enough of them)."""
    if counts is None:  # a summary written before the counts were kept
        rule = (f"the paper's selection: the {TOP_CONCEPTS} concepts in the background facts "
                f"of the most anchors, at least {MIN_ANCHORS}")
        return (f"{plural(shown, 'concept')} shown ({rule})" if shown else
                f"no concept is in the background facts of {MIN_ANCHORS} anchors ({rule})")
    where = f"in the background facts of at least {plural(counts.min_anchors, 'anchor')}"
    rule = (f"the paper's selection: the {counts.top} in the facts of the most anchors; "
            f"{plural(counts.in_facts, 'concept')} in the facts in all")
    if not shown:
        return (f"no concept is in the background facts of {counts.min_anchors} anchors "
                f"({rule})")
    if shown < counts.eligible:
        head = f"{shown} of the {counts.eligible} concepts {where} are shown"
    elif shown == 1:
        head = f"the 1 concept {where} is shown"
    else:
        head = f"all {shown} concepts {where} are shown"
    return f"{head} ({rule})"


def concept_text(con: dict[str, ConceptBreakdown], counts: ConceptCounts | None = None) -> str:
    """Per concept: how many anchors have it in their facts, CC with / without it, under a line
    on which concepts are shown of how many; or why no concept is shown."""
    selection = concept_selection(len(con), counts)
    if not con:
        return selection
    return (selection + "\n" + concept_table(con).text()
            + "\nwith / without: anchors whose true background facts do / do not contain the "
            f"concept; {LEVEL:.0%} bootstrap intervals in brackets; n counts the anchors in CC")


def concept_table(con: dict[str, ConceptBreakdown]) -> Table:
    """Per concept: how many anchors have it in their facts, CC with / without it."""
    return Table("per concept (paper Figure 7)", ["concept", "anchors", "CC with", "CC without"],
                 [[c, str(e.anchors), format_cc(e.with_), format_cc(e.without)]
                  for c, e in con.items()])


def single_name(single: BestCombo) -> str:
    name = f"best single combo #{single.combo}"
    if single.meta is not None:
        name += f" (meta-prompt {single.meta + 1}, {single.labels})"
    return name


def bias_table(bias: YesNoBias) -> Table:
    """Accuracy on positive facts (said yes), negative facts (said no), balanced; majority vs
    best single combo."""
    def row(name: str, e: MajorityAnswers | BestCombo) -> list[str]:
        return [name, format_rate(e.positive), format_rate(e.negative), _num(e.accuracy)]

    rows = [row("majority vote", bias.majority)]
    if bias.single is not None:
        rows.append(row(single_name(bias.single), bias.single))
    return Table("yes/no bias (paper Figure 6)", ["answer", "positive facts: said yes",
                                                  "negative facts: said no", "balanced"], rows)


def bias_text(bias: YesNoBias) -> str:
    """The yes/no bias table, then its notes."""
    return (bias_table(bias).text()
            + f"\nstandard errors in parentheses; {plural(bias.majority.unanswered, 'fact')} "
            f"unanswered; single combos over the {plural(bias.facts_with_combos, 'fact')} "
            "scored by likelihood")


def summary_text(summary: ConsistencySummary) -> str:
    """Every table of the summary as plain text."""
    how = ("majority-vote likelihood (5 meta-prompts x 7 label pairs)"
           if summary.method == "likelihood" else
           "GENERATION: parsed yes/no, majority over the 5 meta-prompts (not the paper's "
           "likelihood method: the model gave no exact log-probabilities, or "
           "--answer-by generation asked for it)")
    parts = [f"{plural(summary.anchors, 'anchor question')}, "
             f"{plural(summary.facts, 'background fact')} ({summary.positive_facts} true), "
             f"answered by {how}",
             consistency_text(summary.consistency),
             "yes/no bias (paper Figure 6)\n" + bias_text(summary.bias),
             "per relation (paper Figures 5 and 7)\n" + relation_text(summary.by_relation),
             "per concept (paper Figure 7)\n" + concept_text(summary.by_concept,
                                                               summary.concepts)]
    return "\n\n".join(parts)


def consistency_tables(summary: ConsistencySummary) -> list[Table]:
    """The tables of the summary: the yes/no bias, per relation, per concept."""
    return [bias_table(summary.bias), relation_table(summary.by_relation),
            concept_table(summary.by_concept)]
