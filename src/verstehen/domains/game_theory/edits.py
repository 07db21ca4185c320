"""Changing a game so that a concept's claim holds, or fails: the edit items' references.

Each function builds the changed game directly from the definitions in `checks`, changing as
few payoffs as its construction needs, and only raising payoffs where it can, so a game shown
with non-negative payoffs stays non-negative (iterated dominance lowers dominated strategies,
then shifts the player's payoffs back up, which changes no comparison). The concepts verify the
result with their checker and fall back on `search_edit`, a bounded search, should a
construction ever miss (tests draw thousands of items and none does).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import product
from math import ceil, floor

from verstehen.domains.game_theory.checks import (
    expected_payoffs,
    iesds,
    own_payoffs,
    strictly_dominant,
    weakly_dominant,
)
from verstehen.domains.game_theory.game import Game

Grid = list[list[Fraction]]  # one player's payoffs [own strategy][opponent strategy]


def with_own(game: Game, player: int, grid: Grid) -> Game:
    """The game with one player's payoffs replaced by `grid` ([own][opponent], as
    `checks.own_payoffs` gives them)."""
    m, n = game.shape
    if player == 1:
        return Game(tuple(tuple((grid[i][j], game.cells[i][j][1]) for j in range(n))
                          for i in range(m)))
    return Game(tuple(tuple((game.cells[i][j][0], grid[j][i]) for j in range(n))
                      for i in range(m)))


def _by_sum(grid: Grid, among: Sequence[int]) -> int:
    """The strategy with the largest payoff total (the first such): the natural one to promote."""
    return max(among, key=lambda s: (sum(grid[s]), -s))


def _non_negative(grid: Grid) -> Grid:
    low = min(min(row) for row in grid)
    return grid if low >= 0 else [[x - low for x in row] for row in grid]


# ---------------------------------------------------------------- dominance

def make_dominant(game: Game, player: int) -> Game:
    """The player's strategy with the best total raised to beat every other one everywhere."""
    u = own_payoffs(game, player)
    s = _by_sum(u, range(len(u)))
    for o in range(len(u[0])):
        top = max(u[t][o] for t in range(len(u)) if t != s)
        u[s][o] = max(u[s][o], top + 1)
    return with_own(game, player, u)


def break_strict(game: Game, player: int) -> Game:
    """The strictly dominant strategy tied, in one cell, by the runner-up: it stays best
    everywhere but no longer strictly, and nothing else can beat it everywhere."""
    u = own_payoffs(game, player)
    s = strictly_dominant(game, player)
    if s is None:
        return game
    t = _by_sum(u, [x for x in range(len(u)) if x != s])
    o = min(range(len(u[0])), key=lambda k: (u[s][k] - u[t][k], k))
    u[t][o] = u[s][o]
    return with_own(game, player, u)


def break_weak(game: Game, player: int) -> Game:
    """The runner-up given the weakly dominant strategy's payoffs: two equal best strategies,
    so neither dominates the other and nothing else can dominate both."""
    u = own_payoffs(game, player)
    found = weakly_dominant(game, player)
    if not found:
        return game
    s = found[0]
    t = _by_sum(u, [x for x in range(len(u)) if x != s])
    u[t] = list(u[s])
    return with_own(game, player, u)


def _undominated_core(u: Grid, own: Sequence[int], opp: Sequence[int]) -> None:
    """Make no strategy in `own` strictly dominate another over `opp` (in place): with one
    opponent strategy all tie; else the first two opponent columns rise and fall in turn."""
    if len(own) < 2:
        return
    if len(opp) == 1:
        top = max(u[s][opp[0]] for s in own)
        for s in own:
            u[s][opp[0]] = top
        return
    if not any(all(u[s][o] > u[t][o] for o in opp) for s in own for t in own if s != t):
        return
    for rank, s in enumerate(own):
        u[s][opp[0]], u[s][opp[1]] = Fraction(rank + 1), Fraction(len(own) - rank)


def make_survivors(game: Game, rows: Sequence[int], cols: Sequence[int]) -> Game:
    """A game whose iterated strict dominance leaves exactly `rows` and `cols`.

    No survivor dominates another over the survivors; every other strategy is lowered, where
    it is not already, to below the first survivor everywhere. A survivor can then never be
    dominated (by transitivity it would be dominated by a survivor over the survivors), and
    every other strategy always is.
    """
    out = game
    for player, keep, other in ((1, rows, cols), (2, cols, rows)):
        u = own_payoffs(out, player)
        _undominated_core(u, keep, other)
        for t in range(len(u)):
            if t not in keep:
                u[t] = [min(x, y - 1) for x, y in zip(u[t], u[keep[0]], strict=True)]
        out = with_own(out, player, _non_negative(u))
    return out


def break_survivors(game: Game, rows: Sequence[int], cols: Sequence[int]) -> Game:
    """An eliminated strategy raised to strictly dominate all of its player's others: it alone
    survives for that player, so the survivors are not `rows` and `cols`."""
    left = iesds(game)
    out_rows = [r for r in range(game.shape[0]) if r not in left.rows]
    player, t = (1, out_rows[0]) if out_rows else (2, next(
        c for c in range(game.shape[1]) if c not in left.cols))
    u = own_payoffs(game, player)
    u[t] = [max(u[s][o] for s in range(len(u))) + 1 for o in range(len(u[0]))]
    return with_own(game, player, u)


