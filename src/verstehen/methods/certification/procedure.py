"""Certify a model on a scope: sample questions, ask, grade, decide (fixed n or sequential)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal, TypeVar

import numpy as np

from verstehen.engine.runner import Runner
from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.grading import grade_reply
from verstehen.methods.certification.decide import certify
from verstehen.methods.certification.records import AnswerRecord
from verstehen.methods.certification.results import FamilyScore, RephraseCheck, ScopeResult
from verstehen.methods.certification.scopes.draw import PHRASINGS, StratifiedScope, question_at
from verstehen.methods.certification.sequential import look_verdict, schedule_of
from verstehen.methods.certification.verdict import (
    DEFAULT_TEST,
    SEQUENTIAL_TESTS,
    Criterion,
    Decision,
    Verdict,
)
from verstehen.models.base import GenerateParams, Model, user
from verstehen.scopes.base import Question, Scope
from verstehen.stats.rates import mean_se, rate_se
from verstehen.wording import parameter


@dataclass(frozen=True)
class CertifyPlan:
    """What to ask and how to decide: n questions, or sequential looks up to max_questions
    (by the betting test, or the doubling one)."""

    criterion: Criterion
    questions: int
    sequential: bool = False
    first_look: int = 16
    sequential_test: str = DEFAULT_TEST
    seed: int = 0
    rephrase: int = 20
    max_tokens: int | None = None  # every answer's token budget, replacing the scope's
    phrasings: str = "benchmark"  # a benchmark's wording where a scope has one; "all": drawn
    warnings: tuple[str, ...] = ()  # said before the run starts (a budget that cannot certify)

    def __post_init__(self) -> None:
        if self.questions < 1:
            raise UserError(f"the number of questions must be at least 1, not {self.questions}")
        if self.first_look < 1 or (self.sequential and self.first_look > self.questions):
            raise UserError(f"{parameter('first_look')} must lie in [1, {self.questions}], "
                            f"not {self.first_look}")
        if self.rephrase < 0:
            raise UserError(f"{parameter('rephrase')} must be at least 0, not {self.rephrase}")
        if self.seed < 0:
            raise UserError(f"{parameter('seed')} must be at least 0, not {self.seed}")
        if self.phrasings not in PHRASINGS:
            raise UserError(f"{parameter('phrasings')} must be one of {', '.join(PHRASINGS)}, "
                            f"not {self.phrasings!r}")
        if self.sequential_test not in SEQUENTIAL_TESTS:
            raise UserError(f"{parameter('sequential_test')} must be one of "
                            f"{', '.join(SEQUENTIAL_TESTS)}, not {self.sequential_test!r}")


class Asker:
    """Asks a scope's questions through the runner and writes one record per answer."""

    def __init__(self, runner: Runner, model: Model, scope: Scope, store: RunStore,
                 plan: CertifyPlan) -> None:
        self.runner, self.model, self.scope, self.store = runner, model, scope, store
        self.seed, self.cap = plan.seed, plan.max_tokens
        self.all_phrasings = plan.phrasings == "all"
        self.params = GenerateParams(temperature=0.0, max_tokens=scope.answer_tokens,
                                     seed=plan.seed)
        self.errors = 0
        self.asked: dict[int, Question] = {}  # index -> question, for the rephrase check

    async def ask(self, question: Question, index: int,
                  kind: Literal["answer", "rephrase"] = "answer") -> AnswerRecord:
        """Ask one question greedily; grade and record it (a failed call is recorded too)."""
        tokens = question.max_tokens or self.scope.answer_tokens
        params = replace(self.params, max_tokens=self.cap or tokens)
        result = await self.runner.generate(self.model, user(question.prompt), params)
        record: AnswerRecord = {
            "kind": kind, "scope": self.scope.name, "model": self.model.name, "index": index,
            "question_id": question.id, "family": question.family,
            "phrasing": question.phrasing, "prompt": question.prompt,
            "expected": question.answer, "text": None, "parsed": None, "outcome": None,
            "score": None, "reason": None, "truncated": None, "cached": result.cached,
            "error": result.error,
        }
        if result.ok:
            reply = result.value
            graded = grade_reply(self.scope.grade(question, reply.text), reply.text,
                                 reply.finish_reason, params.max_tokens)
            record.update({"text": reply.text, "parsed": graded.parsed,
                           "outcome": graded.outcome, "score": graded.score,
                           "reason": graded.reason,
                           "truncated": graded.outcome == "truncated"})
        else:
            self.errors += 1
        self.store.append(record)
        return record

    async def ask_range(self, start: int, stop: int,
                        keep: Callable[[Question], bool] | None = None) -> list[AnswerRecord]:
        """Ask questions start..stop-1 concurrently, in index order."""
        questions = [question_at(self.scope, self.seed, i, keep,
                                 all_phrasings=self.all_phrasings)
                     for i in range(start, stop)]
        self.asked.update(zip(range(start, stop), questions, strict=True))
        self.runner.progress.add_total(len(questions))
        return list(await asyncio.gather(
            *(self.ask(q, i) for i, q in zip(range(start, stop), questions, strict=True))))


