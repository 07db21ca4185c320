"""A certification run folder as rows (one per question asked) and results (one per scope), for
`verstehen export` and `records_frame` (`verstehen.export`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from verstehen.methods.certification.log_parts import certify_logs
from verstehen.methods.certification.records import ExplanationRecord, read_answers
from verstehen.methods.certification.results import CertifyResult
from verstehen.methods.certification.scope_result import ScopeResult
from verstehen.methods.certification.verdict import Verdict
from verstehen.rows import (
    ResultGroup,
    ResultValue,
    RunRows,
    SampleRow,
    as_text,
    run_records,
)


def certify_rows(run_dir: Path) -> list[SampleRow]:
    """Every answer, rephrased answer and program asked for, in the order asked (each row's
    id starts with its model's name in a run of several models, as ids are unique).

    An answer's score is its grade (1 right, 0 ridiculous), its grade word the outcome; a
    program's score is the mean score of the questions it answered. Metadata columns: `kind`
    (answer, rephrase, explanation), `question_id`, `family`, `phrasing`, `parsed`
    (the answer read from the reply, as JSON), `reason` (why it was graded so), `truncated`,
    `cached`, `error`; a program's `offered`, `program_ok`, `questions`, `ridiculous`.
    """
    records = run_records(run_dir)
    rows = [_answer_row(record) for record in read_answers(records)]
    for record in records:
        if record.get("kind") == "explanation":
            rows.append(_program_row(cast(ExplanationRecord, record)))
    if len({row.model for row in rows}) > 1:
        rows = [replace(row, id=f"{row.model}/{row.id}") for row in rows]
    return rows


def _answer_row(record: Any) -> SampleRow:
    """One answer or rephrase record as a row."""
    kind = record["kind"]
    return SampleRow(
        id=f"{record['scope']}/{kind}/{record['index']}", model=record["model"],
        scope=record["scope"], input=record["prompt"], reply=record["text"],
        expected=as_text(record["expected"]), score=record["score"], grade=record["outcome"],
        metadata={"kind": kind, "question_id": record["question_id"],
                  "family": record["family"], "phrasing": record["phrasing"],
                  "parsed": as_text(record["parsed"]), "reason": record["reason"],
                  "truncated": record["truncated"], "cached": record["cached"],
                  "error": record["error"]})


def _program_row(record: ExplanationRecord) -> SampleRow:
    """One family's program (Procedure 5.1) as a row."""
    ok = record.get("program_ok")
    grade = ("not offered" if not record["offered"] else
             "program ran" if ok else "program failed")
    return SampleRow(
        id=f"{record['scope']}/explanation/{record['family']}", model=record["model"],
        scope=record["scope"], input=record["prompt"], reply=record["text"], expected=None,
        score=record.get("mean_score"), grade=grade,
        metadata={"kind": "explanation", "family": record["family"],
                  "reason": record["reason"], "error": record["error"],
                  "offered": record["offered"], "program_ok": ok,
                  "questions": record.get("questions"), "ridiculous": record.get("ridiculous")})


def verdict_values(verdict: Verdict | None) -> dict[str, ResultValue]:
    """A verdict's decision (the enum's value; None: no verdict), n, observed rates and the
    bounds its tests compared."""
    if verdict is None:
        return {"decision": None}
    return {"decision": verdict.decision.value, "n": verdict.n,
            "mean_score": verdict.mean_score, "ridiculous_rate": verdict.ridiculous_rate,
            "score_lower": verdict.score_lower, "score_upper": verdict.score_upper,
            "ridiculous_lower": verdict.ridiculous_lower,
            "ridiculous_upper": verdict.ridiculous_upper, "pg": verdict.pg,
            "rid": verdict.rid, "delta": verdict.delta,
            "decided_by": ",".join(verdict.decided_by)}


def scope_values(scope: ScopeResult) -> dict[str, ResultValue]:
    """A scope's verdict with the questions asked, the failed calls and the rephrase check."""
    values = {**verdict_values(scope.verdict), "asked": scope.asked,
              "failed_calls": scope.failed_calls}
    if scope.rephrase is not None:
        values.update(rephrase_n=scope.rephrase.n,
                      rephrase_disagreement_rate=scope.rephrase.rate)
    return values


def certify_results(result: CertifyResult) -> list[ResultGroup]:
    """One group per scope, named by the scope (`MODEL/SCOPE` in a run of several models):
    the verdict's decision, `n`, `mean_score`, `ridiculous_rate`, the four bounds, PG, RID,
    delta, `asked`, `failed_calls`, and the rephrase check's `rephrase_n` and
    `rephrase_disagreement_rate`."""
    several = len(result.model_names) > 1
    return [ResultGroup(f"{result.model_of(scope)}/{scope.scope}" if several else scope.scope,
                        result.model_of(scope), scope.scope, scope_values(scope))
            for scope in result.scopes]


CERTIFY_ROWS = RunRows(rows=certify_rows, results=certify_results, logs=certify_logs)
