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

from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

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


def unreachable(criterion: Criterion, budget: int, *, sequential: bool,
                first_look: int = 16) -> str | None:
    """Why `budget` questions cannot certify even a perfect model, and what would (one line
    without advice on flags); None when they can."""
    if perfect_reach(criterion, budget, sequential=sequential, first_look=first_look):
        return None
    fixed = samples_needed(criterion, 1.0, 0.0)
    looks = sequential_samples_needed(criterion, 1.0, 0.0, first=first_look)
    run = (f"sequential looks from {first_look} up to {budget}" if sequential
           else f"{budget} questions")
    return (f"with PG {criterion.pg:g}, RID {criterion.rid:.3g} and δ {criterion.delta:g}, "
            f"{run} cannot certify even a perfect model as understanding: that takes "
            f"{fixed:,} questions at a fixed n, or sequential looks up to {looks:,}")
