"""Shared-imagination run folders as rows (one per question asked) and results, for `verstehen
export` and `records_frame` (`verstehen.export`): `imagine generate` and `imagine answer`."""

from __future__ import annotations

from pathlib import Path

from verstehen.engine.store import RunStore
from verstehen.methods.imagination.records import (
    AnswerRecord,
    FictionRecord,
    read_answer_run,
    read_question_run,
)
from verstehen.methods.imagination.results import ImagineAnswerResult, ImagineGenerateResult
from verstehen.rows import ResultGroup, RunRows, SampleRow

LETTERS = "ABCDE"


def generate_rows(run_dir: Path) -> list[SampleRow]:
    """Every reply of the question model: the input names what was asked for (its prompt is
    not kept), the expected answer is the letter it designated, no score, no scope (the topic
    is a column of its own), the grade word its status (ok, dropped, error). Metadata
    columns: `question_id`, `qtype` (DQ, CQ,
    SQ), `content` (knowledge, story), `topic`, `index`, `position`, `slot`, `try`, `stem`,
    `choices` (as JSON), `reason` (why dropped, or the call's error), `context` (the
    paragraph a context question was asked about)."""
    rows = []
    for line, record in enumerate(read_question_run(RunStore.existing(Path(run_dir)))):
        answer, choices = record["answer"], record["choices"]
        context = record["context"]
        rows.append(SampleRow(
            id=f"q{line}", model=record["qm"], scope=None,
            input=f"a {record['qtype']} question ({record['content']}) on {record['topic']}",
            reply=record["reply"], expected=None if answer is None else LETTERS[answer],
            score=None, grade=record["status"],
            metadata={"question_id": record["id"], "qtype": record["qtype"],
                      "content": record["content"], "topic": record["topic"],
                      "index": record["index"], "position": record["position"],
                      "slot": record.get("slot"), "try": record.get("try"),
                      "stem": record["stem"], "choices": choices, "reason": record["reason"],
                      "context": None if context is None else context["paragraph"]}))
    return rows


def generate_results(result: ImagineGenerateResult) -> list[ResultGroup]:
    """One group per question type (`asked`, `kept`, `slots`, `filled`, `dropped`, `failed`,
    `repeated`), and `kept` (every type's questions kept, `kept`); each of the question
    model, no scope."""
    return [*(ResultGroup(qtype, result.qm, None, {
        "asked": c.asked, "kept": c.kept, "slots": c.slots, "filled": c.filled,
        "dropped": c.dropped, "failed": c.failed, "repeated": c.repeated})
              for qtype, c in result.by_type.items()),
            ResultGroup("kept", result.qm, None, {"kept": result.kept,
                                                  "failed_calls": result.failed_calls})]


def answer_rows(run_dir: Path) -> list[SampleRow]:
    """Every answer of an answer model, and every verdict on a context paragraph. An answer's
    score is its correctness where it answered (1 right, 0 wrong, a judge's score / 100 for
    free answers; None: declined, unreadable or failed), its grade word the outcome (correct,
    wrong, refused, choice_e, unparsed, error); a verdict has no score, its grade word the
    verdict (real, fictional, ...); the model is the answer model, no scope. Metadata
    columns: `kind` (answer, fiction), `question_id`,
    `qm`, `am` (the answer model with its configuration), `method`, `variant`, `qtype`,
    `content`, `topic`, `position`, `chosen`, `correct_rank`, `judge_score`, `error`."""
    rows = []
    for line, record in enumerate(read_answer_run(RunStore.existing(Path(run_dir)))):
        if record["kind"] == "answer":
            rows.append(_answer_row(line, record))
        elif record["kind"] == "fiction":
            rows.append(_fiction_row(line, record))
    return rows


def _answer_row(line: int, record: AnswerRecord) -> SampleRow:
    """One answer record as a row."""
    outcome, judged = record["outcome"], record["score"]
    score = (None if outcome not in ("correct", "wrong") else
             judged / 100.0 if judged is not None else float(outcome == "correct"))
    return SampleRow(
        id=f"a{line}", model=record["am_model"], scope=None, input=record["prompt"] or "",
        reply=record["reply"], expected=record["correct_letter"], score=score, grade=outcome,
        metadata={"kind": "answer", "question_id": record["question_id"], "qm": record["qm"],
                  "am": record["am"], "method": record["method"],
                  "variant": record["variant"], "qtype": record["qtype"],
                  "content": record["content"], "topic": record["topic"],
                  "position": record["position"], "chosen": record["chosen"],
                  "correct_rank": record["correct_rank"], "judge_score": judged,
                  "error": record["error"]})


def _fiction_row(line: int, record: FictionRecord) -> SampleRow:
    """One verdict on a context paragraph as a row."""
    return SampleRow(
        id=f"f{line}", model=record["am"], scope=None, input=record["prompt"],
        reply=record["reply"], expected=None, score=None, grade=record["verdict"],
        metadata={"kind": "fiction", "question_id": record["question_id"], "qm": record["qm"],
                  "am": record["am"], "topic": record["topic"], "error": record["error"]})


def answer_results(result: ImagineAnswerResult) -> list[ResultGroup]:
    """One group per cell of the matrix, `CONTENT/QTYPE/QM/AM` (`n`, `answered`, `declined`,
    `chose_e`, `unparsed`, `kappa`: the mean correctness of the answers given, `kappa_se`,
    `alpha`: the share answered of those answered or declined, `alpha_se`, `e_rate`), and
    one `fiction/QM/AM` per answer model judging context paragraphs (`rate`, `se`,
    `judged`, `unparsed`); each of its answer model (the model of AM's label), no scope."""
    models = {r["am"]: r["am_model"] for r in read_answer_run(RunStore.existing(result.run_dir))
              if r["kind"] == "answer"}
    groups = [ResultGroup(f"{r.content}/{r.qtype}/{r.qm}/{r.am}", models.get(r.am, r.am), None, {
        "n": r.n, "answered": r.answered, "declined": r.declined, "chose_e": r.chose_e,
        "unparsed": r.unparsed, "kappa": r.kappa, "kappa_se": r.kappa_se, "alpha": r.alpha,
        "alpha_se": r.alpha_se, "e_rate": r.e_rate}) for r in result.matrix]
    groups += [ResultGroup(f"fiction/{f.qm}/{f.am}", f.am, None, {
        "rate": f.rate, "se": f.se, "judged": f.judged, "unparsed": f.unparsed})
               for f in result.fiction]
    return groups


GENERATE_ROWS = RunRows(rows=generate_rows, results=generate_results)
ANSWER_ROWS = RunRows(rows=answer_rows, results=answer_results)
