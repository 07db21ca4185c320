"""Random games that are, or narrowly fail to be, instances of each game-theory concept.

Every generator draws from the `numpy.random.Generator` it is given (never the global one) and
builds its game directly, with integer payoffs, by default in 0..9; payoffs leave that range
where a constraint needs room (a value below a given one, all payoffs unique, zero-sum games use
-9..9). Negative instances are near misses: a positive instance with one cell changed so that
the property just fails (a dominance broken by one tie, a deviation that gains 1, ...).

Constraints follow the paper's Table 5 where they apply: which players have a dominant strategy,
a given payoff row for a named strategy, all payoffs unique, the start and end shapes of
iterated dominance, a player's mixing probability, the number of Pareto-optimal cells, and the
best response to a given mix. "All payoffs unique" means all 2*m*n numbers of the matrix differ.

This module has the shared helpers and dominance; generate_equilibria has pure and mixed Nash
equilibria and best responses, generate_outcomes Pareto optimality, zero-sum and symmetric games.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Literal

import numpy as np

from verstehen.domains.game_theory.checks import (
    iesds,
    strictly_dominant,
    weakly_dominant,
)
from verstehen.domains.game_theory.game import Game

Grid = list[list[int]]  # one player's payoffs, [row][column] of the game
DominanceKind = Literal["strict", "weak", "no-strict", "no-weak", "free"]
Payoffs = tuple[int, int, Sequence[int]]  # (player, own strategy, payoffs against each opponent)
DECIMALS = tuple(Fraction(k, 10) for k in range(1, 10))


class Values:
    """Draws integer payoffs in [lo, hi]; with `unique`, never the same number twice.

    A bound (`above`, `below`) moves the range; with `unique`, a range that runs out of unused
    numbers grows on its unbounded side.
    """

    def __init__(self, rng: np.random.Generator, lo: int = 0, hi: int = 9,
                 unique: bool = False) -> None:
        self.rng, self.lo, self.hi, self.unique = rng, lo, hi, unique
        self.used: set[int] = set()

    def use(self, value: int) -> int:
        """Record a value placed by hand."""
        self.used.add(value)
        return value

    def draw(self, above: int | None = None, below: int | None = None) -> int:
        """A value > above and < below (each when given)."""
        lo = self.lo if above is None else above + 1
        hi = self.hi if below is None else below - 1
        if above is not None and below is None:
            hi = max(hi, lo)
        if below is not None and above is None:
            lo = min(lo, hi)
        if not self.unique:
            if lo > hi:
                raise ValueError(f"no integer between {above} and {below}")
            return int(self.rng.integers(lo, hi + 1))
        free = [v for v in range(lo, hi + 1) if v not in self.used]
        while not free:
            if below is None:
                hi += 3
            elif above is None:
                lo -= 3
            else:
                raise ValueError(f"no unused integer between {above} and {below}")
            free = [v for v in range(lo, hi + 1) if v not in self.used]
        return self.use(free[int(self.rng.integers(len(free)))])


def payoff_values(rng: np.random.Generator, shape: tuple[int, int], unique: bool) -> Values:
    """Values for a game: 0..9, or with `unique` a range with room for every payoff (0..2mn+3)."""
    return Values(rng, hi=max(9, 2 * shape[0] * shape[1] + 3) if unique else 9, unique=unique)


def make_game(u1: Grid, u2: Grid) -> Game:
    """A game from the two players' payoff grids."""
    return Game(tuple(tuple((Fraction(a), Fraction(b)) for a, b in zip(r1, r2, strict=True))
                      for r1, r2 in zip(u1, u2, strict=True)))


def grids(game: Game) -> tuple[Grid, Grid]:
    """The two players' payoff grids of an integer game (inverse of `make_game`)."""
    return ([[int(a) for a, _ in row] for row in game.cells],
            [[int(b) for _, b in row] for row in game.cells])


def random_grid(vals: Values, m: int, n: int) -> Grid:
    """An m x n grid of values drawn from `vals`."""
    if not vals.unique:
        drawn: Grid = vals.rng.integers(vals.lo, vals.hi + 1, size=(m, n)).tolist()
        return drawn
    free = [v for v in range(vals.lo, vals.hi + 1) if v not in vals.used]
    if len(free) < m * n:  # draw() widens the range as it runs out
        return [[vals.draw() for _ in range(n)] for _ in range(m)]
    picks = vals.rng.choice(free, size=m * n, replace=False).tolist()
    vals.used.update(picks)
    return [picks[i * n:(i + 1) * n] for i in range(m)]


def transpose_grid(grid: Grid) -> Grid:
    """Rows become columns."""
    return [list(col) for col in zip(*grid, strict=True)]