async def run_certify(runner: Runner, model: Model, scope: Scope, store: RunStore,
                      plan: CertifyPlan) -> ScopeResult:
    """Ask, grade and decide; returns the scope's summary (verdict, counts, rephrase check)."""
    asker = Asker(runner, model, scope, store, plan)
    records: list[AnswerRecord] = []
    with runner.progress.growing(plan.rephrase > 0):  # the rephrasings come after the answers
        if plan.sequential:
            # each look's questions are asked together; the run stops at a look that decides,
            # or after which "understands" is out of reach (the budget's look always is)
            block = block_of(scope)
            schedule = schedule_of(plan.sequential_test, plan.first_look, plan.questions, block)
            verdict = None
            for look, n in enumerate(schedule, 1):
                with runner.progress.growing(look < len(schedule)):
                    records += await asker.ask_range(len(records), n)
                if asker.errors:
                    break
                verdict = look_verdict(scores_of(records), plan.criterion, look, schedule,
                                       test=plan.sequential_test, block=block)
                if verdict is not None:
                    break
        else:
            records = await asker.ask_range(0, plan.questions)
            verdict = None if asker.errors else certify(
                scores_of(records), plan.criterion.pg, plan.criterion.rid,
                plan.criterion.delta)
    rephrased = await rephrase_check(asker, records, plan.rephrase) if not asker.errors else None
    return scope_summary(scope, records, verdict, rephrased, asker.errors)


def block_of(scope: Scope) -> int:
    """How many answers make one block of the scope's draws: its strata, each asked once per
    block (`scopes.draw`), or 1; the betting test looks at whole blocks."""
    if isinstance(scope, StratifiedScope) and len(scope.strata) > 1:
        return len(scope.strata)
    return 1


def scores_of(records: list[AnswerRecord]) -> np.ndarray:
    """The scores of answered records (ask_range returns them in index order)."""
    return np.array([r["score"] for r in records], dtype=float)


async def rephrase_check(asker: Asker, records: list[AnswerRecord],
                         count: int) -> RephraseCheck | None:
    """Ask the first `count` questions again in the next phrasing; how often do scores differ?"""
    if asker.scope.phrasings < 2 or count < 1 or not records:
        return None
    chosen = records[:count]
    originals = [asker.asked[r["index"]] for r in chosen]
    asker.runner.progress.add_total(len(originals))
    again = await asyncio.gather(*(
        asker.ask(asker.scope.rephrase(q, (q.phrasing + 1) % asker.scope.phrasings),
                  r["index"], kind="rephrase")
        for q, r in zip(originals, chosen, strict=True)))
    if asker.errors:
        return None
    differ = sum(a["score"] != b["score"] for a, b in zip(chosen, again, strict=True))
    rate, se = rate_se(differ, len(chosen))
    return RephraseCheck(len(chosen), differ, rate, se)


def scope_summary(scope: Scope, records: list[AnswerRecord], verdict: Verdict | None,
                  rephrased: RephraseCheck | None, errors: int,
                  explained: tuple[str, ...] | None = None) -> ScopeResult:
    """The scope's result from its answer records."""
    outcomes = Counter(r["outcome"] for r in records if r["outcome"] is not None)
    reasons = Counter(reason for r in records
                      if r["outcome"] == "unparsed" and (reason := r["reason"]) is not None)
    scored = [r for r in records if r["score"] is not None]
    return ScopeResult(scope=scope.name, asked=len(records), failed_calls=errors,
                       verdict=verdict, outcomes=dict(sorted(outcomes.items())),
                       unparsed_reasons=dict(reasons.most_common(5)),
                       by_family=by_family(scored), rephrase=rephrased,
                       explained_families=explained)


AnswerT = TypeVar("AnswerT", bound=AnswerRecord)  # an answer record, or one read back


def deciding(records: list[AnswerT], decision: Decision | None) -> list[AnswerT]:
    """The answers a verdict rests on: the ridiculous ones when it says the model does not
    understand, the rest otherwise (all of them when undecided)."""
    if decision == Decision.DOES_NOT_UNDERSTAND:
        return [r for r in records if r["score"] == 0.0]
    if decision == Decision.UNDERSTANDS:
        return [r for r in records if (score := r["score"]) is not None and score > 0.0]
    return records


def rests_on(records: list[AnswerT], decision: Decision | None) -> list[AnswerT]:
    """Every graded answer a verdict rests on (as many as its n), those that decided it
    (`deciding`) first."""
    graded = [r for r in records if r["score"] is not None]
    first = deciding(graded, decision)
    chosen = {id(r) for r in first}
    return first + [r for r in graded if id(r) not in chosen]


def by_family(records: list[AnswerRecord]) -> dict[str, FamilyScore]:
    """Mean score with its standard error, share ridiculous and n, per question family."""
    groups: dict[str, list[float]] = {}
    for r in records:  # the scored ones
        if (score := r["score"]) is not None:
            groups.setdefault(str(r["family"]), []).append(float(score))
    out = {}
    for family, scores in sorted(groups.items()):
        mean, se = mean_se(scores)
        out[family] = FamilyScore(len(scores), mean, se,
                                  sum(x == 0.0 for x in scores) / len(scores))
    return out
