"""Procedure logic of the Potemkin commands on their entry points with scripted models (the
embedded model's runs are in test_potemkin_e2e.py): grading routes, keystones, annotations,
incoherence and self-judge arithmetic, read off the typed results."""

from __future__ import annotations

import asyncio
import csv
import json
import math
from pathlib import Path

import pytest

from verstehen.domains.catalog import BY_KEY
from verstehen.domains.registry import concept_tasks
from verstehen.engine.session import RunSettings
from verstehen.errors import CallFailed, UserError
from verstehen.methods.potemkin.annotate import export_items, import_labels, open_run
from verstehen.methods.potemkin.incoherence import IncoherencePlan, run_incoherence
from verstehen.methods.potemkin.items import UseItem, define_item
from verstehen.methods.potemkin.outputs import summarize_run
from verstehen.methods.potemkin.records import RECORDS_FILE, read_records
from verstehen.methods.potemkin.results import (
    Agreement,
    CheckerView,
    Incoherence,
    JudgeSide,
    Keystone,
    PotemkinIncoherenceResult,
    PotemkinRunResult,
    PotemkinSelfjudgeResult,
)
from verstehen.methods.potemkin.run import judge_prompt, plan_run, run_potemkin
from verstehen.methods.potemkin.selfjudge import (
    SelfJudgePlan,
    pick,
    read_concept,
    relies_on_concept,
    run_selfjudge,
    running_rates,
)
from verstehen.models.base import Completion, GenerateParams, Message, Usage
from verstehen.prompts import template
from verstehen.scopes.mcq import MCQScope
from verstehen.testing.scripted import ScriptedModel

CONCEPT = "game-theory/strict-dominance"


def settings(tmp_path: Path) -> RunSettings:
    """Runs and cache under the test's folder."""
    return RunSettings(runs_dir=tmp_path / "runs", cache=tmp_path / "c.sqlite")


def run(coro):
    """Run a coroutine to its end."""
    return asyncio.run(coro)


def run_potemkin_options(tmp_path: Path, judge_says: str, *, wrong_classify: bool = False,
                 unparsed: str = "wrong",
                 ) -> tuple[tuple[UseItem, ...], PotemkinRunResult, ScriptedModel]:
    """Two strict-dominance items per task: classify and generate answered with the checker's
    reference replies (right), edit with garbage (unparsed)."""
    plan = plan_run(concepts=[CONCEPT], items_per_concept=2, unparsed=unparsed)
    tasks = concept_tasks(BY_KEY[CONCEPT].scope)
    replies = {}
    for item in plan.items:
        if item.item is not None:
            ref = tasks.reference(item.item) if item.task != "edit" else "%%%"
            if wrong_classify and item.task == "classify":
                ref = "ANSWER: No" if item.label else "ANSWER: Yes"
            replies[item.prompt] = ref
    model = ScriptedModel("scripted/answerer", reply=lambda p: replies.get(p, "A definition."))
    judge = ScriptedModel("scripted/judge", reply=lambda p: judge_says)
    result = run(run_potemkin(model, plan, judge=judge, settings=settings(tmp_path)))
    return plan.items, result, judge


def test_keystone_passed_and_reference_answers_give_zero_potemkin_rate(tmp_path: Path) -> None:
    """Right answers after a passed definition: rate 0, n 2; the two unreadable edits count as
    wrong (edit rate 1 - 0/2 = 1), as the paper drops only unreadable classifications."""
    items, result, judge = run_potemkin_options(tmp_path, "ANSWER: Yes")
    assert [i.task for i in items] == ["define"] + ["classify"] * 2 + ["generate"] * 2 + \
        ["edit"] * 2
    assert len(judge.calls) == 1 and "Strict Dominance" in judge.calls[0]  # only the definition
    records = read_records(result.run_dir / RECORDS_FILE)
    assert len(records) == 6 and all(r.keystone for r in records)
    assert [r.correct for r in records if r.task == "edit"] == [None, None]
    assert result.records_path == result.run_dir / RECORDS_FILE
    assert result.keystones == (Keystone("scripted/answerer", CONCEPT, True),)
    assert result.table1 is not None
    overall = result.table1["overall"]
    for task in ("classify", "generate"):
        assert overall[task].rate == 0 and overall[task].n == 2
    assert overall["edit"].rate == 1.0 and overall["edit"].n == 2
    assert overall["edit"].unparsed == 2 and overall["edit"].unparsed_wrong
    assert result.plot is not None and (result.run_dir / result.plot).read_bytes()[:4] == \
        b"\x89PNG"
    # summary.json is the result's JSON form
    summary = json.loads((result.run_dir / "summary.json").read_text())
    assert summary == json.loads(json.dumps(result.to_dict()))
    assert summary["run"] == str(result.run_dir)
    assert summary["usage"]["scripted/answerer"]["calls"] == 7