# ---------------------------------------------------------------- equilibria

def make_pure_nash(game: Game, i: int, j: int) -> Game:
    """Cell (i, j) raised to the best payoff of its column (player 1) and row (player 2)."""
    a = max(game.cells[k][j][0] for k in range(game.shape[0]))
    b = max(game.cells[i][k][1] for k in range(game.shape[1]))
    return game.with_cell(i, j, (a, b))


def break_pure_nash(game: Game, i: int, j: int) -> Game:
    """Player 1's best other row against column j raised one above (i, j): a gainful deviation."""
    m = game.shape[0]
    k = max((r for r in range(m) if r != i), key=lambda r: (game.cells[r][j][0], -r))
    return game.with_cell(k, j, (game.cells[i][j][0] + 1, game.cells[k][j][1]))


def make_indifferent(game: Game, x: Sequence[Fraction], y: Sequence[Fraction]) -> Game:
    """A 2x2 game where each player is indifferent against the other's fully mixed strategy.

    Player 1 is indifferent against y = (a/b, 1 - a/b) when a(A00 - A10) = (b - a)(A11 - A01):
    A00 = A10 + b - a and A11 = A01 + a; player 2 likewise against x. Integers, never lowered
    below the payoffs they are set from.
    """
    u1, u2 = own_payoffs(game, 1), own_payoffs(game, 2)
    for u, mix in ((u1, y), (u2, x)):
        a, b = mix[0].numerator, mix[0].denominator
        u[0][0], u[1][1] = u[1][0] + b - a, u[0][1] + a
    return with_own(with_own(game, 1, u1), 2, u2)


def raise_first(game: Game) -> Game:
    """Player 1's payoff in the top-left cell one higher: against a fully mixed column player,
    row 1 then pays strictly more than row 2, which breaks any fully mixed equilibrium."""
    a, b = game.cells[0][0]
    return game.with_cell(0, 0, (a + 1, b))


def set_best_response(game: Game, player: int, mix: Sequence[Fraction], s: int,
                      want: bool) -> Game:
    """Strategy s made a best response to the opponent's mix (its payoffs raised by the gap to
    the best), or not one (the best other strategy raised to beat it)."""
    u = own_payoffs(game, player)
    value = expected_payoffs(game, player, mix)
    others = [t for t in range(len(u)) if t != s]
    best = max(others, key=lambda t: (value[t], -t))
    if want:
        shift, target = max(0, ceil(value[best] - value[s])), s
    else:
        shift, target = max(0, floor(value[s] - value[best]) + 1), best
    u[target] = [p + shift for p in u[target]]
    return with_own(game, player, u)


# ---------------------------------------------------------------- outcomes and classes

def make_pareto(game: Game, i: int, j: int) -> Game:
    """Cell (i, j) given the best payoff of each player: nothing can then beat it."""
    a = max(p for row in game.cells for p, _ in row)
    b = max(q for row in game.cells for _, q in row)
    return game.with_cell(i, j, (a, b))


def break_pareto(game: Game, i: int, j: int) -> Game:
    """Another cell made one better for player 1 than (i, j), and as good for player 2."""
    m, n = game.shape
    row, col = next((r, c) for r, c in product(range(m), range(n)) if (r, c) != (i, j))
    a, b = game.cells[i][j]
    return game.with_cell(row, col, (a + 1, b))


def make_zero_sum(game: Game) -> Game:
    """Player 2's payoffs set to minus player 1's."""
    m, n = game.shape
    return Game(tuple(tuple((game.cells[i][j][0], -game.cells[i][j][0]) for j in range(n))
                      for i in range(m)))


def make_symmetric(game: Game) -> Game:
    """Player 2's payoff at (i, j) set to player 1's at (j, i) (a square game)."""
    n = game.shape[0]
    return Game(tuple(tuple((game.cells[i][j][0], game.cells[j][i][0]) for j in range(n))
                      for i in range(n)))


def nudge_corner(game: Game) -> Game:
    """Player 2's payoff in the top-left cell one higher: a zero-sum game's first cell no
    longer sums to 0, and a symmetric game's diagonal no longer pays both players alike."""
    a, b = game.cells[0][0]
    return game.with_cell(0, 0, (a, b + 1))


# ---------------------------------------------------------------- fallback

def search_edit(game: Game, good: Callable[[Game], bool], spread: int = 3) -> Game | None:
    """The first game found that is `good`, among changes of one payoff to a value within
    `spread` of the game's range, then of one whole cell; None when none is (a bounded search:
    at most 2mn(range + 2 spread) + mn(range + 2 spread)^2 games)."""
    m, n = game.shape
    values = [x for row in game.cells for cell in row for x in cell]
    lo, hi = floor(min(values)) - spread, ceil(max(values)) + spread
    span = range(lo, hi + 1)
    for i, j in product(range(m), range(n)):
        a, b = game.cells[i][j]
        for v in span:
            for cell in ((Fraction(v), b), (a, Fraction(v))):
                candidate = game.with_cell(i, j, cell)
                if good(candidate):
                    return candidate
    for i, j in product(range(m), range(n)):
        for v, w in product(span, span):
            candidate = game.with_cell(i, j, (Fraction(v), Fraction(w)))
            if good(candidate):
                return candidate
    return None
