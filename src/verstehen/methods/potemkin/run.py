"""The Potemkin benchmark (Mancoridis et al., ICML 2025, section 3): define, then use.

Each concept's definition is the keystone; classify, generate and edit answers are graded by the
concept's checker, the benchmark's labels, a judge model or people. `summarize_run` turns a run
folder (answers, judge verdicts, imported human labels) into the standard records file and the
paper's tables, so importing labels later only recomputes.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

from verstehen.domains.catalog import BY_KEY, DOMAINS
from verstehen.engine.runner import Runner
from verstehen.engine.store import RunStore
from verstehen.methods.potemkin.items import UseItem
from verstehen.methods.potemkin.records import UseRecord, write_records
from verstehen.methods.potemkin.stats import check_keystones, cohen_kappa, score_summary
from verstehen.models.base import GenerateParams, Model, user
from verstehen.parse import parse_yes_no
from verstehen.prompts import prompt

RECORDS_FILE = "potemkin-records.csv"
ANNOTATIONS_FILE = "annotations.jsonl"
PLOT_FILE = "keystone-expansion.png"
JUDGE_TOKENS = 64


def judge_prompt(item: UseItem, response: str) -> str:
    """The judge's prompt: the concept's definition, the question and the model's answer."""
    c = item.concept
    name = "potemkin/judge_define" if item.task == "define" else "potemkin/judge_use"
    return prompt(name, domain=DOMAINS[c.domain].lower(), name=c.name, definition=c.definition,
                  question=item.prompt, response=response.strip())


class PotemkinAsker:
    """Asks a run's items, grades what code can grade, asks the judge for the rest."""

    def __init__(self, runner: Runner, model: Model, judge: Model | None, store: RunStore,
                 *, seed: int, max_tokens: int | None) -> None:
        self.runner, self.model, self.judge, self.store = runner, model, judge, store
        self.seed, self.cap = seed, max_tokens

    def _params(self, tokens: int) -> GenerateParams:
        return GenerateParams(temperature=0.0, seed=self.seed,
                              max_tokens=min(tokens, self.cap) if self.cap else tokens)

    async def ask(self, item: UseItem) -> None:
        """Answer, grade and (when the item needs it and a judge is set) judge one item."""
        result = await self.runner.generate(self.model, user(item.prompt),
                                            self._params(item.max_tokens))
        record: dict[str, Any] = {
            "kind": "answer", "id": item.id, "model": self.model.name,
            "concept": item.concept.key, "domain": item.concept.domain, "task": item.task,
            "source": item.source, "grading": item.grading, "prompt": item.prompt,
            "label": item.label, "text": None, "correct": None, "outcome": None, "reason": None,
            "cached": result.cached, "error": result.error,
        }
        if result.ok:
            record["text"] = result.value.text
            record.update(grade(item, result.value.text))
        self.store.append(record)
        if result.ok and item.grading == "judge" and self.judge is not None:
            await self._judge(item, result.value.text)

    async def _judge(self, item: UseItem, response: str) -> None:
        text = judge_prompt(item, response)
        result = await self.runner.generate(self.judge, user(text), self._params(JUDGE_TOKENS))
        verdict = parse_yes_no(result.value.text) if result.ok else None
        self.store.append({
            "kind": "judge", "id": item.id, "model": self.model.name, "judge": self.judge.name,
            "prompt": text, "text": result.value.text if result.ok else None,
            "verdict": verdict, "reason": None if verdict is not None or not result.ok
            else "no Yes/No answer found in the judge's reply",
            "cached": result.cached, "error": result.error,
        })


def grade(item: UseItem, reply: str) -> dict[str, Any]:
    """correct/outcome/reason of a reply that code can grade; judge items stay ungraded."""
    if item.grading == "judge":
        return {"outcome": "to judge"}
    if item.grading == "label":
        from verstehen.domains.base import Item, grade_yes_no

        graded = grade_yes_no(Item("classify", item.label), reply)
    else:
        from verstehen.domains.registry import concept_tasks

        assert item.item is not None and item.concept.scope is not None
        tasks = concept_tasks(item.concept.scope)
        assert tasks is not None
        graded = tasks.grade(item.item, reply)
    correct = None if graded.outcome == "unparsed" else graded.score == 1.0
    return {"correct": correct, "outcome": graded.outcome, "reason": graded.reason}


async def run_potemkin(runner: Runner, model: Model, judge: Model | None,
                       items: list[UseItem], store: RunStore, *, seed: int,
                       max_tokens: int | None, keystone_asked: bool) -> dict[str, Any]:
    """Ask every item (answers already cached cost nothing) and summarize the run."""
    asker = PotemkinAsker(runner, model, judge, store, seed=seed, max_tokens=max_tokens)
    judged = sum(item.grading == "judge" for item in items) if judge is not None else 0
    runner.progress.add_total(len(items) + judged)
    await asyncio.gather(*(asker.ask(item) for item in items))
    return summarize_run(store, keystone_asked=keystone_asked)


