"""Audit power: how often, and after how many questions, each sequential test certifies a model
of true accuracy p, under the audit's defaults (PG 0.8, RID 0.2, δ 0.05, budget 512, first
look 8, a concept's questions in blocks of four strata).

Designs side by side (issue 46):
  doubling    Procedure 4.1 at looks 8, 16, ..., 512 at δ_j = 6δ/(π² j²) (the audit's test
              before: `certify --sequential-test doubling`)
  spending    Procedure 4.1 at the betting test's looks (8, 12, 16, 20, ..., about 1/8 apart)
              at δ_j = 6δ/(π² j²)
  bonferroni  the same looks at δ/K each (K looks)
  betting     the mixture of bets (`methods/certification/betting.py`, the default), at the
              same looks
and the oracle, ln(1/δ)/KL(p ‖ PG) (ln(2/δ) below PG): what a test that knew p would need.

Exact where the scores are 0/1 (a dynamic program over the number right, `power.py`, whose
decisions are the project's own): for independent draws, and for stratified draws with
unequal task accuracies. Partial credit (scores in {0, 1/2, 2/3, 5/6, 1}, a tenth of the
wrong share ridiculous) is simulated, --runs at the boundary mean = PG (at least 100,000 by
default) and a fifth of that elsewhere. A wrong verdict: "understands" when p < PG (at p = PG
too: the column `wrong` there is P(understands)), "does not understand" when p >= PG.

Targets (issue 46): expected questions at most 0.65 x the doubling test's at p = 0.90, 0.95
and 1.0, at most 0.8 x at 0.6, no more at 0.75; certified in at least 98% of audits at
p = 0.90 and 85% at 0.88; the wrong-verdict rate at most δ everywhere.

Run: python bench/audit_power.py [--max-questions 512] [--runs 100000] [--simulate N]
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence

import numpy as np

from verstehen.auditing.plan import CONCEPT_BLOCK, DEFAULT_FIRST_LOOK, make_plan
from verstehen.methods.certification import betting
from verstehen.methods.certification.bounds import chernoff_lower, chernoff_upper, kl_bernoulli
from verstehen.methods.certification.power import (
    DOES_NOT,
    GOES_ON,
    STOPS,
    UNDERSTANDS,
    Chances,
    chances,
    decision_table,
)
from verstehen.methods.certification.verdict import DOUBLING, Criterion, checkpoints, look_delta

ACCURACIES = (0.5, 0.6, 0.7, 0.75, 0.78, 0.8, 0.82, 0.85, 0.88, 0.9, 0.92, 0.95, 0.98, 1.0)
DESIGNS = ("doubling", "spending", "bonferroni", "betting")
RATIO_TARGETS = {0.9: 0.65, 0.95: 0.65, 1.0: 0.65, 0.6: 0.8, 0.75: 1.0}
CERTIFY_TARGETS = {0.9: 0.98, 0.88: 0.85}
PARTIAL = (0.0, 1 / 2, 2 / 3, 5 / 6, 1.0)  # partial credit in sixths, as arithmetic's digits


class Design:
    """A sequential test at its looks: what it does at each look for 0/1 counts (exact), and
    for samples given as counts of each score value (simulated)."""

    def __init__(self, name: str, criterion: Criterion, budget: int, first: int,
                 block: int) -> None:
        self.name, self.c = name, criterion
        self.looks = (checkpoints(first, budget) if name == DOUBLING
                      else betting.looks(first, budget, block))
        k = len(self.looks)
        spending = [look_delta(criterion.delta, j) for j in range(1, k + 1)]
        self.deltas = {"doubling": None, "betting": None, "spending": spending,
                       "bonferroni": [criterion.delta / k] * k}[name]
        test = "betting" if name == "betting" else DOUBLING
        self.table = decision_table(criterion, self.looks, test, self.deltas)
        self.spent = self.deltas or spending
        self.edges = self._edges() if name != "betting" else {}

    def exact(self, strata: Sequence[float]) -> Chances:
        """The verdict chances of a model right with probability p_k on stratum k."""
        return chances(self.table, self.looks, strata)

    def _edges(self) -> dict[str, np.ndarray]:
        """Procedure 4.1's four tests at each look as edges of the observed rate: certify
        when mean >= grade and zero share <= rid; refute when mean < low or zeros > high."""
        n, d = np.array(self.looks, dtype=float), np.array(self.spent)
        return {"grade": _edge(lambda x: np.asarray(chernoff_lower(x, n, d)) >= self.c.pg),
                "rid": _edge(lambda x: np.asarray(chernoff_upper(x, n, d)) > self.c.rid),
                "low": _edge(lambda x: np.asarray(chernoff_upper(x, n, d / 2)) >= self.c.pg),
                "high": _edge(lambda x: np.asarray(chernoff_lower(x, n, d / 2)) > self.c.rid)}

    def _certifies(self, total: np.ndarray, zeros: np.ndarray, n: int, j: int) -> np.ndarray:
        if self.name == "betting":
            return ((betting.counts_log_wealth(total, PARTIAL, self.c.pg, upward=True)
                     >= math.log(1 / self.c.delta))
                    & (_rid_wealth(zeros, n, self.c.rid, upward=False)
                       >= math.log(1 / self.c.delta)))
        mean = total @ np.array(PARTIAL) / n
        return (mean >= self.edges["grade"][j]) & (zeros / n < self.edges["rid"][j])

    def codes(self, j: int, counts: np.ndarray) -> np.ndarray:
        """What look j does for each sample (counts of each PARTIAL value, one row each)."""
        n, zeros = self.looks[j], counts[:, 0]
        certify = self._certifies(counts, zeros, n, j)
        if self.name == "betting":
            bad = math.log(2 / self.c.delta)
            refute = ((betting.counts_log_wealth(counts, PARTIAL, self.c.pg, upward=False)
                       >= bad) | (_rid_wealth(zeros, n, self.c.rid, upward=True) >= bad))
            later = [len(self.looks) - 1] if j < len(self.looks) - 1 else []
        else:
            mean = counts @ np.array(PARTIAL) / n
            refute = (mean < self.edges["low"][j]) | (zeros / n >= self.edges["high"][j])
            later = list(range(j + 1, len(self.looks)))
        reach = np.zeros(len(counts), dtype=bool)
        for k in later:  # every later answer right (score 1)
            more = counts.copy()
            more[:, -1] += self.looks[k] - n
            reach |= self._certifies(more, zeros, self.looks[k], k)
        row = np.where(reach, GOES_ON, STOPS)
        row[refute & ~certify] = DOES_NOT
        row[certify] = UNDERSTANDS
        return row


def _edge(holds: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Where a test that holds from some rate on starts holding, at each look: the least x in
    [0, 1] with holds(x) (1 + 1e-9 where none does), by bisection."""
    size = holds(np.zeros(1)).size
    lo, hi = np.zeros(size), np.ones(size)
    never = ~holds(hi)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        yes = holds(mid)
        lo, hi = np.where(yes, lo, mid), np.where(yes, mid, hi)
    hi[holds(np.zeros(size))] = 0.0
    hi[never] = 1 + 1e-9
    return hi