def random_shape(rng: np.random.Generator, lo: int = 2, hi: int = 4) -> tuple[int, int]:
    """A shape with each side in lo..hi."""
    m, n = rng.integers(lo, hi + 1, size=2).tolist()
    return m, n


def payoff_list(rng: np.random.Generator, k: int, distinct: bool = False) -> list[int]:
    """k integers in 1..9 (distinct when asked): the payoffs a constraint prescribes."""
    payoffs: list[int] = ((rng.choice(9, size=k, replace=False) + 1) if distinct
                          else rng.integers(1, 10, size=k)).tolist()
    return payoffs


# ---------------------------------------------------------------- dominance

def _strategy_grid(vals: Values, own: int, opp: int, kind: DominanceKind,
                   top: Sequence[int] | None = None) -> tuple[Grid, int | None]:
    """A player's payoffs [own strategy][opponent strategy] of the given kind.

    `kind` is "strict" (a strictly dominant strategy), "weak" (weakly but not strictly
    dominant), "no-strict" / "no-weak" (a near miss with none) or "free" (random). `top`
    prescribes the dominant strategy's payoffs. Returns the grid and the dominant strategy.
    """
    rng = vals.rng
    if kind == "free":
        return random_grid(vals, own, opp), None
    for _ in range(100):
        grid, s = _dominant_grid(vals, own, opp, kind in ("strict", "no-strict"), top)
        if kind in ("strict", "weak"):
            return grid, s
        t = int(rng.choice([x for x in range(own) if x != s]))
        o = int(rng.integers(opp))
        if kind == "no-strict" and not vals.unique and rng.random() < 0.5:
            grid[t][o] = grid[s][o]  # a tie: s still weakly dominant, no longer strictly
        elif grid[s][o] < vals.hi or vals.unique:
            grid[t][o] = vals.draw(above=grid[s][o])
        else:  # lower s rather than push t past the range (out-of-range values would tell)
            t = max((x for x in range(own) if x != s), key=lambda x: grid[x][o])
            grid[s][o] = vals.draw(below=grid[t][o])
        game = make_game(grid, grid)
        if kind == "no-strict" and strictly_dominant(game, 1) is None:
            return grid, None
        if kind == "no-weak" and not weakly_dominant(game, 1) and _distinct_rows(grid):
            return grid, None
    raise RuntimeError(f"could not build a {kind} grid")


def _distinct_rows(grid: Grid) -> bool:
    return len({tuple(r) for r in grid}) == len(grid)


def _dominant_grid(vals: Values, own: int, opp: int, strict: bool,
                   top: Sequence[int] | None) -> tuple[Grid, int]:
    rng = vals.rng
    s = int(rng.integers(own))
    best = ([vals.use(int(v)) for v in top] if top is not None
            else [vals.draw(above=vals.lo) for _ in range(opp)])
    grid: Grid = []
    for t in range(own):
        if t == s:
            grid.append(list(best))
        elif strict:
            grid.append([vals.draw(below=best[o]) for o in range(opp)])
        else:  # weakly below, strictly somewhere
            sharp = int(rng.integers(opp))
            grid.append([vals.draw(below=best[o]) if o == sharp or rng.random() < 0.5
                         else best[o] for o in range(opp)])
    if not strict and all(grid[t][o] < best[o] for t in range(own) if t != s
                          for o in range(opp)):
        t = int(rng.choice([x for x in range(own) if x != s]))
        keep = next(o for o in range(opp) if grid[t][o] < best[o])
        tie = int(rng.choice([o for o in range(opp) if o != keep]))
        grid[t][tie] = best[tie]
    return grid, s


def dominance_game(rng: np.random.Generator, shape: tuple[int, int],
                   p1: DominanceKind = "free", p2: DominanceKind = "free", *,
                   top: tuple[int, Sequence[int]] | None = None, unique: bool = False) -> Game:
    """A game where each player's strategies are of the given kind (see `_strategy_grid`).

    `top = (player, values)` prescribes that player's dominant strategy's payoffs against the
    opponent's strategies in order (which strategy it is, is drawn).
    """
    m, n = shape
    vals = payoff_values(rng, shape, unique)
    fixed = {top[0]: top[1]} if top else {}
    g1, _ = _strategy_grid(vals, m, n, p1, fixed.get(1))
    g2, _ = _strategy_grid(vals, n, m, p2, fixed.get(2))
    return make_game(g1, transpose_grid(g2))


# ---------------------------------------------------------------- iterated dominance