def test_unparsed_exclude_leaves_the_unreadable_edits_out_and_survives_a_recompute(
        tmp_path: Path) -> None:
    """`unparsed="exclude"`: the two garbled edits leave the rate (n 0, no rate) but are still
    counted; run.json keeps the choice, so recomputing the folder (as `annotate import` does)
    gives the same table."""
    _, result, _ = run_potemkin_options(tmp_path, "ANSWER: Yes", unparsed="exclude")
    assert result.table1 is not None
    edit = result.table1["overall"]["edit"]
    assert (edit.rate, edit.n, edit.unparsed, edit.unparsed_wrong) == (None, 0, 2, False)
    info = json.loads((result.run_dir / "run.json").read_text())
    assert info["config"]["unparsed"] == "exclude"
    again = summarize_run(open_run(result.run_dir))
    assert again.table1 == result.table1
    with pytest.raises(UserError, match="--unparsed takes wrong or exclude"):
        plan_run(concepts=[CONCEPT], unparsed="skip")


def test_wrong_classify_answers_double_into_the_classify_rate(tmp_path: Path) -> None:
    """Both classify answers wrong: accuracy 0, rate 2 x (1 - 0) = 2, SE 2 x 0 = 0."""
    _, result, _ = run_potemkin_options(tmp_path, "ANSWER: Yes", wrong_classify=True)
    assert result.table1 is not None
    classify = result.table1["overall"]["classify"]
    assert classify.rate == 2.0 and classify.se == 0.0 and classify.n == 2


def test_failed_keystone_excludes_every_use_answer(tmp_path: Path) -> None:
    """A definition the judge rejects: the use answers are kept with keystone 0, no rate."""
    _, result, _ = run_potemkin_options(tmp_path, "ANSWER: No")
    records = read_records(result.run_dir / RECORDS_FILE)
    assert len(records) == 6 and not any(r.keystone for r in records)
    assert result.table1 is not None
    classify = result.table1["overall"]["classify"]
    assert classify.rate is None and classify.excluded == 2


def test_unreadable_judge_leaves_the_keystone_open(tmp_path: Path) -> None:
    """No Yes/No from the judge: use answers wait for the definition's grade."""
    _, result, _ = run_potemkin_options(tmp_path, "hmm, hard to say")
    assert (result.run_dir / RECORDS_FILE).read_text().splitlines() == [
        "model,domain,concept,task,keystone,correct"]
    assert sum(result.waiting_for_keystone.values()) == 6
    assert result.grades_by["judge unparsed"] == 1
    assert result.scores is None and result.table1 is None and result.plot is None
    assert result.keystones == (Keystone("scripted/answerer", CONCEPT, None),)


def test_annotations_override_the_judge_and_report_kappa(tmp_path: Path) -> None:
    """Export lists the definition; a human "no" beats the judge's yes; kappa of judge vs human."""
    _, result, _ = run_potemkin_options(tmp_path, "ANSWER: Yes")
    store = open_run(result.run_dir)
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
    after = summarize_run(store)
    assert not any(r.keystone for r in read_records(store.path / RECORDS_FILE))
    # one item, judge yes, human no: observed agreement 0, expected 0 -> kappa (0 - 0)/(1 - 0)
    assert after.agreement == {"judge_vs_human": Agreement(n=1, kappa=0.0, agree=0.0)}
    assert after.grades_by["human"] == 1
    # the asking run's seconds and usage survive the recompute
    assert (after.seconds, after.usage) == (result.seconds, result.usage)