def _rid_wealth(zeros: np.ndarray, n: int, rid: float, upward: bool) -> np.ndarray:
    return betting.counts_log_wealth(np.stack([n - zeros, zeros], axis=-1), [0.0, 1.0], rid,
                                     upward=upward)


def simulate(design: Design, law: Sequence[float], runs: int,
             rng: np.random.Generator) -> Chances:
    """The verdict chances of `runs` simulated audits whose scores take the PARTIAL values
    with probabilities `law`, independently."""
    done, questions = np.zeros(3), 0.0
    for start in range(0, runs, 25_000):
        size = min(25_000, runs - start)
        counts = np.zeros((size, len(PARTIAL)))
        state = np.full(size, GOES_ON)
        before = 0
        for j, n in enumerate(design.looks):
            going = np.flatnonzero(state == GOES_ON)
            counts[going] += rng.multinomial(n - before, law, size=going.size)
            questions += going.size * (n - before)
            state[going] = design.codes(j, counts[going])
            before = n
        done += [np.sum(state == UNDERSTANDS), np.sum(state == DOES_NOT),
                 np.sum(state == STOPS)]
    return Chances(done[0] / runs, done[1] / runs, done[2] / runs, questions / runs)


def partial_law(mean: float) -> list[float]:
    """Scores in PARTIAL with the given mean: 0 with probability (1 - mean)/2, 1 with
    3·mean - 2(1 - P(0)), the rest spread evenly over 1/2, 2/3, 5/6 (mean 2/3)."""
    zero = (1 - mean) / 2
    one = 3 * mean - 2 * (1 - zero)
    rest = (1 - zero - one) / 3
    return [zero, rest, rest, rest, one]


def oracle(p: float, c: Criterion) -> float:
    """ln(1/δ)/KL(p ‖ PG) above PG, ln(2/δ)/KL below: a test that knew p; inf at PG."""
    kl = float(kl_bernoulli(p, c.pg))
    return math.inf if kl == 0 else math.log((1 if p > c.pg else 2) / c.delta) / kl


def wrong(o: Chances, p: float, c: Criterion) -> float:
    """The wrong-verdict rate at p: understands below PG, does not understand above; on PG
    either is (the larger is shown)."""
    if p == c.pg:
        return max(o.understands, o.does_not)
    return o.wrong(p > c.pg)