# ---------------------------------------------------------------- from a run folder to tables

def read_annotations(store: RunStore) -> dict[str, bool]:
    """Imported human labels by item id."""
    path = store.path / ANNOTATIONS_FILE
    if not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return {row["id"]: row["label"] for row in rows}


def latest(store: RunStore) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The last answer and the last judge record per item id."""
    answers: dict[str, dict[str, Any]] = {}
    judges: dict[str, dict[str, Any]] = {}
    for record in store.records():
        (answers if record["kind"] == "answer" else judges)[record["id"]] = record
    return answers, judges


def final_grade(answer: dict[str, Any], judge: dict[str, Any] | None,
                human: bool | None) -> tuple[bool | None, str]:
    """The grade an answer counts with, and who gave it (people beat the judge model)."""
    if answer["grading"] != "judge":
        return answer["correct"], answer["grading"] if answer["outcome"] != "unparsed" \
            else "unparsed"
    if human is not None:
        return human, "human"
    if judge is not None and judge["verdict"] is not None:
        return judge["verdict"], "judge"
    if judge is not None and judge["error"] is None:
        return None, "judge unparsed"
    return None, "ungraded"


def summarize_run(store: RunStore, *, keystone_asked: bool = True) -> dict[str, Any]:
    """Write potemkin-records.csv, the plot and summary.json of a run folder; return the summary."""
    answers, judges = latest(store)
    humans = read_annotations(store)
    failed = sum(r["error"] is not None for r in [*answers.values(), *judges.values()])
    grades: dict[str, tuple[bool | None, str]] = {}
    for item_id, answer in answers.items():
        if answer["error"] is None:
            grades[item_id] = final_grade(answer, judges.get(item_id), humans.get(item_id))
    keystones = _keystones(answers, grades, keystone_asked)
    records, no_keystone = [], Counter()
    for item_id, answer in answers.items():
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
    write_records(store.path / RECORDS_FILE, records)
    summary: dict[str, Any] = {"run": str(store.path), "records_file": RECORDS_FILE}
    if records:
        check_keystones(records)
        summary |= score_summary(records)
        _plot(store.path, records, summary)
    summary |= {
        "keystone_asked": keystone_asked,
        "keystones": [{"model": m, "concept": c, "keystone": k}
                      for (m, c), k in sorted(keystones.items())],
        "grades_by": dict(Counter(by for _, by in grades.values())),
        "waiting_for_keystone": dict(no_keystone),
        "failed_calls": failed,
        "unparsed_reasons": dict(Counter(
            a["reason"] or "unreadable" for a in answers.values()
            if a["outcome"] == "unparsed").most_common(5)),
        "agreement": agreement(answers, judges, humans),
    }
    summary |= _run_facts(store)
    store.write_summary(summary)
    return summary


def _run_facts(store: RunStore) -> dict[str, Any]:
    """Wall seconds and usage of the run that asked, kept when labels are imported later."""
    path = store.path / "summary.json"
    if not path.exists():
        return {}
    before = json.loads(path.read_text(encoding="utf-8"))
    return {k: before[k] for k in ("seconds", "usage") if k in before}


def _keystones(answers: dict[str, dict[str, Any]], grades: dict[str, tuple[bool | None, str]],
               asked: bool) -> dict[tuple[str, str], bool | None]:
    out: dict[tuple[str, str], bool | None] = {}
    for item_id, answer in answers.items():
        key = (answer["model"], answer["concept"])
        if not asked:
            out[key] = True
        elif answer["task"] == "define":
            out[key] = grades.get(item_id, (None, ""))[0]
    return out


def agreement(answers: dict[str, dict[str, Any]], judges: dict[str, dict[str, Any]],
              humans: dict[str, bool]) -> dict[str, Any]:
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
    out = {}
    for name, both in pairs.items():
        if both:
            a, b = [x for x, _ in both], [y for _, y in both]
            out[name] = {"n": len(both), "kappa": cohen_kappa(a, b),
                         "agree": sum(x == y for x, y in both) / len(both)}
    return out


def _plot(folder: Path, records: list[UseRecord], summary: dict[str, Any]) -> None:
    from verstehen.methods.potemkin.report import plot_expansion
    from verstehen.methods.potemkin.stats import keystone_expansion

    plot_expansion(keystone_expansion(records), folder / PLOT_FILE)
    summary["plot"] = PLOT_FILE

