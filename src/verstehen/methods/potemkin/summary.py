"""From a `potemkin run` folder (answers, judge verdicts, imported human labels), or from records
files, to the typed results: the paper's tables, the keystones, the agreement. Reads only:
`outputs.py` writes the records file and Figure 4.

Importing labels later only recomputes (`outputs.summarize_run`); the asking run's seconds and
usage are kept from its summary.json.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from verstehen.domains.catalog import BY_KEY, canonical_name
from verstehen.engine.store import RunStore
from verstehen.engine.store.files import parse_line
from verstehen.engine.store.safe_files import exists_unfollowed, read_regular
from verstehen.engine.usage import ModelUsage
from verstehen.errors import UserError
from verstehen.methods.potemkin.lines import (
    AnswerRecord,
    CertifiedAnswer,
    JudgeRecord,
    LabelRecord,
    run_lines,
)
from verstehen.methods.potemkin.records import RECORDS_FILE, read_record_files
from verstehen.methods.potemkin.results import Agreement, Keystone, PotemkinRunResult
from verstehen.methods.potemkin.stats import (
    EXPANSIONS,
    UNPARSED,
    PotemkinScores,
    UseRecord,
    cohen_kappa,
    potemkin_scores,
)

ANNOTATIONS_FILE = "annotations.jsonl"
PLOT_FILE = "keystone-expansion.png"
# outcomes with no answer to grade: none could be read, or the reply was cut off before it ended
UNREADABLE = frozenset({"unparsed", "truncated"})

def read_annotations(store: RunStore) -> dict[str, bool]:
    """Imported human labels by item id."""
    path = store.path / ANNOTATIONS_FILE
    if not exists_unfollowed(path):
        return {}
    labels: dict[str, bool] = {}
    for number, raw in enumerate(read_regular(path).splitlines(), 1):
        if not raw.strip():
            continue
        row, problem = parse_line(raw)
        if row is None or not isinstance(row.get("id"), str) or not isinstance(
                row.get("label"), bool):
            raise UserError(f"{path}:{number}: {problem or 'not a label'}: a line is "
                            '{"id": ITEM, "label": true or false}; fix or remove it, then '
                            "`verstehen annotate import` again")
        label = cast(LabelRecord, row)
        labels[label["id"]] = label["label"]
    return labels


def latest(store: RunStore) -> tuple[dict[str, AnswerRecord], dict[str, JudgeRecord]]:
    """The last answer and the last judge record per item id; concept and domain as verstehen
    names them now (a run written before `literary` became `poetry` reads as one after)."""
    answers: dict[str, AnswerRecord] = {}
    judges: dict[str, JudgeRecord] = {}
    for record in run_lines(store.records()):
        if record["kind"] == "answer":
            record["concept"] = canonical_name(record["concept"])
            record["domain"] = canonical_name(record["domain"])
            answers[record["id"]] = record
        else:
            judges[record["id"]] = record
    return answers, judges


def _natural(text: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key that orders "item-2" before "item-10"."""
    return tuple((0, int(part)) if part.isdigit() else (1, part)
                 for part in re.split(r"(\d+)", text) if part)


def final_grade(answer: AnswerRecord, judge: JudgeRecord | None,
                human: bool | None) -> tuple[bool | None, str]:
    """The grade an answer counts with, and who gave it (people beat the judge model)."""
    if answer["grading"] != "judge":  # unreadable: no answer read, or cut off before it ended
        return answer["correct"], answer["grading"] if answer["outcome"] not in UNREADABLE \
            else "unparsed"
    if human is not None:
        return human, "human"
    if judge is not None and judge["verdict"] is not None:
        return judge["verdict"], "judge"
    if judge is not None and judge["error"] is None:
        return None, "judge unparsed"
    return None, "ungraded"


def summarize(store: RunStore, *, keystone_asked: bool, seconds: float | None,
              usage: dict[str, ModelUsage] | None,
              unparsed: str = "wrong") -> tuple[PotemkinRunResult, list[UseRecord]]:
    """The result of a run folder and its use records (what potemkin-records.csv holds; the
    result names that file and Figure 4's, which `outputs.write_outputs` writes). `unparsed`:
    what an unreadable generate or edit answer counts as, "wrong" or "exclude"."""
    answers, judges = latest(store)
    humans = read_annotations(store)
    failed = sum(r["error"] is not None for r in [*answers.values(), *judges.values()])
    grades: dict[str, tuple[bool | None, str]] = {}
    for item_id, answer in answers.items():
        if answer["error"] is None:
            grades[item_id] = final_grade(answer, judges.get(item_id), humans.get(item_id))
    keystones = _keystones(answers, grades, keystone_asked)
    records: list[UseRecord] = []
    no_keystone: Counter[str] = Counter()
    # in item order, not the order the replies came in (which a batch or a server decides)
    for item_id, answer in sorted(answers.items(), key=lambda pair: _natural(pair[0])):
        if answer["task"] == "define" or item_id not in grades:
            continue
        correct, by = grades[item_id]
        key = (answer["model"], answer["concept"])
        if keystones.get(key) is None:
            no_keystone[answer["task"]] += 1
            continue
        if correct is None and by != "unparsed":
            continue  # not graded yet: neither right, wrong nor unparsed
        records.append(UseRecord(answer["model"], answer["domain"],
                                 BY_KEY[answer["concept"]].name, answer["task"],
                                 bool(keystones[key]), correct))
    scores = _scores(records, unparsed=unparsed) if records else None
    result = PotemkinRunResult(
        run_dir=store.path, records_file=RECORDS_FILE,
        counts=scores.counts if scores else None,
        keystone_rate=scores.keystone_rate if scores else None,
        table1=scores.table1 if scores else None, table6=scores.table6 if scores else None,
        keystone_expansion=scores.keystone_expansion if scores else None,
        plot=PLOT_FILE if scores else None, keystone_asked=keystone_asked,
        keystones=tuple(Keystone(m, c, k) for (m, c), k in sorted(keystones.items())),
        grades_by=dict(Counter(by for _, by in grades.values())),
        waiting_for_keystone=dict(no_keystone), failed_calls=failed,
        unparsed_reasons=dict(Counter(
            a["reason"] or "unreadable" for a in answers.values()
            if a["outcome"] in UNREADABLE).most_common(5)),
        agreement=agreement(answers, judges, humans), seconds=seconds, usage=usage)
    return result, records