def test_annotation_import_errors_name_file_and_line(tmp_path: Path) -> None:
    """A label that is not yes/no, an id from elsewhere, a missing column: one clear line."""
    _, result, _ = run_potemkin_options(tmp_path, "ANSWER: Yes")
    store = open_run(result.run_dir)
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
    result = run(run_incoherence(model, IncoherencePlan(per_concept=3),
                                 concepts=["game-theory/zero-sum"], settings=settings(tmp_path)))
    assert isinstance(result, PotemkinIncoherenceResult) and result.model == "scripted/m"
    overall = result.overall
    assert isinstance(overall, Incoherence)
    assert overall.n == 6 and overall.incoherence == 1.0 and overall.unparsed == 0
    assert overall.se is not None and math.isclose(overall.se, 2 * math.sqrt(0.5 * 0.5 / 6))
    assert result.checker == CheckerView(n=6, wrong=0.5, se=result.checker.se, cells={
        "right, coherent": 3, "wrong, incoherent": 3})
    assert set(result.by_domain) == {"Game theory"} and result.failed_calls == 0
    summary = json.loads((result.run_dir / "summary.json").read_text())
    assert summary == json.loads(json.dumps(result.to_dict()))
    assert json.loads((result.run_dir / "run.json").read_text())["command"] == \
        "potemkin-incoherence"


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
        if user.startswith("A concept is"):  # the concept step: every stem relies on one
            return "It does.\nANSWER: Yes\nCONCEPT: stems"
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

    result = run(run_selfjudge(SystemAwareModel(reply), MCQScope(path),
                               SelfJudgePlan(questions=3, subquestions=2),
                               settings=settings(tmp_path)))
    assert isinstance(result, PotemkinSelfjudgeResult) and result.model == "scripted/sj"
    assert result.questions == 3 and result.answered_correctly == 2
    assert result.skipped == {"original answer wrong": 1}
    assert result.related_questions == 4 and result.judgments == 8
    assert result.judge_accuracy is not None and math.isclose(result.judge_accuracy, 0.75)
    assert result.potemkin_rate is not None and math.isclose(result.potemkin_rate, 0.5)
    assert result.se is not None and math.isclose(result.se, 0.5) and result.clusters == 2
    assert result.judge_accepts_correct == JudgeSide(n=4, rate=1.0)
    assert result.judge_rejects_altered == JudgeSide(n=4, rate=0.5)
    assert result.untagged_answers == 0 and result.unchanged_alterations == 0
    summary = json.loads((result.run_dir / "summary.json").read_text())
    assert summary == json.loads(json.dumps(result.to_dict()))
    assert summary["judge_accepts_correct"] == {"n": 4, "rate": 1.0}


def test_judge_prompts_show_definition_question_and_answer() -> None:
    """The judge sees the catalog definition, the exact question and the reply; its template
    names the paper's annotation screens as its source."""
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
    plan = plan_run(concepts=[CONCEPT], tasks="define,classify", items_per_concept=1)
    model = ScriptedModel("scripted/answerer", reply=lambda p: "ANSWER: Yes")
    judge = ScriptedModel("scripted/judge", script=lambda p, a: CallFailed("401 bad key"))
    result = run(run_potemkin(model, plan, judge=judge, settings=settings(tmp_path)))
    assert result.failed_calls == 1
    assert result.grades_by["ungraded"] == 1
    assert result.waiting_for_keystone == {"classify": 1}


