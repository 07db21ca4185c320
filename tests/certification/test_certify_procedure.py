"""The certify procedure on scripted models: asking, grading, looks, rephrasing, programs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import by_hand
import pytest

from verstehen.engine.cache import Cache
from verstehen.engine.runner import Runner
from verstehen.engine.store import RunStore
from verstehen.errors import CallFailed
from verstehen.methods.certification.example import calculator
from verstehen.methods.certification.explain import run_explained
from verstehen.methods.certification.procedure import (
    CertifyPlan,
    by_family,
    question_at,
    run_certify,
)
from verstehen.methods.certification.results import FamilyScore, ScopeResult
from verstehen.methods.certification.scopes import get_scope
from verstehen.methods.certification.verdict import Criterion, Decision
from verstehen.testing.scripted import ScriptedModel


def run(model: ScriptedModel, scope_name: str, tmp_path: Path, plan: CertifyPlan,
        explain_questions: int = 0) -> tuple[ScopeResult, list[dict[str, Any]]]:
    """Run the procedure into a fresh run folder (cache kept across calls in tmp_path)."""
    scope = get_scope(scope_name)
    runner = Runner(Cache(tmp_path / "calls.sqlite"))
    store = RunStore.create(tmp_path / "runs", command="certify", argv=[], config={},
                            seed=plan.seed, models=[model.identity()])

    async def go() -> ScopeResult:
        if explain_questions:
            return await run_explained(runner, model, scope, store, plan,  # type: ignore[arg-type]
                                       explain_questions)
        return await run_certify(runner, model, scope, store, plan)

    try:
        summary = asyncio.run(go())
    finally:
        runner.cache.close()
    return summary, list(store.records())


def plan(n: int, *, pg: float = 0.7, rid: float = 0.05, sequential: bool = False,
         rephrase: int = 0, seed: int = 0, test: str = "betting") -> CertifyPlan:
    """A plan at δ = 0.05."""
    return CertifyPlan(Criterion(pg, rid, 0.05), n, sequential=sequential, first_look=16,
                       seed=seed, rephrase=rephrase, sequential_test=test)


def test_perfect_model_understands(tmp_path: Path) -> None:
    """100 right answers: L(1, 100, .05) = 0.970 >= 0.7 and U(0, 100, .05) = 0.0295 <= 0.05."""
    model = ScriptedModel("scripted/calc", reply=calculator)
    summary, records = run(model, "arithmetic/small", tmp_path, plan(100))
    verdict = summary.verdict
    assert verdict.decision == Decision.UNDERSTANDS
    assert verdict.n == 100 and verdict.mean_score == 1.0
    assert summary.outcomes == {"correct": 100}
    assert len(records) == 100 and len(model.calls) == 100
    assert [r["index"] for r in sorted(records, key=lambda r: r["index"])] == list(range(100))


def test_nonsense_is_ridiculous_and_decides_at_the_first_look(tmp_path: Path) -> None:
    """No number in any reply: every answer scores 0; the first look (16) already decides."""
    model = ScriptedModel("scripted/banana", reply=lambda prompt: "banana")
    summary, records = run(model, "arithmetic", tmp_path, plan(256, sequential=True))
    verdict = summary.verdict
    assert verdict.decision == Decision.DOES_NOT_UNDERSTAND
    assert set(verdict.decided_by) == {"bad_grade", "bad_rid"}
    assert verdict.n == 16 and len(model.calls) == 16
    assert summary.outcomes == {"unparsed": 16}
    assert all(r["score"] == 0.0 and r["reason"] for r in records)


def test_sequential_stops_at_the_first_decisive_checkpoint(tmp_path: Path) -> None:
    """A perfect model at RID 0.1, by the doubling test: U(0, n, δ_j) is 0.196 at 16, 0.141
    at 32, 0.085 at 64."""
    model = ScriptedModel("scripted/calc", reply=calculator)
    summary, _ = run(model, "arithmetic/small", tmp_path,
                     plan(512, rid=0.1, sequential=True, test="doubling"))
    verdict = summary.verdict
    assert verdict.decision == Decision.UNDERSTANDS
    assert verdict.n == 64 and len(model.calls) == 64
    assert verdict.details.look == 3
    assert verdict.details.checkpoints == (16, 32, 64, 128, 256, 512)


def test_the_betting_test_stops_at_its_first_look_past_what_its_bets_need(
        tmp_path: Path) -> None:
    """A perfect model at PG 0.7, RID 0.1, by the betting test: its bets need `needs` right
    answers (by_hand), and the run stops at the first of its looks (16, 18, 21, ..., one
    answer a block on arithmetic) at or past that, having asked exactly that many."""
    needs = by_hand.perfect_needs(0.7, 0.1, 0.05)
    schedule = by_hand.looks(16, 512)
    stop = next(n for n in schedule if n >= needs)
    model = ScriptedModel("scripted/calc", reply=calculator)
    summary, records = run(model, "arithmetic/small", tmp_path,
                           plan(512, rid=0.1, sequential=True))
    verdict = summary.verdict
    assert verdict.decision == Decision.UNDERSTANDS and 16 < needs < 64
    assert verdict.n == stop == len(model.calls) == len(records)
    assert verdict.details.look == schedule.index(stop) + 1 and verdict.details.budget == 512
    assert verdict.details.test == "betting" and verdict.details.block == 1


def test_questions_are_a_reproducible_prefix(tmp_path: Path) -> None:
    """Question i depends on (seed, i) only; another seed draws other questions."""
    scope = get_scope("arithmetic")
    first = [question_at(scope, 7, i) for i in range(20)]
    assert first == [question_at(scope, 7, i) for i in range(20)]
    assert [q.id for q in first] != [question_at(scope, 8, i).id for i in range(20)]


def test_rephrase_check_counts_disagreements(tmp_path: Path) -> None:
    """A model right only when asked "What is ...?" changes its score under rephrasing."""
    def picky(prompt: str) -> str:
        return calculator(prompt) if prompt.startswith("What is") else "I don't know"

    model = ScriptedModel("scripted/picky", reply=picky)
    summary, records = run(model, "arithmetic/small", tmp_path, plan(40, rephrase=40))
    again = [r for r in records if r["kind"] == "rephrase"]
    assert len(again) == 40
    firsts = {r["index"]: r for r in records if r["kind"] == "answer"}
    expected = sum(firsts[r["index"]]["score"] != r["score"] for r in again)
    assert expected > 0
    assert summary.rephrase.disagreements == expected
    assert all(r["question_id"] == firsts[r["index"]]["question_id"] for r in again)
    assert all(r["phrasing"] != firsts[r["index"]]["phrasing"] for r in again)

    calc = ScriptedModel("scripted/calc", reply=calculator)
    summary, _ = run(calc, "arithmetic/small", tmp_path / "calc", plan(40, rephrase=40))
    assert summary.rephrase.disagreements == 0


def test_failed_calls_give_no_verdict_and_rerun_repeats_no_paid_call(tmp_path: Path) -> None:
    """A call that fails leaves no verdict; the rerun pays only for the calls that failed."""
    def flaky(prompt: str, attempt: int) -> Exception | None:
        return CallFailed("refused") if "7" in prompt and attempt == 1 else None

    model = ScriptedModel("scripted/flaky", script=flaky, reply=calculator)
    summary, records = run(model, "arithmetic/small", tmp_path, plan(30))
    failed = [r for r in records if r["error"]]
    assert summary.verdict is None and summary.failed_calls == len(failed) > 0
    paid = len(model.calls)

    summary, _ = run(model, "arithmetic/small", tmp_path, plan(30))
    assert summary.verdict.decision in {Decision.UNDERSTANDS, Decision.INCONCLUSIVE}
    assert len(model.calls) - paid == len(failed)


def program_for(prompt: str) -> str:
    """Right programs for + and *, a half-wrong one for -, prose (no code) for /."""
    if '"a + b"' in prompt:
        return "```python\ndef solve(a, b):\n    return a + b\n```"
    if '"a * b"' in prompt:
        return "```python\ndef solve(a, b):\n    return a * b\n```"
    if '"a - b"' in prompt:
        return "```python\ndef solve(a, b):\n    return abs(a - b)\n```"
    return "Divide the first number by the second."


def test_explanations_cover_families_with_programs(tmp_path: Path) -> None:
    """Programs answer their family in the sandbox; only "/" is left to direct questions."""
    def reply(prompt: str) -> str:
        return program_for(prompt) if "def" in prompt or "Python" in prompt else calculator(
            prompt)

    model = ScriptedModel("scripted/explainer", reply=reply)
    summary, records = run(model, "arithmetic", tmp_path, plan(50), explain_questions=300)
    assert summary.explained_families == ("*", "+", "-")
    answers = [r for r in records if r["kind"] == "answer"]
    assert len(answers) == 50 and {r["family"] for r in answers} == {"/"}
    explained = {r["family"]: r for r in records if r["kind"] == "explanation"}
    assert explained["/"]["offered"] is False and explained["/"]["reason"]
    assert explained["+"]["mean_score"] == 1.0 and explained["*"]["mean_score"] == 1.0
    # |a - b| has the wrong sign whenever a < b: about half its answers are ridiculous
    assert 0.3 < explained["-"]["ridiculous"] / 300 < 0.7
    parts = {c.family: c for c in summary.verdict.details.components}
    assert parts["(remaining)"].p == pytest.approx(0.25)
    assert parts["(remaining)"].m == 50
    # the subtraction program's ridiculous answers sink the verdict
    assert summary.verdict.decision == Decision.DOES_NOT_UNDERSTAND
    assert "bad_rid" in summary.verdict.decided_by


def test_records_are_plain_json_lines(tmp_path: Path) -> None:
    """Every record is one JSON object a line with the fields a reader needs."""
    model = ScriptedModel("scripted/calc", reply=calculator)
    _, _ = run(model, "arithmetic", tmp_path, plan(5, rephrase=2))
    lines = next((tmp_path / "runs").iterdir()).joinpath("records.jsonl").read_text()
    rows = [json.loads(line) for line in lines.splitlines()]
    assert len(rows) == 7
    for row in rows:
        assert {"kind", "scope", "model", "index", "question_id", "prompt", "expected", "text",
                "score", "outcome", "error"} <= set(row)


@pytest.mark.parametrize("make_reply", [lambda p: "I don't know"])
def test_idk_scores_the_scope_idk_score(tmp_path: Path, make_reply: Callable[[str], str]) -> None:
    """arithmetic gives 'I don't know' 0.2 (not ridiculous); arithmetic/small gives it 0."""
    model = ScriptedModel("scripted/idk", reply=make_reply)
    big, _ = run(model, "arithmetic", tmp_path / "a", plan(20))
    small, _ = run(model, "arithmetic/small", tmp_path / "b", plan(20))
    assert big.verdict.mean_score == pytest.approx(0.2)
    assert big.verdict.ridiculous_rate == 0.0
    assert small.verdict.ridiculous_rate == 1.0


def test_by_family_means_and_standard_errors() -> None:
    """Family a = [1, 0, 1, 1]: mean 3/4, sample variance 1/4, SE sqrt(1/4 / 4) = 1/4."""
    records = [{"family": "a", "score": s} for s in (1.0, 0.0, 1.0, 1.0)]
    records.append({"family": "b", "score": 0.5})
    out = by_family(records)
    assert out["a"] == FamilyScore(n=4, mean=pytest.approx(0.75), se=pytest.approx(0.25),
                                   ridiculous=0.25)
    assert out["b"] == FamilyScore(n=1, mean=0.5, se=0.0, ridiculous=0.0)
