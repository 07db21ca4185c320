"""Potemkin run folders as rows (one per question asked) and results (the paper's rates), for
`verstehen export` and `records_frame` (`verstehen.export`): `potemkin run`, `potemkin
incoherence` and `potemkin selfjudge`."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict, cast

from verstehen.engine.store import RunStore
from verstehen.methods.potemkin.incoherence_rate import Incoherence
from verstehen.methods.potemkin.lines import SELFJUDGE_KINDS, SelfJudgeLine
from verstehen.methods.potemkin.results import (
    PotemkinIncoherenceResult,
    PotemkinRunResult,
    PotemkinSelfjudgeResult,
)
from verstehen.methods.potemkin.stats import OVERALL, PotemkinRate
from verstehen.methods.potemkin.summary import final_grade, latest, read_annotations
from verstehen.results import load_result
from verstehen.rows import (
    ResultGroup,
    ResultValue,
    RunRows,
    SampleRow,
    as_text,
    flag_score,
    run_model,
    run_records,
)


def run_rows(run_dir: Path) -> list[SampleRow]:
    """Every item asked (a definition or a use answer), its last answer, graded as the rates
    count it: the score is the final grade (1 right, 0 wrong; None: unreadable, not graded
    yet, or the call failed), the grade word who gave it (exact, checker, judge, human,
    unparsed, ungraded); the concept's key is the row's scope. Metadata columns: `domain`,
    `task` (define, classify, generate, edit), `source`, `outcome`, `keystone` (whether the
    (model, concept) defined it right; None: not graded), `judge` (the judge model's
    verdict), `reason`, `cached`, `error`.
    """
    store = RunStore.existing(Path(run_dir))
    answers, judges = latest(store)
    humans = read_annotations(store)
    result = load_result(PotemkinRunResult, Path(run_dir))
    keystones = {(k.model, k.concept): k.keystone for k in result.keystones}
    rows = []
    for item_id, answer in answers.items():
        judge = judges.get(item_id)
        score, by = (None, "failed call") if answer["error"] is not None else final_grade(
            answer, judge, humans.get(item_id))
        rows.append(SampleRow(
            id=item_id, model=answer["model"], scope=answer["concept"], input=answer["prompt"],
            reply=answer["text"], expected=as_text(answer["label"]), score=flag_score(score),
            grade=by,
            metadata={"domain": answer["domain"], "task": answer["task"],
                      "source": answer["source"],
                      "outcome": answer["outcome"],
                      "keystone": keystones.get((answer["model"], answer["concept"])),
                      "judge": None if judge is None else judge["verdict"],
                      "reason": answer["reason"], "cached": answer["cached"],
                      "error": answer["error"]}))
    return rows


def rate_values(rate: PotemkinRate) -> dict[str, ResultValue]:
    """A potemkin rate with its SE and the answers counted, unreadable and left out."""
    return {"rate": rate.rate, "se": rate.se, "n": rate.n, "unparsed": rate.unparsed,
            "excluded": rate.excluded, "unparsed_wrong": rate.unparsed_wrong}


def run_results(result: PotemkinRunResult) -> list[ResultGroup]:
    """`keystone/MODEL` (the share of concepts defined right: `rate`, `se`, `passed`,
    `pairs`; MODEL "overall" pools them, its model None), `table1/MODEL/TASK` (the potemkin
    rate: `rate`, `se`, `n`, `unparsed`, `excluded`, `unparsed_wrong`), and `waiting` (use
    answers whose definition is not graded yet, by task) while any are; each pools its
    concepts (scope None)."""
    groups = [ResultGroup(f"keystone/{model}", _asked(model), None, {
        "rate": share.rate, "se": share.se, "passed": share.passed, "pairs": share.pairs})
              for model, share in (result.keystone_rate or {}).items()]
    groups += [ResultGroup(f"table1/{model}/{task}", _asked(model), None, rate_values(rate))
               for model, tasks in (result.table1 or {}).items()
               for task, rate in tasks.items()]
    if result.waiting_for_keystone:
        groups.append(ResultGroup("waiting", None, None, dict(result.waiting_for_keystone)))
    return groups


def _asked(model: str) -> str | None:
    """A model of the tables, None for the row that pools them ("overall")."""
    return None if model == OVERALL else model


def incoherence_rows(run_dir: Path) -> list[SampleRow]:
    """Every example asked for, with the model's own classification of it: the score is 1
    when the two agree (coherent), 0 when they contradict, None when the classification was
    unreadable or a call failed; the expected answer is what was asked for ("instance" or
    "not an instance"), the scope the concept's key. Metadata columns: `domain`, `want`,
    `index`, `classify_prompt`,
    `classify_reply`, `said` (the model's yes or no), `mismatch`, `checker` (whether the
    checker finds it an instance; None: no checker), `check_reason`, `error`."""
    rows = []
    for record in run_records(run_dir):
        if record.get("kind") != "pair":
            continue
        mismatch = record["mismatch"]
        grade = ("failed call" if record["error"] is not None else "unparsed"
                 if mismatch is None else "incoherent" if mismatch else "coherent")
        rows.append(SampleRow(
            id=f"{record['concept']}/{'instance' if record['want'] else 'non-instance'}/"
               f"{record['index']}",
            model=record["model"], scope=record["concept"], input=record["generate_prompt"],
            reply=record["example"], expected="instance" if record["want"] else "not an instance",
            score=None if mismatch is None else float(not mismatch), grade=grade,
            metadata={"domain": record["domain"], "want": record["want"],
                      "index": record["index"],
                      "classify_prompt": record["classify_prompt"],
                      "classify_reply": record["classify_text"], "said": record["said"],
                      "mismatch": mismatch, "checker": record["is_instance"],
                      "check_reason": record["check_reason"], "error": record["error"]}))
    return rows


def incoherence_values(rate: Incoherence) -> dict[str, ResultValue]:
    """An incoherence rate (2 x the mismatch rate), its SE, n and unreadable answers."""
    return {"incoherence": rate.incoherence, "se": rate.se, "n": rate.n,
            "unparsed": rate.unparsed}


def incoherence_results(result: PotemkinIncoherenceResult) -> list[ResultGroup]:
    """`overall` and one group per domain (`incoherence`, `se`, `n`, `unparsed`), and
    `checker` (`n`, `wrong`: the share of examples the checker says miss what was asked,
    `se`); each of the run's model, pooling its concepts (scope None)."""
    model = result.model
    return [ResultGroup("overall", model, None, incoherence_values(result.overall)),
            *(ResultGroup(domain, model, None, incoherence_values(rate))
              for domain, rate in result.by_domain.items()),
            ResultGroup("checker", model, None, {
                "n": result.checker.n, "wrong": result.checker.wrong, "se": result.checker.se})]


