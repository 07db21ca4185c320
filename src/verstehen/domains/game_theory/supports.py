"""Whether a two-player game has a Nash equilibrium in which some player mixes, decided exactly.

(x, y) with supports S and T is an equilibrium iff S holds only best responses to y and T only
best responses to x. Each condition is a linear feasibility problem, solved in exact rational
arithmetic by phase one of the simplex method (Bland's rule), so degenerate games (ties,
continua of equilibria) are decided as exactly as generic ones. The search over support pairs is
exponential in the number of strategies; callers bound the game's size.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

from verstehen.domains.game_theory import checks
from verstehen.domains.game_theory.game import Game


def mixed_supports(game: Game) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Supports (rows, columns) of a Nash equilibrium where some player mixes, or None.

    (x, y) with supports S, T is an equilibrium iff S holds only best responses to y and T
    only best responses to x; the two conditions are separate linear systems.
    """
    u1, u2 = checks.own_payoffs(game, 1), checks.own_payoffs(game, 2)
    m, n = game.shape
    rows = [s for k in range(1, m + 1) for s in combinations(range(m), k)]
    cols = [t for k in range(1, n + 1) for t in combinations(range(n), k)]
    # A support that cannot make some replies all best cannot make more of them best either.
    no_x: dict[tuple[int, ...], list[set[int]]] = {s: [] for s in rows}
    no_y: dict[tuple[int, ...], list[set[int]]] = {t: [] for t in cols}
    for s in rows:
        for t in cols:
            if len(s) + len(t) < 3 or any(d <= set(t) for d in no_x[s]) or any(
                    d <= set(s) for d in no_y[t]):
                continue
            if not _mix_exists(u2, s, t):
                no_x[s].append(set(t))
            elif not _mix_exists(u1, t, s):
                no_y[t].append(set(s))
            else:
                return s, t
    return None


def _mix_exists(u: list[list[Fraction]], support: tuple[int, ...],
                replies: tuple[int, ...]) -> bool:
    """Whether a mix giving exactly `support` positive weight makes every strategy in `replies`
    a best response; u[r][k] pays the responder r against the mixer's k.

    The conditions are homogeneous, so scale the mix to weights x >= 1 instead of x > 0 with
    sum 1, and write x = 1 + z with z >= 0 (and a slack w >= 0 per inequality).
    """
    value = [[u[r][s] for s in support] for r in range(len(u))]
    best = value[replies[0]]
    others = [r for r in range(len(u)) if r not in replies]
    rows: list[list[Fraction]] = []
    rhs: list[Fraction] = []
    for r in [*replies[1:], *others]:
        diff = [a - b for a, b in zip(best, value[r], strict=True)]  # best - r, per weight
        slack = [Fraction(-int(r == o)) for o in others]  # (best - r).z - w_r = -(best - r).1
        rows.append(diff + slack)
        rhs.append(-sum(diff, Fraction(0)))
    return _nonnegative_solution(rows, rhs)


def _nonnegative_solution(a: list[list[Fraction]], b: list[Fraction]) -> bool:
    """Whether some v >= 0 has a v = b: phase one of the simplex method, exact, Bland's rule."""
    if not a:
        return True
    n, m = len(a[0]), len(a)
    # One artificial variable per row, in a tableau whose rows have b >= 0.
    tab = [[*(x if bi >= 0 else -x for x in row), *(Fraction(int(i == k)) for k in range(m)),
            abs(bi)] for i, (row, bi) in enumerate(zip(a, b, strict=True))]
    basis = [n + i for i in range(m)]
    # The sum of the artificials is cost[-1] negated; cost[j] is its change per unit of v_j.
    cost = [-sum((r[j] for r in tab), Fraction(0)) if j < n else Fraction(0)
            for j in range(n + m)] + [-sum((r[-1] for r in tab), Fraction(0))]
    while (enter := next((j for j in range(n + m) if cost[j] < 0), None)) is not None:
        _, _, p = min((tab[i][-1] / tab[i][enter], basis[i], i)
                      for i in range(m) if tab[i][enter] > 0)
        pivot = [x / tab[p][enter] for x in tab[p]]
        tab = [pivot if i == p else [x - r[enter] * y for x, y in zip(r, pivot, strict=True)]
               for i, r in enumerate(tab)]
        cost = [x - cost[enter] * y for x, y in zip(cost, pivot, strict=True)]
        basis[p] = enter
    return cost[-1] == 0
