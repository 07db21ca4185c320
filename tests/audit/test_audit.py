"""The audit on scripted models: the plan and its checks, one folder with every lens, the
per-target lines against the records, labels imported later, two models side by side."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path

import pytest
from certification import by_hand

import verstehen as vs
from verstehen.auditing.example import CONCEPTS, oracle
from verstehen.auditing.plan import (
    CONCEPT_BLOCK,
    AuditPlan,
    make_plan,
    reach,
    reach_warnings,
    resolve_subjects,
)
from verstehen.auditing.results import AuditResult
from verstehen.auditing.run import run_plan
from verstehen.auditing.summary import summarize_audit
from verstehen.domains.catalog import BY_KEY
from verstehen.engine.session import RunSettings
from verstehen.methods.certification.example import calculator
from verstehen.methods.certification.sequential import certify_sequential
from verstehen.methods.certification.verdict import Criterion, Decision
from verstehen.results import from_jsonable
from verstehen.testing.scripted import ScriptedModel

from conftest import Cli, cli_error


def where(tmp_path: Path) -> dict[str, Path]:
    """A private runs folder and cache."""
    return {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}


def records(run: Path) -> list[dict]:
    """The records of a run folder."""
    return [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]


def label_all(csv_path: Path, value: str) -> None:
    """Fill an exported labels file's label column."""
    with csv_path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    with csv_path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "label": value})


def test_subjects_resolve_to_exact_concepts_and_arithmetic() -> None:
    names, targets = resolve_subjects(None)
    assert names == ("game-theory",) and len(targets) == 9
    assert all(t.concept is not None and t.scope.startswith("game-theory/") for t in targets)
    _, targets = resolve_subjects("poetry,arithmetic/small")
    assert [t.key for t in targets] == ["poetry/haiku", "poetry/shakespearean-sonnet",
                                        "poetry/slant-rhyme", "poetry/anapest",
                                        "arithmetic/small"]
    _, every = resolve_subjects(["all", "game-theory/zero-sum"])  # each target once
    assert len(every) == 13 + 2 and len({t.key for t in every}) == len(every)
    assert resolve_subjects("literary/haiku")[1][0].key == "poetry/haiku"


@pytest.mark.parametrize(("subjects", "needle"), [
    ("psych", "graded by a judge"), ("psych/ikea-effect", "graded by a judge"),
    ("chemistry", "unknown subject 'chemistry'"), (" , ", "--subject is empty")])
def test_bad_subjects_are_refused(subjects: str, needle: str) -> None:
    with pytest.raises(vs.UserError, match=needle):
        make_plan(subjects)


