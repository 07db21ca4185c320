"""A certification run folder as Inspect logs (`verstehen export --inspect`): one log per
(model, scope) verdict, whose samples are the questions the verdict rests on (its answers and,
with explanations, each family's program), and each scope's rephrasings, which the verdict does
not rest on, in a log of their own.

A verdict log's results lead with `verdict` (1 understands, -1 does not understand, 0 neither:
inconclusive, or no verdict when calls failed), then the bounds the decision compared with PG
and RID, then the rest (`inspect view` lists the first as the log's score); its tag is the
scope and the decision in words (`arithmetic/small: understands`), and each of its samples
shows the decision as its `verdict`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from verstehen.methods.certification.verdict import TEST_WORDS, Decision
from verstehen.rows import LogPart, ResultGroup, ResultValue, SampleRow

VERDICT_NUMBER = {Decision.UNDERSTANDS: 1, Decision.DOES_NOT_UNDERSTAND: -1,
                  Decision.INCONCLUSIVE: 0}
# the bounds each decision rests on, each before the threshold it was compared with
UNDERSTANDS_BOUNDS = ("score_lower", "pg", "ridiculous_upper", "rid")
DOES_NOT_BOUNDS = ("score_upper", "pg", "ridiculous_lower", "rid")
REPHRASE_VALUES = ("rephrase_n", "rephrase_disagreement_rate")
REPHRASED = "rephrase"  # the kind of row the verdict does not rest on


def certify_logs(rows: Sequence[SampleRow], results: Sequence[ResultGroup]) -> list[LogPart]:
    """A log per verdict (named by its group when there are several), then its rephrasings'
    log; rows no verdict names (none in a folder certify wrote) in a last log, "other"."""
    several = len(results) > 1
    parts: list[LogPart] = []
    taken: set[int] = set()
    for group in results:
        mine = [row for row in rows if _of(row, group)]
        taken.update(id(row) for row in mine)
        name = group.name if several else ""
        parts.append(verdict_log(group, [r for r in mine if r.metadata.get("kind") != REPHRASED],
                                 name))
        if again := [r for r in mine if r.metadata.get("kind") == REPHRASED]:
            parts.append(rephrase_log(group, again, f"{name} rephrase" if name else "rephrase"))
    if rest := [row for row in rows if id(row) not in taken]:
        parts.append(LogPart(rest, [], name="other"))
    return parts


def _scope(group: ResultGroup) -> str:
    return group.scope or group.name


def _of(row: SampleRow, group: ResultGroup) -> bool:
    """Whether a row is one of the group's (model, scope)."""
    scope = row.scope or row.metadata.get("scope")
    return scope == _scope(group) and (group.model is None or row.model == group.model)


def _model(group: ResultGroup, rows: Sequence[SampleRow]) -> str:
    return group.model or next((r.model for r in rows if r.model), "the model")


def decision_of(values: dict[str, ResultValue] | None) -> Decision | None:
    """The decision a group's values name (None: no verdict)."""
    try:
        return Decision(str((values or {}).get("decision")))
    except ValueError:
        return None


def verdict_log(group: ResultGroup, rows: Sequence[SampleRow], name: str) -> LogPart:
    """One verdict's log: `verdict`, the bounds it rests on and the thresholds, then the rest
    of its values (the rephrase check's are in the rephrasings' log)."""
    values = {k: v for k, v in group.values.items() if k not in REPHRASE_VALUES}
    decision = decision_of(values)
    lead = DOES_NOT_BOUNDS if decision == Decision.DOES_NOT_UNDERSTAND else UNDERSTANDS_BOUNDS
    first: dict[str, ResultValue] = {
        "verdict": VERDICT_NUMBER[decision] if decision else 0,
        **{k: values[k] for k in lead if k in values}}
    ordered = {**first, **{k: v for k, v in values.items() if k not in first}}
    words = decision.words if decision else "no verdict"
    tests = [TEST_WORDS.get(t, t) for t in str(values.get("decided_by") or "").split(",") if t]
    about = (f"{_model(group, rows)} on {_scope(group)}: {words}"
             + (f" ({', '.join(tests)})" if tests else "")
             + (f", from {values['n']} answers" if values.get("n") is not None else ""))
    return LogPart(rows, [replace(group, values=ordered)], name=name, dataset=_scope(group),
                   tags=(f"{_scope(group)}: {words}",), about=about,
                   sample_metadata={"verdict": words})


def rephrase_log(group: ResultGroup, rows: Sequence[SampleRow], name: str) -> LogPart:
    """The log of one verdict's questions asked again in another phrasing: how often the
    score changed (`disagreement_rate`, over `n`)."""
    n, rate = (group.values.get(k) for k in REPHRASE_VALUES)
    values: dict[str, ResultValue] = ({"disagreement_rate": rate, "n": n}
                                      if n is not None else {})
    changed = (f"; the score changed for {round(float(rate) * int(n))}"
               if isinstance(rate, float) and isinstance(n, int) else "")
    about = (f"{_model(group, rows)} on {_scope(group)}: {len(rows)} questions asked again in "
             f"another phrasing, apart from the verdict{changed}")
    return LogPart(rows, [replace(group, values=values)] if values else [], name=name,
                   task="certify-rephrase", dataset=_scope(group),
                   tags=(f"{_scope(group)}: rephrase check",), about=about)
