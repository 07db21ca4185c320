"""Audit power: how often the audit's sequential test certifies a model of true accuracy p.

A concept's items score 1 or 0, so a model of true accuracy p gives independent 0/1 scores
with mean p, and the audit's criterion (PG 0.8, RID 0.2) holds exactly when p >= 0.8. For each
p this computes, exactly, the chance of each verdict under the audit's defaults (looks at 8,
16, ..., 512, δ_j = 6δ/(π² j²), the run stopping at a decisive look or once "understands" is out
of reach): a dynamic program over the number of right answers at each look, whose decisions
are the project's own (`certify`, `understands_reachable`). It prints the power curve
(P(understands)), P(does not understand), the expected questions asked, and the wrong-verdict
rate (understands when p < PG, does not understand when p >= PG), which must stay at most δ;
`--simulate N` checks the exact figures against N simulated audits per p. The older default
budget (looks up to 64) is shown beside.

Targets (issue 28): p = 0.90 certified in at least 80% of audits, p = 0.95 in at least 95%.

Run: python bench/audit_power.py [--max-questions 512] [--simulate 20000]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom

from verstehen.auditing.plan import DEFAULT_FIRST_LOOK, DEFAULT_MAX_QUESTIONS, make_plan
from verstehen.methods.certification.decide import certify
from verstehen.methods.certification.sequential import understands_reachable
from verstehen.methods.certification.verdict import Criterion, Decision, checkpoints, look_delta

ACCURACIES = (0.5, 0.6, 0.7, 0.75, 0.78, 0.8, 0.82, 0.85, 0.88, 0.9, 0.92, 0.95, 0.98, 1.0)
TARGETS = {0.9: 0.80, 0.95: 0.95}
UNDERSTANDS, DOES_NOT, GOES_ON = 0, 1, 2


@dataclass(frozen=True)
class Outcome:
    """The chances of each verdict for one true accuracy, and the mean questions asked."""

    p: float
    understands: float
    does_not: float
    inconclusive: float
    questions: float


def decisions(criterion: Criterion, schedule: list[int]) -> list[np.ndarray]:
    """Per look, what the test does after s right answers of n_j: certify, reject, or (for
    an undecided look from which "understands" is still reachable) go on; an undecided last
    look, or one out of reach, ends inconclusive (marked -1)."""
    table = []
    for look, n in enumerate(schedule, 1):
        row = np.full(n + 1, -1)
        for s in range(n + 1):
            scores = np.array([1.0] * s + [0.0] * (n - s))
            verdict = certify(scores, criterion.pg, criterion.rid,
                              look_delta(criterion.delta, look), plan_more=False)
            if verdict.decision == Decision.UNDERSTANDS:
                row[s] = UNDERSTANDS
            elif verdict.decision == Decision.DOES_NOT_UNDERSTAND:
                row[s] = DOES_NOT
            elif look < len(schedule) and understands_reachable(scores, criterion, look,
                                                                  schedule):
                row[s] = GOES_ON
        table.append(row)
    return table


def exact(p: float, schedule: list[int], table: list[np.ndarray]) -> Outcome:
    """The verdict chances for true accuracy p, by a dynamic program over right answers."""
    alive = np.array([1.0])  # P(still running, s right) before the first look, s = 0
    done = [0.0, 0.0, 0.0]
    questions, before = 0.0, 0
    for n, row in zip(schedule, table, strict=True):
        step = binom.pmf(np.arange(n - before + 1), n - before, p)
        now = np.convolve(alive, step)  # s right after n questions
        questions += alive.sum() * (n - before)
        for which in (UNDERSTANDS, DOES_NOT):
            done[which] += now[row == which].sum()
        done[2] += now[row == -1].sum()
        alive = np.where(row == GOES_ON, now, 0.0)
        before = n
    return Outcome(p, done[0], done[1], done[2], questions)


def simulated(p: float, schedule: list[int], table: list[np.ndarray], runs: int,
              rng: np.random.Generator) -> Outcome:
    """The same chances from `runs` simulated audits."""
    right = np.zeros(runs, dtype=int)
    state = np.full(runs, GOES_ON)
    asked = np.zeros(runs)
    before = 0
    for n, row in zip(schedule, table, strict=True):
        going = state == GOES_ON
        right[going] += rng.binomial(n - before, p, going.sum())
        asked[going] = n
        state[going] = row[right[going]]
        before = n
    return Outcome(p, float(np.mean(state == UNDERSTANDS)), float(np.mean(state == DOES_NOT)),
                   float(np.mean(state == -1)), float(asked.mean()))


def wrong(outcome: Outcome, pg: float) -> float:
    """The chance of a wrong verdict: understands below PG, does not understand at or above."""
    return outcome.understands if outcome.p < pg else outcome.does_not


def curve(max_questions: int, simulate: int, seed: int) -> list[tuple[Outcome, Outcome | None]]:
    """Exact (and simulated) outcomes per accuracy for one budget."""
    plan = make_plan(max_questions=max_questions, first_look=DEFAULT_FIRST_LOOK)
    schedule = checkpoints(plan.first_look, plan.max_questions)
    table = decisions(plan.criterion, schedule)
    rng = np.random.default_rng(seed)
    return [(exact(p, schedule, table),
             simulated(p, schedule, table, simulate, rng) if simulate else None)
            for p in ACCURACIES]


def main() -> int:
    """Print the power curve at the default budget and at the old one."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-questions", type=int, default=DEFAULT_MAX_QUESTIONS)
    parser.add_argument("--old-budget", type=int, default=64)
    parser.add_argument("--simulate", type=int, default=0, metavar="N",
                        help="also simulate N audits per accuracy")
    parser.add_argument("--seed", type=int, default=0)
    opts = parser.parse_args()
    plan = make_plan(max_questions=opts.max_questions)
    c = plan.criterion
    print(f"audit defaults: PG {c.pg:g}, RID {c.rid:g}, δ {c.delta:g}, looks "
          f"{checkpoints(plan.first_look, plan.max_questions)}; true accuracy p on 0/1 items")
    old = {o.p: o for o, _ in curve(opts.old_budget, 0, opts.seed)}
    rows = curve(opts.max_questions, opts.simulate, opts.seed)
    head = (f"{'p':>5} {'understands':>11} {'does not':>9} {'inconcl.':>9} {'questions':>9} "
            f"{'wrong':>8}  {'up to ' + str(opts.old_budget) + ': understands':>22}")
    print(head + ("  simulated: understands, wrong" if opts.simulate else ""))
    worst = 0.0
    for o, sim in rows:
        worst = max(worst, wrong(o, c.pg))
        line = (f"{o.p:5.2f} {o.understands:11.4f} {o.does_not:9.4f} {o.inconclusive:9.4f} "
                f"{o.questions:9.1f} {wrong(o, c.pg):8.5f}  {old[o.p].understands:22.4f}")
        if sim is not None:
            line += f"  {sim.understands:.4f}, {wrong(sim, c.pg):.5f}"
        print(line)
    by_p = {o.p: o for o, _ in rows}
    for p, target in TARGETS.items():
        got = by_p[p].understands
        print(f"p = {p:.2f}: certified in {got:.1%} of audits, target {target:.0%}: "
              f"{'PASS' if got >= target else 'MISS'}")
    print(f"largest wrong-verdict rate: {worst:.5f}, δ = {c.delta:g}: "
          f"{'PASS' if worst <= c.delta else 'MISS'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
