"""Sequential certification that stays valid when you stop at the first decisive look.

Looking at the evidence after every question and stopping when Procedure 4.1 first decides
inflates the error far beyond δ (each look is another chance to be fooled). Two tests keep it
at δ. The betting test (`betting.py`, the default) bets on each answer and may stop at any of
its looks, about 1/8 apart. The doubling test looks only at checkpoints fixed in advance,
n_j = first·2^(j-1) (plus a final look at the budget), and runs Procedure 4.1 at look j with
δ_j = 6δ/(π² j²). Since Σ_j δ_j = δ, the chance that *any* look gives a wrong verdict is at
most δ (union bound), whenever the run stops.

A run also stops, undecided, after a look from which "understands" is out of reach: when even
a perfect score on every remaining question up to the budget would not certify it at any later
look (`understands_reachable`, and the betting test's own). Stopping early can only turn a
later verdict into "inconclusive", never into a wrong one, so δ still bounds the error; it
spends the budget on models that can still be certified.

Here too: where each test decides for a perfect model and for one always ridiculous, and the
warnings of a budget that cannot reach a verdict, naming values that can (each parameter
worded by `verstehen.wording`, as the face running now spells it).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

from verstehen.methods.certification import betting
from verstehen.methods.certification.bounds import chernoff_lower
from verstehen.methods.certification.decide import certify, check_scores
from verstehen.methods.certification.plan import samples_needed, sequential_samples_needed
from verstehen.methods.certification.verdict import (
    DEFAULT_TEST,
    DOUBLING,
    SEQUENTIAL_TESTS,
    BettingLook,
    Criterion,
    Decision,
    SequentialLook,
    Verdict,
    checkpoints,
    decide_tests,
    look_delta,
)
from verstehen.wording import parameter, setting

_MAX_LOOKS = 45  # looks from 1 up to 2**44 questions: beyond any budget


def certify_at_look(scores: ArrayLike, criterion: Criterion, look: int,
                    schedule: list[int]) -> Verdict:
    """Procedure 4.1 on the first schedule[look-1] scores at δ_look, annotated with the look."""
    n = schedule[look - 1]
    delta_look = look_delta(criterion.delta, look)
    verdict = certify(np.asarray(scores)[:n], criterion.pg, criterion.rid, delta_look,
                      plan_more=False)
    more = None
    if verdict.decision == Decision.INCONCLUSIVE:
        needed = sequential_samples_needed(criterion, verdict.mean_score,
                                           verdict.ridiculous_rate, first=schedule[0])
        more = None if needed is None else max(needed - n, 1)
    return replace(verdict, delta=criterion.delta, more_questions=more,
                   details=SequentialLook(look, delta_look, tuple(schedule)))


def understands_reachable(scores: ArrayLike, criterion: Criterion, look: int,
                          schedule: list[int]) -> bool:
    """Whether a later look could still certify understanding: with every answer after look
    `look` right (score 1), does any later checkpoint say "understands"?"""
    n = schedule[look - 1]
    seen = np.asarray(scores, dtype=float)[:n]
    for later in range(look + 1, len(schedule) + 1):
        best = np.concatenate([seen, np.ones(schedule[later - 1] - n)])
        verdict = certify(best, criterion.pg, criterion.rid, look_delta(criterion.delta, later),
                          plan_more=False)
        if verdict.decision == Decision.UNDERSTANDS:
            return True
    return False


def out_of_reach(verdict: Verdict) -> Verdict:
    """The inconclusive verdict of a look after which understanding can no longer be
    certified within the budget (the run stops there)."""
    assert isinstance(verdict.details, SequentialLook | BettingLook)
    return replace(verdict, details=replace(verdict.details, out_of_reach=True))


def check_test(test: str) -> None:
    """ValueError unless `test` names a sequential test."""
    if test not in SEQUENTIAL_TESTS:
        raise ValueError(f"the sequential test is one of {', '.join(SEQUENTIAL_TESTS)}, "
                         f"not {test!r}")


def schedule_of(test: str, first: int, budget: int, block: int = 1) -> list[int]:
    """The looks of a sequential test up to `budget`: the doubling checkpoints from `first`,
    or the betting test's looks (whole blocks of `block` answers)."""
    check_test(test)
    return checkpoints(first, budget) if test == DOUBLING else betting.looks(first, budget,
                                                                             block)


def look_verdict(scores: ArrayLike, criterion: Criterion, look: int, schedule: list[int], *,
                 test: str = DEFAULT_TEST, block: int = 1, final: bool = False
                 ) -> Verdict | None:
    """The verdict a run stops with at this look: decisive, out of reach (marked; the budget's
    look always is), or with `final` (no more answers) undecided; None when it goes on."""
    if test == DOUBLING:
        verdict = certify_at_look(scores, criterion, look, schedule)
        decisive = verdict.decision != Decision.INCONCLUSIVE
        reachable = decisive or understands_reachable(scores, criterion, look, schedule)
    else:
        check_test(test)
        seen = np.asarray(scores, dtype=float)[:schedule[look - 1]]
        decisive = decide_tests(betting.tests_of(seen, criterion))[0] != Decision.INCONCLUSIVE
        reachable = decisive or betting.understands_reachable(seen, criterion, schedule[-1])
        if not (decisive or final or not reachable):
            return None  # the bounds are worked out only for a verdict given
        verdict = betting.betting_verdict(seen, criterion, look, schedule, block)
    if not reachable:
        return out_of_reach(verdict)
    return verdict if decisive or final else None