def _no_dominated_core(rng: np.random.Generator, own: int, opp: int) -> Grid:
    """A grid [own][opp] in which no own strategy strictly dominates another."""
    if opp == 1:  # one opponent strategy: only a tie keeps every own strategy undominated
        tie = int(rng.integers(10))
        return [[tie] for _ in range(own)]
    order = rng.permutation(own).tolist()
    up = sorted(rng.choice(10, size=own, replace=False).tolist())
    down = sorted(rng.choice(10, size=own, replace=False).tolist(), reverse=True)
    grid: Grid = rng.integers(0, 10, size=(own, opp)).tolist()
    for rank, s in enumerate(order):
        grid[s][0], grid[s][1] = up[rank], down[rank]
    return grid


def _iesds_build(rng: np.random.Generator, start: tuple[int, int], end: tuple[int, int],
                 ) -> tuple[Grid, Grid, list[tuple[int, int, int, list[int]]]]:
    """Core end-shape game plus strategies each strictly dominated when added (in reverse)."""
    (a, b), (c, d) = start, end
    if not (1 <= c <= a and 1 <= d <= b):
        raise ValueError(f"cannot shrink {a}x{b} to {c}x{d}")
    u1 = _no_dominated_core(rng, c, d)
    u2 = transpose_grid(_no_dominated_core(rng, d, c))
    adds = ["r"] * (a - c) + ["c"] * (b - d)
    rng.shuffle(adds)
    record: list[tuple[int, int, int, list[int]]] = []  # (player, new, dominator, opponents)
    for kind in adds:
        rows, cols = len(u1), len(u1[0])
        if kind == "r":
            s = int(rng.integers(rows))
            u1.append([u1[s][o] - int(rng.integers(1, 4)) for o in range(cols)])
            u2.append(rng.integers(0, 10, size=cols).tolist())
            record.append((1, rows, s, list(range(cols))))
        else:
            s = int(rng.integers(cols))
            for i in range(rows):
                u1[i].append(int(rng.integers(10)))
                u2[i].append(u2[i][s] - int(rng.integers(1, 4)))
            record.append((2, cols, s, list(range(rows))))
    return u1, u2, record


def _permuted(rng: np.random.Generator, u1: Grid, u2: Grid, rows: int, cols: int,
              ) -> tuple[Game, tuple[int, ...], tuple[int, ...]]:
    """Shuffle strategies; return the game and where the first rows/cols (the core) went."""
    pr, pc = rng.permutation(len(u1)).tolist(), rng.permutation(len(u1[0])).tolist()
    game = make_game(u1, u2).permute(pr, pc)
    return (game, tuple(k for k, i in enumerate(pr) if i < rows),
            tuple(k for k, j in enumerate(pc) if j < cols))


def iesds_game(rng: np.random.Generator, start: tuple[int, int],
               end: tuple[int, int]) -> Game:
    """A start-shaped game that iterated strict dominance reduces to an end-shaped one."""
    u1, u2, _ = _iesds_build(rng, start, end)
    return _permuted(rng, u1, u2, *end)[0]


def iesds_near_miss(rng: np.random.Generator, start: tuple[int, int], end: tuple[int, int],
                    ) -> tuple[Game, tuple[int, ...], tuple[int, ...]]:
    """A game and end-shaped strategy sets that iterated dominance does NOT leave exactly.

    Mostly one cell breaks one planned elimination; if that fails to matter, the sets swap one
    survivor for an eliminated strategy. `start` must differ from `end`.
    """
    if start == end:
        raise ValueError("a near miss needs at least one elimination")
    u1, u2, record = _iesds_build(rng, start, end)
    for _ in range(6):
        player, new, s, opps = record[int(rng.integers(len(record)))]
        o = opps[int(rng.integers(len(opps)))]
        w1, w2 = [r[:] for r in u1], [r[:] for r in u2]
        # a tie or a win by 1 (only a tie at the top of 0..9) for the dominated strategy
        if player == 1:
            w1[new][o] = w1[s][o] + int(rng.integers(2 if w1[s][o] < 9 else 1))
        else:
            w2[o][new] = w2[o][s] + int(rng.integers(2 if w2[o][s] < 9 else 1))
        game, rows, cols = _permuted(rng, w1, w2, *end)
        left = iesds(game)
        if (left.rows, left.cols) != (rows, cols):
            return game, rows, cols
    game, rows, cols = _permuted(rng, u1, u2, *end)
    player = 1 if start[0] > end[0] and (start[1] == end[1] or rng.random() < 0.5) else 2
    keep, size = (rows, start[0]) if player == 1 else (cols, start[1])
    out = int(rng.choice([k for k in range(size) if k not in keep]))
    swapped = tuple(sorted([*keep[:-1], out]))
    return (game, swapped, cols) if player == 1 else (game, rows, swapped)
