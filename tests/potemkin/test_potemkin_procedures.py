"""Procedure logic of the Potemkin commands with scripted models (the embedded model's runs are
in test_potemkin_e2e.py): grading routes, keystones, annotations, incoherence and self-judge
arithmetic."""

from __future__ import annotations

import asyncio
import csv
import json
import math
from pathlib import Path

import pytest

from verstehen.domains.catalog import BY_KEY
from verstehen.domains.registry import concept_tasks
from verstehen.engine.cache import Cache
from verstehen.engine.runner import Runner
from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.methods.potemkin.annotate import export_items, import_labels
from verstehen.methods.potemkin.incoherence import IncoherencePlan, run_incoherence
from verstehen.methods.potemkin.items import build_items, resolve_concepts
from verstehen.methods.potemkin.records import read_records
from verstehen.methods.potemkin.run import RECORDS_FILE, run_potemkin, summarize_run
from verstehen.methods.potemkin.selfjudge import SelfJudgePlan, run_selfjudge
from verstehen.models.base import Completion, GenerateParams, Message, Usage
from verstehen.scopes.mcq import MCQScope
from verstehen.testing.scripted import ScriptedModel

CONCEPT = "game-theory/strict-dominance"


def new_store(tmp_path: Path, command: str = "potemkin-run") -> RunStore:
    """A fresh run folder."""
    return RunStore.create(tmp_path / "runs", command=command, argv=[], config={}, seed=0,
                           models=[])


def run(coro):
    """Run a coroutine to its end."""
    return asyncio.run(coro)


def potemkin_run(tmp_path: Path, judge_says: str, *, wrong_classify: bool = False):
    """Two strict-dominance items per task: classify and generate answered with the checker's
    reference replies (right), edit with garbage (unparsed)."""
    concepts = resolve_concepts([CONCEPT], [])
    items = build_items(concepts, ("define", "classify", "generate", "edit"),
                        source="generated", per_concept=2, seed=0, benchmark=None)
    tasks = concept_tasks(BY_KEY[CONCEPT].scope)
    replies = {}
    for item in items:
        if item.item is not None:
            ref = tasks.reference(item.item) if item.task != "edit" else "%%%"
            if wrong_classify and item.task == "classify":
                ref = "ANSWER: No" if item.label else "ANSWER: Yes"
            replies[item.prompt] = ref
    model = ScriptedModel("scripted/answerer", reply=lambda p: replies.get(p, "A definition."))
    judge = ScriptedModel("scripted/judge", reply=lambda p: judge_says)
    store = new_store(tmp_path)
    summary = run(run_potemkin(Runner(Cache(tmp_path / "c.sqlite")), model, judge, items, store,
                               seed=0, max_tokens=None, keystone_asked=True))
    return items, store, summary, judge


def test_keystone_passed_and_reference_answers_give_zero_potemkin_rate(tmp_path: Path) -> None:
    """Right answers after a passed definition: rate 0, n 2; unparsed edits counted, no rate."""
    items, store, summary, judge = potemkin_run(tmp_path, "ANSWER: Yes")
    assert [i.task for i in items] == ["define"] + ["classify"] * 2 + ["generate"] * 2 + \
        ["edit"] * 2
    assert len(judge.calls) == 1 and "Strict Dominance" in judge.calls[0]  # only the definition
    records = read_records(store.path / RECORDS_FILE)
    assert len(records) == 6 and all(r.keystone for r in records)
    assert [r.correct for r in records if r.task == "edit"] == [None, None]
    overall = summary["table1"]["overall"]
    for task in ("classify", "generate"):
        assert overall[task]["rate"] == 0 and overall[task]["n"] == 2
    assert overall["edit"]["rate"] is None and overall["edit"]["unparsed"] == 2


def test_wrong_classify_answers_double_into_the_classify_rate(tmp_path: Path) -> None:
    """Both classify answers wrong: accuracy 0, rate 2 x (1 - 0) = 2, SE 2 x 0 = 0."""
    _, _, summary, _ = potemkin_run(tmp_path, "ANSWER: Yes", wrong_classify=True)
    classify = summary["table1"]["overall"]["classify"]
    assert classify["rate"] == 2.0 and classify["se"] == 0.0 and classify["n"] == 2


def test_failed_keystone_excludes_every_use_answer(tmp_path: Path) -> None:
    """A definition the judge rejects: the use answers are kept with keystone 0, no rate."""
    _, store, summary, _ = potemkin_run(tmp_path, "ANSWER: No")
    records = read_records(store.path / RECORDS_FILE)
    assert len(records) == 6 and not any(r.keystone for r in records)
    classify = summary["table1"]["overall"]["classify"]
    assert classify["rate"] is None and classify["excluded"] == 2


def test_unreadable_judge_leaves_the_keystone_open(tmp_path: Path) -> None:
    """No Yes/No from the judge: use answers wait for the definition's grade."""
    _, store, summary, _ = potemkin_run(tmp_path, "hmm, hard to say")
    assert (store.path / RECORDS_FILE).read_text().splitlines() == [
        "model,domain,concept,task,keystone,correct"]
    assert sum(summary["waiting_for_keystone"].values()) == 6
    assert summary["grades_by"]["judge unparsed"] == 1