def test_default_budget_reaches_every_verdict_and_a_tiny_rid_says_it_cannot() -> None:
    plan = make_plan()
    # the betting test (the default): its bets need 18 right answers to reach 1/δ = 20 and 3
    # wrong ones to reach 2/δ = 40 (by_hand); a concept's looks are 8, 12, 16, 20, ...
    assert (by_hand.perfect_needs(0.8, 0.2, 0.05), by_hand.zero_needs(0.8, 0.2, 0.05)) == (18, 3)
    assert plan.reach.understands_at == 20 and plan.reach.does_not_at == 8
    assert plan.max_questions == 512 and reach_warnings(plan) == []
    # the doubling test: all right, L(1, n, d) = d^(1/n) >= PG 0.8 needs n >= ln(1/d) /
    # ln(1.25), d = 6δ/(π² j²): 15.6 at look 1 (8 questions), 21.9 at look 2 (16), 25.5 at
    # look 3 (32)
    doubling = make_plan(sequential_test="doubling")
    assert doubling.reach.understands_at == 32 and doubling.reach.does_not_at == 8
    # the old audit's RID (no ridiculous answer in 100 questions) cannot be reached in 256:
    # a warning before anything is asked, naming what would reach it. With looks from 8,
    # look 12 (16,384) needs ln(π²·144/0.3) / -ln(1 - 0.000513) = 16,493.3, and a budget in
    # (16,384, 32,768] is look 13, which needs 16,805.3; at 256, U(0, 256, δ_6) = 0.027 asks
    # RID 0.03 (as a Python caller reads it)
    (warning,) = reach_warnings(make_plan(rid=0.000513, pg=0.7, max_questions=256,
                                          sequential_test="doubling"))
    assert "cannot certify even a perfect model" in warning
    assert "use max_questions=16_806 or more, or rid=0.03" in warning
    assert "can still find that a model does not" in warning
    # the betting test: its bet on "no answer ridiculous" gains φ·0.000513/0.999487 a right
    # answer; the answers it needs, and the RID its bets reach within 256, by_hand
    needs = by_hand.perfect_needs(0.7, 0.000513, 0.05)
    (warning,) = reach_warnings(make_plan(rid=0.000513, pg=0.7, max_questions=256))
    assert (f"use max_questions={needs:_} or more, or rid={by_hand.loosest_rid(256):g}"
            in warning)
    # all answers right: U(0, n, d) = 1 - d^(1/n) <= RID needs n >= ln(1/d) / -ln(1 - RID);
    # at look j, d = 6δ/(π² j²): look 10 (8,192) needs 15,783, look 11 (16,384) 16,155
    c = Criterion(0.7, 0.000513, 0.05)
    assert reach(c, 16, 8192, test="doubling").understands_at is None
    assert reach(c, 16, 16384, test="doubling").understands_at == 16384
    # the betting test reaches it at the budget where that is the first look past `needs`
    assert reach(c, 16, needs - 1).understands_at is None
    assert reach(c, 16, needs).understands_at == needs


def test_a_perfect_calculator_understands_arithmetic_where_reach_says(tmp_path: Path) -> None:
    model = ScriptedModel("scripted/calc", reply=calculator)
    result = vs.audit(model, subjects="arithmetic/small", **where(tmp_path))
    (line,) = result.targets
    assert line.decision is Decision.UNDERSTANDS
    assert line.asked == make_plan("arithmetic/small").reach.understands_at
    assert line.verdict.score_lower >= 0.8 and not line.is_concept
    assert line.keystone is None and line.potemkin == {} and line.incoherence is None
    assert result.runs[0].potemkin is None and result.runs[0].incoherence is None
    assert result.definitions_waiting == 0 and len(model.calls) == line.asked


