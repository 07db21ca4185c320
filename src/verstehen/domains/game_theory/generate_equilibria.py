"""Random games with (or narrowly without) a planted pure or mixed Nash equilibrium or best
response; conventions as in `generate`."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import ceil, floor, lcm

import numpy as np

from verstehen.domains.game_theory.checks import is_pure_nash
from verstehen.domains.game_theory.game import Game
from verstehen.domains.game_theory.generate import (
    Grid,
    Values,
    make_game,
    payoff_values,
    random_grid,
    transpose_grid,
)

# ---------------------------------------------------------------- pure Nash equilibria

def pure_nash_game(rng: np.random.Generator, shape: tuple[int, int], cell: tuple[int, int], *,
                   positive: bool = True, payoffs: tuple[int, Sequence[int]] | None = None,
                   only: bool = False, unique: bool = False) -> Game:
    """A game where `cell` is (positive) or just fails to be (negative) a pure Nash equilibrium.

    `payoffs = (1, values)` fixes player 1's payoffs in the cell's row (against each column);
    `(2, values)` fixes player 2's in its column. `only`: the cell is the only pure equilibrium.
    """
    m, n = shape
    i, j = cell
    for _ in range(200):
        vals = payoff_values(rng, shape, unique)
        u1: list[list[int | None]] = [[None] * n for _ in range(m)]
        u2: list[list[int | None]] = [[None] * n for _ in range(m)]
        if payoffs and payoffs[0] == 1:
            u1[i] = [vals.use(int(v)) for v in payoffs[1]]
        if payoffs and payoffs[0] == 2:
            for k in range(m):
                u2[k][j] = vals.use(int(payoffs[1][k]))
        column = _weak_top(vals, [u1[k][j] for k in range(m)], i)
        for k in range(m):
            u1[k][j] = column[k]
        u2[i] = list(_weak_top(vals, u2[i], j))
        g1 = [[vals.draw() if x is None else x for x in r] for r in u1]
        g2 = [[vals.draw() if x is None else x for x in r] for r in u2]
        if not positive:
            _break_nash(vals, g1, g2, i, j)
        game = make_game(g1, g2)
        if is_pure_nash(game, i, j) == positive and (not only or _only_pure_nash(game, cell)):
            return game
    raise RuntimeError("could not build the pure-Nash game")


def _weak_top(vals: Values, line: list[int | None], best: int) -> list[int]:
    """Fill the unset entries so that line[best] is weakly the largest."""
    cap = line[best]
    if cap is None:
        filled = [vals.draw() if x is None else x for x in line]
        top = max(x for k, x in enumerate(filled) if k != best)
        filled[best] = vals.draw(above=top - 1)
        return filled
    return [vals.draw(below=cap + 1) if x is None else x for x in line]


def _break_nash(vals: Values, u1: Grid, u2: Grid, i: int, j: int) -> None:
    """Give one player a profitable one-step deviation from (i, j), within the payoff range."""
    m, n = len(u1), len(u1[0])
    if vals.rng.random() < 0.5:
        k = int(vals.rng.choice([x for x in range(m) if x != i]))
        if u1[i][j] < vals.hi or vals.unique:
            u1[k][j] = vals.draw(above=u1[i][j])
        else:
            k = max((x for x in range(m) if x != i), key=lambda x: u1[x][j])
            u1[i][j] = vals.draw(below=u1[k][j])
    else:
        k = int(vals.rng.choice([x for x in range(n) if x != j]))
        if u2[i][j] < vals.hi or vals.unique:
            u2[i][k] = vals.draw(above=u2[i][j])
        else:
            k = max((x for x in range(n) if x != j), key=lambda x: u2[i][x])
            u2[i][j] = vals.draw(below=u2[i][k])


def _only_pure_nash(game: Game, cell: tuple[int, int]) -> bool:
    m, n = game.shape
    return all((r, c) == cell or not is_pure_nash(game, r, c) for r in range(m) for c in range(n))


# ---------------------------------------------------------------- mixed Nash equilibria

def mixed_nash_game(rng: np.random.Generator, p: Fraction, q: Fraction) -> Game:
    """A 2x2 game whose only fully mixed equilibrium is R1 w.p. p and C1 w.p. q (0 < p, q < 1).

    Player 2 is indifferent exactly when player 1 mixes p:(1-p), and player 1 exactly when
    player 2 mixes q:(1-q); the differences are set in closed form, so denominators up to 10 fit
    payoffs in 0..9.
    """
    if not (0 < p < 1 and 0 < q < 1) or p.denominator > 10 or q.denominator > 10:
        raise ValueError("p and q must lie strictly between 0 and 1, denominators up to 10")

    def pair(a: int, b: int) -> tuple[int, int, int, int]:
        # x0 - x1 = s*(b - a) and y1 - y0 = s*a, all four in 0..9
        s = 1 if rng.random() < 0.5 else -1
        d, e = s * (b - a), s * a
        x1 = int(rng.integers(max(0, -d), min(9, 9 - d) + 1))
        y0 = int(rng.integers(max(0, -e), min(9, 9 - e) + 1))
        return x1 + d, x1, y0, y0 + e

    # player 2 indifferent: p*(B00 - B01) = (1-p)*(B11 - B10)
    b00, b01, b10, b11 = pair(p.numerator, p.denominator)
    # player 1 indifferent: q*(A00 - A10) = (1-q)*(A11 - A01)
    a00, a10, a01, a11 = pair(q.numerator, q.denominator)
    return make_game([[a00, a01], [a10, a11]], [[b00, b01], [b10, b11]])


# ---------------------------------------------------------------- best responses

def decimal_mix(rng: np.random.Generator, k: int) -> tuple[Fraction, ...]:
    """k probabilities, multiples of 0.1 (zeros allowed), summing to 1."""
    cuts = sorted(rng.integers(0, 11, size=k - 1).tolist())
    bounds = [0, *cuts, 10]
    return tuple(Fraction(bounds[t + 1] - bounds[t], 10) for t in range(k))


def best_response_game(rng: np.random.Generator, shape: tuple[int, int], player: int,
                       mix: Sequence[Fraction], strategy: int, *, positive: bool = True,
                       only: bool = False, unique: bool = False) -> Game:
    """A game where `strategy` of `player` is (or, negative, just fails to be) a best response.

    `mix` is the opponent's mixed strategy; `only`: the sole best response. Of random games,
    one where `strategy` is already on the asked side, by at most 2, is taken, and its payoffs
    for `strategy` are shifted by a whole number so that the gap to the best other strategy is
    at most 1; then all the responder's payoffs move together (which changes no comparison)
    back into 0..9
    where their spread allows.
    """
    m, n = shape
    if len(mix) != (n if player == 1 else m):
        raise ValueError("the mix must cover the opponent's strategies")
    den = lcm(*(Fraction(p).denominator for p in mix))
    weights = [int(Fraction(p) * den) for p in mix]  # integer sums are much faster
    for _ in range(100):  # start on the right side and close, so the shift below stays small
        vals = payoff_values(rng, shape, unique)
        g1, g2 = random_grid(vals, m, n), random_grid(vals, m, n)
        grid = g1 if player == 1 else transpose_grid(g2)  # [own][opp]
        value = [sum(w * a for w, a in zip(weights, row, strict=True)) for row in grid]
        gap = Fraction(max(v for s, v in enumerate(value) if s != strategy) - value[strategy],
                       den)
        if (gap < 0 if only else gap <= 0) == positive and abs(gap) <= 2:
            break
    shift = (floor(gap) + 1 if only else ceil(gap)) if positive else ceil(gap) - 1
    if unique:  # shift further (the same way) until no payoff repeats
        taken = {x for r in g1 + g2 for x in r} - set(grid[strategy])
        while any(a + shift in taken for a in grid[strategy]):
            shift += 1 if positive else -1
    grid[strategy] = [a + shift for a in grid[strategy]]
    if not unique:  # move all the responder's payoffs back into 0..9 where they fit
        lo, hi = min(map(min, grid)), max(map(max, grid))
        move = int(rng.integers(max(0, 9 - hi + lo) + 1)) - lo
        grid = [[a + move for a in row] for row in grid]
    return make_game(grid, g2) if player == 1 else make_game(g1, transpose_grid(grid))