def table(title: str, rows: list[tuple[float, dict[str, Chances]]], c: Criterion,
          show_oracle: bool) -> float:
    """Print one scenario's table; its largest wrong-verdict rate."""
    print(f"\n{title}")
    print(f"{'p':>5} " + " ".join(f"{d + ': E[n]':>16} {'P(und.)':>8} {'wrong':>8}"
                                  for d in DESIGNS) + ("  oracle" if show_oracle else ""))
    worst = 0.0
    for p, out in rows:
        cells = []
        for d in DESIGNS:
            o = out[d]
            worst = max(worst, wrong(o, p, c))
            cells.append(f"{o.questions:16.1f} {o.understands:8.4f} {wrong(o, p, c):8.5f}")
        print(f"{p:5.2f} " + " ".join(cells)
              + (f"  {oracle(p, c):6.1f}" if show_oracle else ""))
    return worst


def strata_of(mean: float) -> tuple[float, ...]:
    """Unequal task accuracies of a concept averaging `mean`: classify (two strata) 0.1
    above, generate and edit 0.1 below, as far as [0, 1] allows."""
    up = min(0.1, 1 - mean, mean)
    return (mean + up, mean + up, mean - up, mean - up)


def main() -> int:
    """Print each scenario's table, the summary against the doubling test, the targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-questions", type=int, default=512)
    parser.add_argument("--old-budget", type=int, default=64,
                        help="also say P(understands) of the doubling test at this budget")
    parser.add_argument("--runs", type=int, default=100_000,
                        help="simulated audits of partial credit at mean = PG")
    parser.add_argument("--simulate", type=int, default=0, metavar="N",
                        help="also check the exact 0/1 figures against N simulated audits")
    parser.add_argument("--seed", type=int, default=0)
    opts = parser.parse_args()
    c = make_plan(max_questions=opts.max_questions).criterion
    budget, first = opts.max_questions, DEFAULT_FIRST_LOOK
    designs = {d: Design(d, c, budget, first, CONCEPT_BLOCK) for d in DESIGNS}
    print(f"PG {c.pg:g}, RID {c.rid:g}, δ {c.delta:g}, budget {budget}, first look {first}; "
          f"looks: doubling {designs['doubling'].looks}, the others "
          f"{designs['betting'].looks}")

    iid = [(p, {d: designs[d].exact([p]) for d in DESIGNS}) for p in ACCURACIES]
    worst = table("independent 0/1 scores, right with probability p (exact)", iid, c, True)
    stratified = [(p, {d: designs[d].exact(strata_of(p)) for d in DESIGNS})
                  for p in ACCURACIES]
    worst = max(worst, table("stratified 0/1 draws, classify 0.1 above p, generate and edit "
                             "0.1 below (exact)", stratified, c, False))
    rng = np.random.default_rng(opts.seed)
    partial = [(m, {d: simulate(designs[d], partial_law(m),
                                opts.runs if m == c.pg else max(opts.runs // 5, 1), rng)
                    for d in DESIGNS}) for m in ACCURACIES if m >= 0.5]
    worst = max(worst, table(f"partial credit, mean p (simulated: {opts.runs:,} runs at "
                             f"p = PG, {max(opts.runs // 5, 1):,} elsewhere)", partial, c,
                             False))
    if opts.simulate:
        print(f"\nexact against {opts.simulate:,} simulated audits (0/1 scores), betting: "
              "p, P(understands) exact / simulated, E[n] exact / simulated")
        for p, out in iid:
            sim = simulate(designs["betting"], [1 - p, 0, 0, 0, p], opts.simulate, rng)
            print(f"{p:5.2f} {out['betting'].understands:.4f} / {sim.understands:.4f}  "
                  f"{out['betting'].questions:.1f} / {sim.questions:.1f}")
    print("\nsummary, independent 0/1 scores: p, doubling E[n], betting E[n], ratio, "
          "P(understands) doubling / betting, wrong (betting)")
    for p, out in iid:
        old, new = out["doubling"], out["betting"]
        print(f"{p:5.2f} {old.questions:7.1f} {new.questions:7.1f} "
              f"{new.questions / old.questions:6.3f}  {old.understands:.4f} / "
              f"{new.understands:.4f}  {wrong(new, p, c):.5f}")
    by_p = dict(iid)
    for p, most in RATIO_TARGETS.items():
        if p in by_p:
            ratio = by_p[p]["betting"].questions / by_p[p]["doubling"].questions
            print(f"p = {p:.2f}: expected questions {ratio:.3f} x the doubling test's, at "
                  f"most {most:g}: {'PASS' if ratio <= most else 'MISS'}")
    for p, least in CERTIFY_TARGETS.items():
        got = by_p[p]["betting"].understands
        print(f"p = {p:.2f}: certified in {got:.1%} of audits, at least {least:.0%}: "
              f"{'PASS' if got >= least else 'MISS'}")
    older = Design("doubling", c, min(opts.old_budget, budget), first, CONCEPT_BLOCK)
    print(f"(the doubling test up to {older.looks[-1]} questions certifies p = 0.90 in "
          f"{older.exact([0.9]).understands:.1%} of audits)")
    print(f"largest wrong-verdict rate: {worst:.5f}, δ = {c.delta:g}: "
          f"{'PASS' if worst <= c.delta else 'MISS'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