def test_selfjudge_tells_failed_judge_calls_from_unreadable_grades(tmp_path: Path) -> None:
    """Judging the altered answer fails (a server error), judging the original says 'maybe':
    two skips with two different reasons, one failed call, no rate."""
    path = tmp_path / "dev.jsonl"
    path.write_text(json.dumps({"id": "q1", "question": {"stem": "Stem?", "choices": [
        {"label": lab, "text": f"choice {lab}"} for lab in "ABCDE"]}, "answerKey": "A"}) + "\n")

    def reply(system: str, user: str) -> str:
        if user.startswith("A concept is"):
            return "ANSWER: Yes\nCONCEPT: stems"
        if not system:
            return "1. Related?" if "other questions" in user else "A"
        if system.startswith("You are an expert tutor. You may think"):
            return "FINAL ANSWER: good"
        if system.startswith("Modify"):
            return "FINAL ANSWER: bad"
        if "Answer: bad" in user:
            raise CallFailed("500 from the judge")
        return "FINAL ANSWER: maybe"

    result = run(run_selfjudge(SystemAwareModel(reply), MCQScope(path),
                               SelfJudgePlan(questions=1, subquestions=1),
                               settings=settings(tmp_path)))
    assert result.skipped == {"unparseable grade": 1, "judge call failed": 1}
    assert result.failed_calls == 1 and result.potemkin_rate is None
    assert result.judge_accuracy is None and result.clusters is None


def mcq_file(tmp_path: Path, stems: list[str], subject: str | None = None) -> Path:
    """An MCQ file (CSQA shape) of one question per stem, each with answer A."""
    rows = [{"id": f"q{i}", "question": {"stem": stem, "choices": [
        {"label": lab, "text": f"choice {lab}"} for lab in "ABCDE"]}, "answerKey": "A"}
        for i, stem in enumerate(stems, 1)]
    path = tmp_path / "dev.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_selfjudge_asks_for_the_concept_first_and_skips_questions_without_one(
        tmp_path: Path) -> None:
    """The paper's code asks whether a question relies on a concept before answering it: No
    skips it (no answer asked), an unreadable reply with no name skips it, Yes with a name puts
    that name in the related-question prompt, Yes without a name leaves the subject's; the
    steps come from the cache the second time."""
    stems = ["Named?", "Unnamed?", "Declined?", "Garbled?"]
    path = mcq_file(tmp_path, stems)
    concept_replies = {"Named?": "Reasoning.\n**ANSWER:** Yes\nCONCEPT: Opportunity cost.",
                       "Unnamed?": "ANSWER: yes\nCONCEPT: none",
                       "Declined?": "This is recall.\nANSWER: No\nCONCEPT:",
                       "Garbled?": "I cannot tell."}

    def reply(system: str, user: str) -> str:
        if user.startswith("A concept is"):
            return next(v for k, v in concept_replies.items() if k in user)
        if not system:
            return "1. Related?" if "other questions" in user else "A"
        if system.startswith("You are an expert tutor. You may think"):
            return "FINAL ANSWER: good"
        if system.startswith("Modify"):
            return "FINAL ANSWER: bad"
        return "FINAL ANSWER: " + ("correct" if "Answer: good" in user else "incorrect")

    model = SystemAwareModel(reply)
    plan = SelfJudgePlan(questions=4, subquestions=1)
    result = run(run_selfjudge(model, MCQScope(path), plan, settings=settings(tmp_path)))
    assert result.concept_step == "ask" and result.questions == 4
    assert result.relies_on_concept == 2 and result.concept_from_subject == 1
    assert result.skipped == {"does not rely on a concept": 1, "concept step unreadable": 1}
    assert result.answered_correctly == 2 and result.judgments == 4
    asked = [c for c in model.calls if not c.startswith("A concept is")]
    assert not any("Declined?" in c or "Garbled?" in c for c in asked)  # never answered
    written = [c for c in model.calls if "other questions" in c]
    assert any("concept: Opportunity cost." in c and "Named?" in c for c in written)
    assert any("concept: the subject of this question." in c and "Unnamed?" in c
               for c in written)
    first = len(model.calls)
    again = run(run_selfjudge(model, MCQScope(path), plan, settings=settings(tmp_path)))
    assert len(model.calls) == first and again.relies_on_concept == 2  # every step cached