def certify_sequential(scores: ArrayLike, pg: float, rid: float, delta: float, *,
                       first: int = 16, max_n: int | None = None, test: str = DEFAULT_TEST,
                       block: int = 1) -> Verdict:
    """The verdict of the first decisive look the scores reach, else of the look after which
    "understands" is out of reach within the budget, else of the last one reached; by the
    betting test (looks in whole blocks of `block` answers) or the doubling one.

    `max_n` is the budget fixed before the run; None takes len(scores), which is right for one
    call on a finished run but not when called again as answers arrive (that adds looks).
    """
    criterion = Criterion(pg, rid, delta)
    array = check_scores(scores)
    schedule = schedule_of(test, first, max_n or array.size, block)
    reached = [n for n in schedule if n <= array.size]
    if not reached:
        raise ValueError(f"{array.size} scores do not reach the first look ({schedule[0]})")
    for look in range(1, len(reached) + 1):
        verdict = look_verdict(array, criterion, look, schedule, test=test, block=block,
                               final=look == len(reached))
        if verdict is not None:
            return verdict
    raise AssertionError("the last look reached gives a verdict")


def first_decisive_look(criterion: Criterion, first: int, max_n: int, score: float, *,
                        test: str = DEFAULT_TEST, block: int = 1) -> int | None:
    """After how many questions the sequential test decides when every answer scores `score`
    (1: a perfect model; 0: one always ridiculous); None when the budget never does."""
    schedule = schedule_of(test, first, max_n, block)
    if test != DOUBLING:
        needed = betting.constant_decides_at(criterion, float(score))
        return None if needed is None else next((n for n in schedule if n >= needed), None)
    scores = np.full(max_n, float(score))
    for look, n in enumerate(schedule, 1):
        if certify_at_look(scores, criterion, look, schedule).decision != Decision.INCONCLUSIVE:
            return n
    return None


def perfect_reach(criterion: Criterion, budget: int, *, sequential: bool,
                  first_look: int = 16, test: str = DEFAULT_TEST,
                  block: int = 1) -> int | None:
    """After how many questions a perfect model (every answer scores 1) is certified as
    understanding within `budget`: the fixed-n run of `budget` questions, or the sequential
    test's looks from first_look up to `budget`; None when the budget never does."""
    if not sequential:
        n = samples_needed(criterion, 1.0, 0.0)
        return budget if n is not None and n <= budget else None
    return first_decisive_look(criterion, first_look, budget, 1.0, test=test, block=block)