def test_annotations_override_the_judge_and_report_kappa(tmp_path: Path) -> None:
    """Export lists the definition; a human "no" beats the judge's yes; kappa of judge vs human."""
    _, store, _, _ = potemkin_run(tmp_path, "ANSWER: Yes")
    out = tmp_path / "label.csv"
    assert export_items(store, out) == 1
    assert export_items(store, tmp_path / "all.csv", everything=True) == 7
    rows = list(csv.DictReader(out.open()))
    assert rows[0]["task"] == "define" and rows[0]["response"] == "A definition."
    rows[0]["label"] = "no"
    with out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert import_labels(store, out) == (1, 1)
    summary = summarize_run(store)
    assert not any(r.keystone for r in read_records(store.path / RECORDS_FILE))
    agreement = summary["agreement"]["judge_vs_human"]
    # one item, judge yes, human no: observed agreement 0, expected 0 -> kappa (0 - 0)/(1 - 0)
    assert agreement["n"] == 1 and agreement["agree"] == 0 and agreement["kappa"] == 0.0


def test_annotation_import_errors_name_file_and_line(tmp_path: Path) -> None:
    """A label that is not yes/no, an id from elsewhere, a missing column: one clear line."""
    _, store, _, _ = potemkin_run(tmp_path, "ANSWER: Yes")
    bad = tmp_path / "bad.csv"
    bad.write_text("id,label\ngame-theory/strict-dominance/define,maybe\n")
    with pytest.raises(UserError, match=r"bad\.csv:2: label 'maybe'"):
        import_labels(store, bad)
    bad.write_text("id,label\nsomething/else,yes\n")
    with pytest.raises(UserError, match=r"bad\.csv:2: id 'something/else'"):
        import_labels(store, bad)
    bad.write_text("id,verdict\nx,yes\n")
    with pytest.raises(UserError, match="no column 'label'"):
        import_labels(store, bad)


ZERO_SUM = "<OUTPUT>\n[[(1, -1), (-2, 2)], [(0, 0), (3, -3)]]"


def test_incoherence_is_twice_the_mismatch_rate_and_the_checker_sees_wrong_examples(
        tmp_path: Path) -> None:
    """Always a zero-sum game, always classified Yes: the 'not an instance' half mismatches
    (incoherence 2 x 1/2 = 1) and is wrong by the checker (1/2 of all examples)."""
    model = ScriptedModel(reply=lambda p: "ANSWER: Yes" if p.startswith("Is the following")
                          else ZERO_SUM)
    store = new_store(tmp_path, "potemkin-incoherence")
    summary = run(run_incoherence(Runner(Cache(tmp_path / "c.sqlite")), model,
                                  resolve_concepts(["game-theory/zero-sum"], []), store,
                                  IncoherencePlan(per_concept=3)))
    overall = summary["overall"]
    assert overall["n"] == 6 and overall["incoherence"] == 1.0
    assert math.isclose(overall["se"], 2 * math.sqrt(0.5 * 0.5 / 6))
    checker = summary["checker"]
    assert checker["n"] == 6 and checker["wrong"] == 0.5
    assert checker["cells"] == {"right, coherent": 3, "wrong, incoherent": 3}
    assert set(summary["by_domain"]) == {"Game theory"}


class SystemAwareModel(ScriptedModel):
    """Replies from (system message, last user message)."""

    def __init__(self, reply) -> None:
        super().__init__("scripted/sj")
        self.reply2 = reply

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """Reply by system prompt and user turn."""
        system = messages[0]["content"] if messages[0]["role"] == "system" else ""
        self.calls.append(messages[-1]["content"])
        return Completion(self.reply2(system, messages[-1]["content"]), "stop", Usage(1, 1))