def certification_use_records(model: str, domain: str, concept: str,
                               answers: Sequence[CertifiedAnswer]) -> list[UseRecord]:
    """One concept's certification answers as Potemkin use answers given a right definition
    (an audit's potemkin rates): one with no readable answer (unparsed, or cut off at the
    token cap) is unreadable; a failed call is left out."""
    return [UseRecord(model, domain, concept, str(r["family"]), True,
                      None if r["outcome"] in UNREADABLE else r["score"] == 1.0)
            for r in answers if r["error"] is None]


def _scores(records: Sequence[UseRecord], *, above_chance_only: bool = True,
            next_uses: int = 10, unparsed: str = "wrong",
            expansion: str = "paper") -> PotemkinScores:
    """The scores; a (model, concept) with two keystone results is a UserError."""
    try:
        return potemkin_scores(records, above_chance_only=above_chance_only,
                               next_uses=next_uses, unparsed=unparsed, expansion=expansion)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def _keystones(answers: dict[str, AnswerRecord], grades: dict[str, tuple[bool | None, str]],
               asked: bool) -> dict[tuple[str, str], bool | None]:
    out: dict[tuple[str, str], bool | None] = {}
    for item_id, answer in answers.items():
        key = (answer["model"], answer["concept"])
        if not asked:
            out[key] = True
        elif answer["task"] == "define":
            out[key] = grades.get(item_id, (None, ""))[0]
    return out


def agreement(answers: dict[str, AnswerRecord], judges: dict[str, JudgeRecord],
              humans: dict[str, bool]) -> dict[str, Agreement]:
    """Judge model vs people, and checker vs people, on the items both graded (Cohen's kappa)."""
    pairs: dict[str, list[tuple[bool, bool]]] = {"judge_vs_human": [], "checker_vs_human": []}
    for item_id, human in humans.items():
        answer = answers.get(item_id)
        if answer is None:
            continue
        judge = judges.get(item_id)
        if answer["grading"] == "judge" and judge is not None and judge["verdict"] is not None:
            pairs["judge_vs_human"].append((judge["verdict"], human))
        elif answer["grading"] != "judge" and answer["correct"] is not None:
            pairs["checker_vs_human"].append((answer["correct"], human))
    return {name: Agreement(len(both), cohen_kappa([x for x, _ in both], [y for _, y in both]),
                            sum(x == y for x, y in both) / len(both))
            for name, both in pairs.items() if both}


def check_unparsed_flag(unparsed: str) -> None:
    """A UserError unless `unparsed` is "wrong" or "exclude"."""
    if unparsed not in UNPARSED:
        raise UserError(f"--unparsed takes {' or '.join(UNPARSED)}, not {unparsed!r}")


def check_expansion_flag(expansion: str) -> None:
    """A UserError unless `expansion` is "paper" or "all-uses"."""
    if expansion not in EXPANSIONS:
        raise UserError(f"--expansion takes {' or '.join(EXPANSIONS)}, not {expansion!r}")


def scores_of_files(paths: Sequence[Path | str], *, above_chance_only: bool = True,
                    next_uses: int = 10, unparsed: str = "wrong",
                    expansion: str = "paper") -> PotemkinScores:
    """The scores of records files (a run folder stands for its records file). An empty
    `correct` is an unreadable answer: left out of classify rates, and of generate and edit
    rates only with `unparsed="exclude"`. `expansion` picks the keystone expansion's definition
    (`stats.keystone_expansion`)."""
    if next_uses < 1:
        raise UserError(f"--next-uses must be at least 1, not {next_uses}")
    check_unparsed_flag(unparsed)
    check_expansion_flag(expansion)
    return _scores(read_record_files([Path(p) for p in paths]),
                   above_chance_only=above_chance_only, next_uses=next_uses,
                   unparsed=unparsed, expansion=expansion)

