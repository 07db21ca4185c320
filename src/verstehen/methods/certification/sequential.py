"""Sequential certification that stays valid when you stop at the first decisive look.

Looking at the evidence after every question and stopping when Procedure 4.1 first decides
inflates the error far beyond δ (each look is another chance to be fooled). We look only at
checkpoints fixed in advance, n_j = first·2^(j-1) (plus a final look at the budget), and run
Procedure 4.1 at look j with δ_j = 6δ/(π² j²). Since Σ_j δ_j = δ, the chance that *any* look
gives a wrong verdict is at most δ (union bound), whenever the run stops.

A run also stops, undecided, after a look from which "understands" is out of reach: when even
a perfect score on every remaining question up to the budget would not certify it at any later
look (`understands_reachable`). Stopping early can only turn a later verdict into
"inconclusive", never into a wrong one, so δ still bounds the error; it spends the budget on
models that can still be certified.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

from verstehen.methods.certification.bounds import chernoff_lower
from verstehen.methods.certification.decide import certify, check_scores
from verstehen.methods.certification.plan import samples_needed, sequential_samples_needed
from verstehen.methods.certification.verdict import (
    Criterion,
    Decision,
    SequentialLook,
    Verdict,
    checkpoints,
    look_delta,
)

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
    assert isinstance(verdict.details, SequentialLook)
    return replace(verdict, details=replace(verdict.details, out_of_reach=True))


def certify_sequential(scores: ArrayLike, pg: float, rid: float, delta: float, *,
                       first: int = 16, max_n: int | None = None) -> Verdict:
    """The verdict of the first decisive checkpoint the scores reach, else of the look after
    which "understands" is out of reach within the budget, else of the last one reached.

    `max_n` is the budget fixed before the run; None takes len(scores), which is right for one
    call on a finished run but not when called again as answers arrive (that adds looks).
    """
    criterion = Criterion(pg, rid, delta)
    array = check_scores(scores)
    schedule = checkpoints(first, max_n or array.size)
    reached = [n for n in schedule if n <= array.size]
    if not reached:
        raise ValueError(f"{array.size} scores do not reach the first checkpoint ({first})")
    verdict = None
    for look in range(1, len(reached) + 1):
        verdict = certify_at_look(array, criterion, look, schedule)
        if verdict.decision != Decision.INCONCLUSIVE:
            break
        if not understands_reachable(array, criterion, look, schedule):
            verdict = out_of_reach(verdict)
            break
    assert verdict is not None
    return verdict


def first_decisive_look(criterion: Criterion, first: int, max_n: int,
                        score: float) -> int | None:
    """After how many questions the sequential test decides when every answer scores `score`
    (1: a perfect model; 0: one always ridiculous); None when the budget never does."""
    schedule = checkpoints(first, max_n)
    scores = np.full(max_n, float(score))
    for look, n in enumerate(schedule, 1):
        if certify_at_look(scores, criterion, look, schedule).decision != Decision.INCONCLUSIVE:
            return n
    return None


def perfect_reach(criterion: Criterion, budget: int, *, sequential: bool,
                  first_look: int = 16) -> int | None:
    """After how many questions a perfect model (every answer scores 1) is certified as
    understanding within `budget`: the fixed-n run of `budget` questions, or the sequential
    looks first_look, 2·first_look, ... up to `budget`; None when the budget never does."""
    if not sequential:
        n = samples_needed(criterion, 1.0, 0.0)
        return budget if n is not None and n <= budget else None
    return first_decisive_look(criterion, first_look, budget, 1.0)


def fewest_questions(criterion: Criterion, score: float, *, sequential: bool,
                     first_look: int = 16) -> int | None:
    """The smallest budget (a fixed n, or the last look of looks from first_look) at which a
    model whose every answer scores `score` (1: perfect; 0: ridiculous) gets its verdict; any
    larger budget gets it too. None past 2**44 questions."""
    rates = (1.0, 0.0) if score == 1 else (0.0, 1.0)
    if not sequential:
        return samples_needed(criterion, *rates)
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


def loosened(criterion: Criterion, budget: int, *, sequential: bool,
             first_look: int = 16) -> Criterion | None:
    """A criterion at the same δ, its PG no higher and RID no lower (on a grid of 0.01), under
    which `budget` certifies a perfect model; None where that would need PG <= RID."""
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
        if perfect_reach(looser, budget, sequential=sequential, first_look=first_look):
            return looser
        pg = round(pg - 0.01, 2) if pg != criterion.pg else pg
        rid = round(rid + 0.01, 2) if rid != criterion.rid else rid
    return None


def _setting(criterion: Criterion, budget: int, sequential: bool, first_look: int) -> str:
    run = f"looks from {first_look} up to {budget:,}" if sequential else f"{budget:,} questions"
    return f"with PG {criterion.pg:g}, RID {criterion.rid:g}, δ {criterion.delta:g}, {run}"


def _budget_flag(sequential: bool) -> str:
    return "--max-questions" if sequential else "--questions"


def unreachable(criterion: Criterion, budget: int, *, sequential: bool,
                first_look: int = 16) -> str | None:
    """Why `budget` questions cannot certify even a perfect model, and the values that would
    (the fewest questions, and a looser PG or RID at this budget), in one line; None when
    they can."""
    if perfect_reach(criterion, budget, sequential=sequential, first_look=first_look):
        return None
    ways = []
    if (fewest := fewest_questions(criterion, 1.0, sequential=sequential,
                                   first_look=first_look)) is not None:
        ways.append(f"use {_budget_flag(sequential)} {fewest:,} or more")
    if (looser := loosened(criterion, budget, sequential=sequential,
                           first_look=first_look)) is not None:
        ways.append(" ".join(f"--{flag} {new:g}" for flag, old, new in (
            ("pg", criterion.pg, looser.pg), ("rid", criterion.rid, looser.rid)) if new != old))
    return (f"{_setting(criterion, budget, sequential, first_look)} cannot certify even a "
            f"perfect model: {', or '.join(ways) or 'lower --pg or raise --rid'}")


def unrefutable(criterion: Criterion, budget: int, *, sequential: bool,
                first_look: int = 16) -> str | None:
    """Why `budget` questions cannot find even a model whose every answer scores 0 not to
    understand, and the fewest that would, in one line; None when they can."""
    if sequential and first_decisive_look(criterion, first_look, budget, 0.0) is not None:
        return None
    fewest = fewest_questions(criterion, 0.0, sequential=sequential, first_look=first_look)
    if not sequential and fewest is not None and fewest <= budget:
        return None
    return (f"{_setting(criterion, budget, sequential, first_look)} cannot find that even a "
            f"model whose every answer scores 0 does not understand: use "
            f"{_budget_flag(sequential)} {fewest or 2**44:,} or more")


def budget_warnings(criterion: Criterion, budget: int, *, sequential: bool, first_look: int,
                    still: str) -> list[str]:
    """One line for each verdict `budget` cannot reach at all, naming values that would; one
    line when it can reach neither. `still` ends the line of a budget that can find a model
    not to understand but not certify one ("the audit can still find that ...")."""
    no_certify = unreachable(criterion, budget, sequential=sequential, first_look=first_look)
    no_refute = unrefutable(criterion, budget, sequential=sequential, first_look=first_look)
    if no_certify and no_refute:
        fewest = [fewest_questions(criterion, score, sequential=sequential,
                                   first_look=first_look) for score in (1.0, 0.0)]
        enough = max(n if n is not None else 2**44 for n in fewest)
        return [f"{_setting(criterion, budget, sequential, first_look)} can decide nothing, "
                "not even for a perfect model or one whose every answer scores 0: use "
                f"{_budget_flag(sequential)} {enough:,} or more"]
    if no_certify:
        return [f"{no_certify}; {still}"]
    return [no_refute] if no_refute else []