def test_selfjudge_rate_pools_judgments_and_clusters_the_se(tmp_path: Path) -> None:
    """Q1 judged perfectly (4 of 4), Q2 by a yes-sayer (2 of 4), Q3 answered wrong (skipped).
    Pooled accuracy 6/8; cluster SE sqrt(2/1 * ((4-3)^2 + (2-3)^2)) / 8 = 0.25;
    rate 2 x (1 - 0.75) = 0.5 with SE 2 x 0.25 = 0.5."""
    rows = [{"id": f"q{i}", "question": {"stem": f"Stem {i}?", "choices": [
        {"label": lab, "text": f"choice {lab}"} for lab in "ABCDE"]}, "answerKey": "A"}
        for i in (1, 2, 3)]
    path = tmp_path / "dev.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))

    def reply(system: str, user: str) -> str:
        if "Stem 3?" in user and not system:
            return "B"
        if not system and "other questions" in user:
            which = "1" if "Stem 1?" in user else "2"
            return f"1. Related {which}a?\n2. Related {which}b?"
        if not system:
            return "A"
        if system.startswith("You are an expert tutor. You may think"):
            return "Thinking. FINAL ANSWER: good"
        if system.startswith("Modify"):
            return "FINAL ANSWER: bad"
        right = "Answer: good" in user
        if "Related 2" in user:
            return "FINAL ANSWER: correct"
        return "FINAL ANSWER: " + ("correct" if right else "incorrect")

    store = new_store(tmp_path, "potemkin-selfjudge")
    summary = run(run_selfjudge(Runner(Cache(tmp_path / "c.sqlite")), SystemAwareModel(reply),
                                MCQScope(path), store, SelfJudgePlan(questions=3,
                                                                     subquestions=2)))
    assert summary["questions"] == 3 and summary["answered_correctly"] == 2
    assert summary["skipped"] == {"original answer wrong": 1}
    assert summary["related_questions"] == 4 and summary["judgments"] == 8
    assert math.isclose(summary["judge_accuracy"], 0.75)
    assert math.isclose(summary["potemkin_rate"], 0.5) and math.isclose(summary["se"], 0.5)
    assert summary["judge_accepts_correct"] == {"n": 4, "rate": 1.0}
    assert summary["judge_rejects_altered"] == {"n": 4, "rate": 0.5}
    assert summary["untagged_answers"] == 0 and summary["unchanged_alterations"] == 0


def test_judge_prompts_show_definition_question_and_answer() -> None:
    """The judge sees the catalog definition, the exact question and the reply; its template
    names the paper's annotation screens as its source."""
    from verstehen.methods.potemkin.items import UseItem, define_item
    from verstehen.methods.potemkin.run import judge_prompt
    from verstehen.prompts import template

    ikea = BY_KEY["psych/ikea-effect"]
    use = UseItem("x", ikea, "edit", "benchmark", "What line of dialogue ...?", "judge", 64)
    text = judge_prompt(use, "  'I built it myself, so it is priceless.'  ")
    assert ikea.definition in text and "What line of dialogue ...?" in text
    assert "'I built it myself, so it is priceless.'\n" in text
    assert "satisfying all of the criteria in the question" in text and "{" not in text
    define = judge_prompt(define_item(ikea, None), "Liking what you build.")
    assert "define IKEA Effect correctly" in define and ikea.definition in define
    assert define_item(ikea, None).prompt == ("What is IKEA Effect, the concept from "
                                              "psychological biases? Define it.")
    for name in ("judge_use", "judge_define", "selfjudge_questions", "classify"):
        assert "Mancoridis" in Path(__file__).parents[2].joinpath(
            "src/verstehen/methods/potemkin/prompts", f"{name}.txt").read_text()
        assert not template(f"potemkin/{name}").startswith("#")


def test_a_failed_judge_call_counts_as_failed_and_leaves_the_keystone_open(
        tmp_path: Path) -> None:
    """The judge's server fails for good: the run reports one failed call, grades nothing."""
    from verstehen.errors import CallFailed

    concepts = resolve_concepts([CONCEPT], [])
    items = build_items(concepts, ("define", "classify"), source="generated", per_concept=1,
                        seed=0, benchmark=None)
    model = ScriptedModel("scripted/answerer", reply=lambda p: "ANSWER: Yes")
    judge = ScriptedModel("scripted/judge", script=lambda p, a: CallFailed("401 bad key"))
    summary = run(run_potemkin(Runner(Cache(tmp_path / "c.sqlite")), model, judge, items,
                               new_store(tmp_path), seed=0, max_tokens=None,
                               keystone_asked=True))
    assert summary["failed_calls"] == 1
    assert summary["grades_by"]["ungraded"] == 1
    assert summary["waiting_for_keystone"] == {"classify": 1}


def test_selfjudge_tells_failed_judge_calls_from_unreadable_grades(tmp_path: Path) -> None:
    """Judging the altered answer fails (a server error), judging the original says 'maybe':
    two skips with two different reasons, one failed call, no rate."""
    from verstehen.errors import CallFailed

    path = tmp_path / "dev.jsonl"
    path.write_text(json.dumps({"id": "q1", "question": {"stem": "Stem?", "choices": [
        {"label": lab, "text": f"choice {lab}"} for lab in "ABCDE"]}, "answerKey": "A"}) + "\n")

    def reply(system: str, user: str) -> str:
        if not system:
            return "1. Related?" if "other questions" in user else "A"
        if system.startswith("You are an expert tutor. You may think"):
            return "FINAL ANSWER: good"
        if system.startswith("Modify"):
            return "FINAL ANSWER: bad"
        if "Answer: bad" in user:
            raise CallFailed("500 from the judge")
        return "FINAL ANSWER: maybe"

    store = new_store(tmp_path, "potemkin-selfjudge")
    summary = run(run_selfjudge(Runner(Cache(tmp_path / "c.sqlite")), SystemAwareModel(reply),
                                MCQScope(path), store, SelfJudgePlan(questions=1,
                                                                     subquestions=1)))
    assert summary["skipped"] == {"unparseable grade": 1, "judge call failed": 1}
    assert summary["failed_calls"] == 1 and summary["potemkin_rate"] is None
