"""A conceptual-consistency run folder as rows (one per question asked: anchor questions and
background facts) and results, for `verstehen export` and `records_frame` (`verstehen.export`)."""

from __future__ import annotations

from pathlib import Path

from verstehen.methods.consistency.records import AnchorRecord, FactRecord, read_records
from verstehen.methods.consistency.results import ConsistencyResult
from verstehen.rows import (
    ResultGroup,
    ResultValue,
    RunRows,
    SampleRow,
    flag_score,
    run_model,
    run_records,
)


def consistency_rows(run_dir: Path) -> list[SampleRow]:
    """Every anchor question, then every background fact, in the order asked. An anchor's
    score is 1 when the chosen label is right, 0 when wrong (None: unanswered); a fact's is 1
    when the model's yes or no matches the fact's truth (positive facts are true), 0 when not
    (None: unanswered); every row's model is the run's, no scope. Metadata columns: `kind`
    (anchor, fact), `method` (likelihood, generation), `concepts` and `facts` (an anchor's,
    as JSON), `relation`, `c1`, `c2`, `positive` (a fact's), `error`."""
    records = read_records(run_records(run_dir))
    model = run_model(run_dir)
    rows = [_anchor_row(r, model) for r in records if r["kind"] == "anchor"]
    rows += [_fact_row(r, model) for r in records if r["kind"] == "fact"]
    return rows


def _anchor_row(record: AnchorRecord, model: str | None) -> SampleRow:
    """One anchor question as a row."""
    correct = record["correct"]
    choices = record.get("choices")
    question = record["stem"] if not choices else "\n".join(
        [record["stem"], *(f"{label}. {text}" for label, text in
                           zip(record.get("labels") or "ABCDE", choices, strict=False))])
    return SampleRow(
        id=f"anchor/{record['id']}", model=model, scope=None, input=question,
        reply=record.get("reply", record["chosen"]), expected=record["answer"],
        score=flag_score(correct), grade=None if correct is None else
        "correct" if correct else "wrong",
        metadata={"kind": "anchor", "method": record["method"], "chosen": record["chosen"],
                  "concepts": record["concepts"], "facts": record["facts"],
                  "relation": None, "c1": None, "c2": None, "positive": None,
                  "error": record["error"]})


def _fact_row(record: FactRecord, model: str | None) -> SampleRow:
    """One background fact as a row."""
    said = record["said_yes"]
    right = None if said is None else said == record["positive"]
    return SampleRow(
        id=f"fact/{record['key']}", model=model, scope=None, input=record["question"],
        reply=None if said is None else "yes" if said else "no",
        expected="yes" if record["positive"] else "no", score=flag_score(right),
        grade=None if right is None else "correct" if right else "wrong",
        metadata={"kind": "fact", "method": record["method"], "chosen": None,
                  "concepts": None, "facts": None, "relation": record["relation"],
                  "c1": record["c1"], "c2": record["c2"], "positive": record["positive"],
                  "error": record["error"]})


def consistency_results(result: ConsistencyResult) -> list[ResultGroup]:
    """`consistency` (the run's: `cc` with `cc_low`, `cc_high`, `s_b`, `s_b_se`, `s_a`,
    `s_a_se`, `base_rate`, `n`, `unanswered`, `no_background`, and the counts `anchors`,
    `facts`, `positive_facts`, `facts_unanswered`), then one `relation/NAME` per relation
    (`cc`, `low`, `high`, `n`, `base_rate`, `background`: its facts' mean score); each of
    the run's model, no scope."""
    model = run_model(result.run_dir)
    c = result.consistency
    overall: dict[str, ResultValue] = {
        "cc": c.cc, "cc_low": c.cc_low, "cc_high": c.cc_high, "s_b": c.s_b,
        "s_b_se": c.s_b_se, "s_a": c.s_a, "s_a_se": c.s_a_se, "base_rate": c.base_rate,
        "n": c.n, "unanswered": c.unanswered, "no_background": c.no_background,
        "anchors": result.anchors, "facts": result.facts,
        "positive_facts": result.positive_facts, "facts_unanswered": result.facts_unanswered}
    groups = [ResultGroup("consistency", model, None, overall)]
    groups += [ResultGroup(f"relation/{name}", model, None, {
        "cc": r.cc.cc, "low": r.cc.low, "high": r.cc.high, "n": r.cc.n,
        "base_rate": r.cc.base_rate, "background": r.background.mean})
        for name, r in result.by_relation.items()]
    return groups


CONSISTENCY_ROWS = RunRows(rows=consistency_rows, results=consistency_results)