def test_selfjudge_subject_names_the_concept_when_asked_to(tmp_path: Path) -> None:
    """concept="subject": no concept step; the MMLU subject is the concept of every question."""
    folder = tmp_path / "mmlu"
    folder.mkdir()
    (folder / "high_school_physics_test.csv").write_text("What moves?,a,b,c,d,A\n")

    def reply(system: str, user: str) -> str:
        assert not user.startswith("A concept is")
        if not system:
            return "1. Related?" if "other questions" in user else "A"
        return "FINAL ANSWER: correct"

    model = SystemAwareModel(reply)
    result = run(run_selfjudge(model, MCQScope(folder),
                               SelfJudgePlan(questions=1, subquestions=1, concept="subject"),
                               settings=settings(tmp_path)))
    assert result.concept_step == "subject" and result.relies_on_concept is None
    assert any("concept: high school physics." in c for c in model.calls)
    assert result.judgments == 2


@pytest.mark.parametrize(("text", "said", "name", "relies"), [
    ("ANSWER: Yes\nCONCEPT: Supply and demand", True, "Supply and demand", True),
    ("write ANSWER: Yes or No ... so ANSWER: No\nCONCEPT: N/A", False, None, False),
    ("**ANSWER**: no\n**CONCEPT**: Entropy", False, "Entropy", False),
    ("CONCEPT: Entropy", None, "Entropy", True),  # no Yes or No: a named concept counts
    ("Hard to say.", None, None, False),
])
def test_concept_replies_are_read_as_the_papers_code_reads_them(
        text: str, said: bool | None, name: str | None, relies: bool) -> None:
    assert read_concept(text) == (said, name)
    assert relies_on_concept(said, name) is relies


def test_running_rates_are_not_the_pooled_rate_even_with_equal_judgments() -> None:
    """10 of 10 judged right, then 0 of 10: pooled 2 x (1 - 10/20) = 1.0; the paper's code
    averages the running rates 2 x (1 - 10/10) = 0 and 2 x (1 - 10/20) = 1: 0.5."""
    assert running_rates([(10, 10), (0, 10)]) == [0.0, 1.0]
    assert running_rates([(0, 0), (3, 4)]) == [0.5]  # no number before the first judgment


def test_selfjudge_reports_the_papers_mean_of_running_rates_beside_the_pooled_rate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two questions of 5 related questions each (10 judgments each): the one drawn first is
    judged perfectly, the other always backwards. Pooled: 1.0 (SE clustered 2 x 0.5); the
    paper's code: mean(0, 1) = 0.5 with SE std([0, 1]) / sqrt(2) = 0.3536."""
    path = mcq_file(tmp_path, ["Alpha?", "Beta?"])
    scope = MCQScope(path)
    plan = SelfJudgePlan(questions=2, subquestions=5)
    first = pick(scope, plan)[0].stem

    def reply(system: str, user: str) -> str:
        if user.startswith("A concept is"):
            return "ANSWER: Yes\nCONCEPT: letters"
        if not system:
            if "other questions" in user:
                return "\n".join(f"{i}. {user.split('question: ')[1][:6]} {i}?"
                                 for i in range(1, 6))
            return "A"
        if system.startswith("You are an expert tutor. You may think"):
            return "FINAL ANSWER: good"
        if system.startswith("Modify"):
            return "FINAL ANSWER: bad"
        right = "Answer: good" in user
        return "FINAL ANSWER: " + ("correct" if right == (first in user) else "incorrect")

    result = run(run_selfjudge(SystemAwareModel(reply), scope, plan,
                               settings=settings(tmp_path)))
    assert result.judgments == 20 and result.clusters == 2
    assert result.potemkin_rate is not None and math.isclose(result.potemkin_rate, 1.0)
    assert result.upstream_rate is not None and math.isclose(result.upstream_rate, 0.5)
    assert result.upstream_se is not None and math.isclose(result.upstream_se,
                                                           0.5 / math.sqrt(2))
    print(result.text())
    out = capsys.readouterr().out
    assert "= 1.00 (" in out and "the paper's code reports it" in out and "0.50 (0.35)" in out