def selfjudge_rows(run_dir: Path) -> list[SampleRow]:
    """Every call of the self-judge's steps that has a prompt (the concept step, the original
    question, the related questions written) and every related question answered. The
    original answer's score is 1 when right, 0 when wrong; a related question's is 1 when the
    model judged its own answer right, 0 when not (None: unread); every row's model is the
    run's (it judges itself), no scope. Metadata columns: `kind` (concept, original,
    questions, related), `question_id`, `outcome`, `concept` (the concept the model named),
    `altered`, `judged_altered`, `unchanged`."""
    rows = []
    model = run_model(run_dir)
    for line, raw in enumerate(run_records(run_dir)):
        if raw.get("kind") not in SELFJUDGE_KINDS:
            continue
        record = cast(SelfJudgeLine, raw)
        if record["kind"] == "related":
            judged = record["judged_original"]
            rows.append(SampleRow(
                id=f"{record['question_id']}/related/{record['index']}", model=model,
                scope=None, input=record["question"], reply=record["answer"], expected=None,
                score=flag_score(judged), grade=None if judged is None else
                "judged right" if judged else "judged wrong",
                metadata=_selfjudge_fields(record)))
        elif record["kind"] != "error":
            fields = _selfjudge_fields(record)
            outcome = fields["outcome"]
            rows.append(SampleRow(
                id=f"{record['question_id']}/{record['kind']}/{line}", model=model,
                scope=None, input=record["prompt"], reply=record["text"], expected=None,
                score=None if outcome is None else float(outcome == "correct"),
                grade=outcome, metadata=fields))
    return rows


class SelfJudgeFields(TypedDict):
    """The self-judge metadata columns of a row: each record's kind fills its own."""

    kind: str
    question_id: str
    outcome: str | None  # an original's
    concept: str | None  # a concept step's or the related questions'
    altered: str | None  # a related question's, and the next two
    judged_altered: bool | None
    unchanged: bool | None


def _selfjudge_fields(record: SelfJudgeLine) -> SelfJudgeFields:
    """The self-judge metadata columns of one record (None where its kind has no such key)."""
    fields: SelfJudgeFields = {"kind": record["kind"], "question_id": record["question_id"],
                               "outcome": None, "concept": None, "altered": None,
                               "judged_altered": None, "unchanged": None}
    if record["kind"] == "original":
        fields["outcome"] = record.get("outcome")
    elif record["kind"] == "concept" or record["kind"] == "questions":
        fields["concept"] = record.get("concept")
    elif record["kind"] == "related":
        fields["altered"] = record.get("altered")
        fields["judged_altered"] = record.get("judged_altered")
        fields["unchanged"] = record.get("unchanged")
    return fields


def selfjudge_results(result: PotemkinSelfjudgeResult) -> list[ResultGroup]:
    """One group `selfjudge`, of the run's model: `potemkin_rate`, `se`, `judge_accuracy`,
    `questions`, `answered_correctly`, `related_questions`, `judgments`, `failed_calls`."""
    return [ResultGroup("selfjudge", result.model, None, {
        "potemkin_rate": result.potemkin_rate, "se": result.se,
        "judge_accuracy": result.judge_accuracy, "questions": result.questions,
        "answered_correctly": result.answered_correctly,
        "related_questions": result.related_questions, "judgments": result.judgments,
        "failed_calls": result.failed_calls})]


RUN_ROWS = RunRows(rows=run_rows, results=run_results)
INCOHERENCE_ROWS = RunRows(rows=incoherence_rows, results=incoherence_results)
SELFJUDGE_ROWS = RunRows(rows=selfjudge_rows, results=selfjudge_results)