def test_every_lens_writes_its_folder_and_the_lines_follow_the_records(tmp_path: Path) -> None:
    model = ScriptedModel("scripted/oracle", reply=oracle(CONCEPTS))
    result = vs.audit(model, subjects=",".join(CONCEPTS), **where(tmp_path))
    assert isinstance(result, AuditResult) and result.failed_calls == 0
    assert [t.key for t in result.targets] == list(CONCEPTS)
    runs = result.runs[0]
    answers = [r for r in records(runs.certify) if r["kind"] == "answer"]
    for line in result.targets:
        mine = [r for r in answers if r["scope"] == BY_KEY[line.key].scope]
        scores = [r["score"] for r in mine]
        assert line.asked == len(mine) and line.verdict.n == len(mine)
        again = certify_sequential(scores, 0.8, 0.2, 0.05, first=8, max_n=512,
                                   block=CONCEPT_BLOCK)
        assert line.decision is again.decision
        assert line.verdict.mean_score == pytest.approx(sum(scores) / len(scores))
        assert line.keystone is None and line.potemkin == {}  # nobody graded the definition
        assert line.incoherence is not None and line.incoherence.n == 2
        if line.decision is Decision.DOES_NOT_UNDERSTAND:
            assert line.evidence and all(e.score == 0.0 for e in line.evidence)
    assert result.definitions_waiting == 2
    asked = sum(t.asked for t in result.targets)
    # calls: the certification answers, a definition per concept, each example made and
    # classified (one instance and one non-instance per concept); repeats come from the cache
    usage = result.usage["scripted/oracle"]
    assert usage.calls == asked + 2 + 2 * 2 * 2
    assert usage.calls - usage.cache_hits == len(model.calls)
    for folder, command in ((runs.certify, "certify"), (runs.potemkin, "potemkin-run"),
                            (runs.incoherence, "potemkin-incoherence")):
        assert folder.parent.parent == result.run_dir
        assert json.loads((folder / "run.json").read_text())["command"] == command
    summary = json.loads((result.run_dir / "summary.json").read_text())
    assert summary == json.loads(json.dumps(result.to_dict()))
    assert from_jsonable(AuditResult, summary) == result
    page = (result.run_dir / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>")
    pairs = [r for r in records(runs.incoherence) if r["kind"] == "pair"]
    for line in result.targets:
        tested = [r for r in pairs if r["concept"] == line.key and r["is_instance"] is not None]
        if tested:
            wrong = sum(r["is_instance"] != r["want"] for r in tested) / len(tested)
            assert line.checker_wrong == pytest.approx(wrong)
        else:
            assert line.checker_wrong is None
    shown = [t.checker_wrong for t in result.targets if t.checker_wrong is not None]
    assert shown  # the scripted model's examples are read by the checkers
    for value in shown:
        assert f"its examples the checker rejects: {value:.2f}" in page


def test_labels_imported_later_give_the_keystone_and_the_potemkin_rates(tmp_path: Path) -> None:
    model = ScriptedModel("scripted/oracle", reply=oracle(CONCEPTS[:1]))
    result = vs.audit(model, subjects=CONCEPTS[0], examples=0, **where(tmp_path))
    assert result.runs[0].incoherence is None and result.targets[0].incoherence is None
    labels = vs.annotate_export(result.runs[0].potemkin)
    label_all(labels, "yes")
    vs.annotate_import(result.runs[0].potemkin, labels)
    after = summarize_audit(result.run_dir)
    line = after.targets[0]
    assert line.keystone is True and after.definitions_waiting == 0
    # potemkin rate = scale x (1 - accuracy) (classify x2): over the parsed classify answers,
    # and over every generate and edit answer, an unreadable one counting as wrong (the oracle
    # cannot edit games, so its edits are unreadable)
    answers = [r for r in records(result.runs[0].certify) if r["kind"] == "answer"]
    for task, rate in line.potemkin.items():
        mine = [r for r in answers if r["family"] == task]
        unparsed = sum(r["outcome"] == "unparsed" for r in mine)
        counted = [r for r in mine if task != "classify" or r["outcome"] != "unparsed"]
        assert (rate.n, rate.unparsed) == (len(counted), unparsed)
        assert rate.unparsed_wrong is (task != "classify")
        if counted:
            wrong = sum(r["score"] == 0.0 for r in counted) / len(counted)
            assert rate.rate == pytest.approx((2 if task == "classify" else 1) * wrong)
    assert line.potemkin["edit"].rate == 1.0 and line.potemkin["edit"].unparsed > 0
    assert sum(r.n for r in line.potemkin.values()) + line.potemkin["classify"].unparsed \
        == len(answers)
    assert after.seconds == result.seconds  # the asking run's time survives a recompute


def test_a_model_that_says_yes_does_not_understand_and_the_evidence_is_wrong(tmp_path) -> None:
    yes = ScriptedModel("scripted/yes", reply=lambda p: "ANSWER: Yes")
    calc = ScriptedModel("scripted/calc", reply=calculator)
    result = vs.audit([calc, yes], subjects="arithmetic/small,game-theory/zero-sum",
                      examples=0, **where(tmp_path))
    assert result.models == ("scripted/calc", "scripted/yes")
    assert result.verdicts[("scripted/calc", "arithmetic/small")] is Decision.UNDERSTANDS
    assert result.verdicts[("scripted/yes", "arithmetic/small")] is Decision.DOES_NOT_UNDERSTAND
    line = result.of("scripted/yes")[1]
    assert line.evidence and all(e.score == 0.0 for e in line.evidence)
    assert line.verdict.score_upper < 0.8
    assert len(result.runs) == 2 and result.runs[0].certify != result.runs[1].certify
    page = (result.run_dir / "report.html").read_text()
    assert "scripted/calc" in page and "scripted/yes" in page
    # a notebook shows the verdicts as tables, text and HTML, not the dataclass's fields
    # (issue 30): one row per (model, target), each with its verdict in words
    text, shown = result.text(), result._repr_html_()
    for model in result.models:
        for t in result.of(model):
            words = "no verdict" if t.verdict is None else t.verdict.decision.words
            row = next(line for line in text.splitlines()[text.splitlines().index(model):]
                       if line.startswith(t.name))
            assert words in row
            assert f"<td>{t.name}</td><td>{words}</td>" in shown
    assert shown.count("<table>") == 2 and "TargetAudit(" not in text


def test_a_plan_built_by_hand_is_checked_too(tmp_path: Path) -> None:
    """run_plan warns of an AuditPlan that cannot certify even a perfect model (PG 0.8, RID
    0.2: that needs the look at 32), as make_plan's plans are checked, and runs it: after the
    look at 8, even 8 more right answers give L(1, 16, δ_2 = 0.0076) = 0.737 < 0.8, so
    "understands" is out of reach and the perfect calculator stops there, undecided."""
    model = ScriptedModel("scripted/calc", reply=calculator)
    _, targets = resolve_subjects("arithmetic/small")
    plan = AuditPlan(targets, ("arithmetic/small",), Criterion(0.8, 0.2, 0.05),
                     max_questions=16, first_look=8)
    settings = RunSettings(runs_dir=tmp_path / "runs", cache=tmp_path / "c.sqlite")
    with pytest.warns(UserWarning, match="looks from 8 up to 16 cannot"):
        result = asyncio.run(run_plan([model], plan, settings=settings))
    (line,) = result.targets
    assert line.decision is Decision.INCONCLUSIVE and line.asked == 8 == len(model.calls)
    assert line.verdict.details.out_of_reach


def test_bad_input_stops_before_any_call(tmp_path: Path) -> None:
    model = ScriptedModel()
    for call, needle in ((lambda: vs.audit([model, model], **where(tmp_path)), "named twice"),
                         (lambda: vs.audit(model, subjects="nope", **where(tmp_path)),
                          "unknown subject"),
                         (lambda: vs.audit("local", **where(tmp_path)), "malformed model"),
                         (lambda: vs.audit(model, first_look=32, max_questions=16,
                                           **where(tmp_path)), "first_look")):
        with pytest.raises(vs.UserError, match=needle):
            call()
    assert model.calls == [] and not (tmp_path / "runs").exists()


def test_cli_bad_input_is_one_line_and_exit_2(cli: Cli) -> None:
    cli_error(cli, ["audit", "--subject", "psych"], "graded by a judge")
    cli_error(cli, ["audit", "--model", "nope"], "malformed model name")
    cli_error(cli, ["audit", "--pg", "0.5", "--rid", "0.6"], "RID")
    cli_error(cli, ["audit", "--max-questions", "0"], "--max-questions")


def test_max_tokens_caps_every_answer_of_every_lens(tmp_path: Path) -> None:
    asked: dict[str, list[int]] = {"capped": [], "free": []}

    class Recording(ScriptedModel):
        async def generate(self, messages, params):
            asked[self.name.split("/")[1]].append(params.max_tokens)
            return await super().generate(messages, params)

    for name, cap in (("capped", 40), ("free", None)):
        vs.audit(Recording(f"scripted/{name}", reply=lambda p: "ANSWER: Yes"),
                 subjects="game-theory/zero-sum", max_tokens=cap, **where(tmp_path / name))
    assert max(asked["free"]) > 40  # generate items, definitions and examples ask for more
    assert max(asked["capped"]) == 40 and len(asked["capped"]) == len(asked["free"])