def fewest_questions(criterion: Criterion, score: float, *, sequential: bool,
                     first_look: int = 16, test: str = DEFAULT_TEST) -> int | None:
    """The smallest budget (a fixed n, or the last look of looks from first_look) at which a
    model whose every answer scores `score` (1: perfect; 0: ridiculous) gets its verdict; any
    larger budget gets it too. None past 2**44 questions."""
    rates = (1.0, 0.0) if score == 1 else (0.0, 1.0)
    if not sequential:
        return samples_needed(criterion, *rates)
    if test != DOUBLING:  # the budget is always a look, and the wealths only grow
        needed = betting.constant_decides_at(criterion, float(score))
        return None if needed is None else max(needed, first_look)
    for look in range(1, _MAX_LOOKS + 1):
        # a budget in (checkpoint/2, checkpoint] is look `look`, tested at δ_look
        checkpoint = first_look * 2 ** (look - 1)
        needed = samples_needed(replace(criterion, delta=look_delta(criterion.delta, look)),
                                *rates)
        if needed is None:
            return None
        if needed <= checkpoint:
            return first_look if look == 1 else max(needed, checkpoint // 2 + 1)
    return None


def _grid(start: float, step: int) -> list[float]:
    """`start`, then the values of the 0.01 grid beyond it, downward (step -1) or up (+1)."""
    first = math.floor(start * 100 + 1e-9) if step < 0 else math.ceil(start * 100 - 1e-9)
    return [start, *(k / 100 for k in range(first, 0 if step < 0 else 100, step)
                     if (k / 100 - start) * step > 1e-12)]


def loosened(criterion: Criterion, budget: int, *, sequential: bool,
             first_look: int = 16, test: str = DEFAULT_TEST) -> Criterion | None:
    """A criterion at the same δ, its PG no higher and RID no lower (on a grid of 0.01), under
    which `budget` certifies a perfect model; None where that would need PG <= RID."""
    if sequential and test != DOUBLING:  # at the budget, each wealth on its own threshold
        def within(test_id: str, theta: float) -> bool:
            n = betting.first_crossing(test_id, theta, criterion.delta, 1.0)
            return n is not None and n <= budget

        pg = next((p for p in _grid(criterion.pg, -1) if within("good_grade", p)), None)
        rid = next((r for r in _grid(criterion.rid, +1) if within("good_rid", r)), None)
        if pg is None or rid is None or not 0 < rid < pg < 1:
            return None
        return replace(criterion, pg=pg, rid=rid)
    if sequential:
        schedule = checkpoints(first_look, budget)
        best = max(float(chernoff_lower(1.0, n, look_delta(criterion.delta, look)))
                   for look, n in enumerate(schedule, 1))
    else:
        best = float(chernoff_lower(1.0, budget, criterion.delta))
    # all answers right: L(1, n, d) = d^(1/n) must reach PG, U(0, n, d) = 1 - d^(1/n) stay <= RID
    pg = min(criterion.pg, math.floor(best * 100) / 100)
    rid = max(criterion.rid, math.ceil((1 - best) * 100) / 100)
    for _ in range(3):  # the bounds' last bits may land on the grid: one step further out
        if not 0 < rid < pg < 1:
            return None
        looser = replace(criterion, pg=pg, rid=rid)
        if perfect_reach(looser, budget, sequential=sequential, first_look=first_look,
                         test=DOUBLING):
            return looser
        pg = round(pg - 0.01, 2) if pg != criterion.pg else pg
        rid = round(rid + 0.01, 2) if rid != criterion.rid else rid
    return None


def _setting(criterion: Criterion, budget: int, sequential: bool, first_look: int) -> str:
    run = f"looks from {first_look} up to {budget:,}" if sequential else f"{budget:,} questions"
    return f"with PG {criterion.pg:g}, RID {criterion.rid:g}, δ {criterion.delta:g}, {run}"


def _budget(sequential: bool, questions: int) -> str:
    """The budget parameter set to `questions` ("max_questions=59", "--questions 59")."""
    return setting("max_questions" if sequential else "questions", questions)


def unreachable(criterion: Criterion, budget: int, *, sequential: bool,
                first_look: int = 16, test: str = DEFAULT_TEST, block: int = 1) -> str | None:
    """Why `budget` questions cannot certify even a perfect model, and the values that would
    (the fewest questions, and a looser PG or RID at this budget), in one line; None when
    they can."""
    if perfect_reach(criterion, budget, sequential=sequential, first_look=first_look,
                     test=test, block=block):
        return None
    ways = []
    if (fewest := fewest_questions(criterion, 1.0, sequential=sequential,
                                   first_look=first_look, test=test)) is not None:
        ways.append(f"use {_budget(sequential, fewest)} or more")
    if (looser := loosened(criterion, budget, sequential=sequential,
                           first_look=first_look, test=test)) is not None:
        ways.append(" ".join(setting(name, new) for name, old, new in (
            ("pg", criterion.pg, looser.pg), ("rid", criterion.rid, looser.rid)) if new != old))
    return (f"{_setting(criterion, budget, sequential, first_look)} cannot certify even a "
            f"perfect model: {', or '.join(ways) or default_way()}")


def default_way() -> str:
    """The advice when no value would do: loosen the criterion."""
    return f"lower {parameter('pg')} or raise {parameter('rid')}"


def unrefutable(criterion: Criterion, budget: int, *, sequential: bool,
                first_look: int = 16, test: str = DEFAULT_TEST, block: int = 1) -> str | None:
    """Why `budget` questions cannot find even a model whose every answer scores 0 not to
    understand, and the fewest that would, in one line; None when they can."""
    if sequential and first_decisive_look(criterion, first_look, budget, 0.0, test=test,
                                          block=block) is not None:
        return None
    fewest = fewest_questions(criterion, 0.0, sequential=sequential, first_look=first_look,
                              test=test)
    if not sequential and fewest is not None and fewest <= budget:
        return None
    return (f"{_setting(criterion, budget, sequential, first_look)} cannot find that even a "
            f"model whose every answer scores 0 does not understand: use "
            f"{_budget(sequential, fewest or 2**44)} or more")


def budget_warnings(criterion: Criterion, budget: int, *, sequential: bool, first_look: int,
                    still: str, test: str = DEFAULT_TEST, block: int = 1) -> list[str]:
    """One line for each verdict `budget` cannot reach at all, naming values that would; one
    line when it can reach neither. `still` ends the line of a budget that can find a model
    not to understand but not certify one ("the audit can still find that ...")."""
    no_certify = unreachable(criterion, budget, sequential=sequential, first_look=first_look,
                             test=test, block=block)
    no_refute = unrefutable(criterion, budget, sequential=sequential, first_look=first_look,
                            test=test, block=block)
    if no_certify and no_refute:
        fewest = [fewest_questions(criterion, score, sequential=sequential,
                                   first_look=first_look, test=test) for score in (1.0, 0.0)]
        enough = max(n if n is not None else 2**44 for n in fewest)
        return [f"{_setting(criterion, budget, sequential, first_look)} can decide nothing, "
                "not even for a perfect model or one whose every answer scores 0: use "
                f"{_budget(sequential, enough)} or more"]
    if no_certify:
        return [f"{no_certify}; {still}"]
    return [no_refute] if no_refute else []
