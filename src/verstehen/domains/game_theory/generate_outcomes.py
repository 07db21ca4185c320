"""Random games that are (or narrowly are not) Pareto-optimal outcomes, zero-sum or symmetric;
conventions as in `generate`."""

from __future__ import annotations

import numpy as np

from verstehen.domains.game_theory.checks import is_pareto_optimal
from verstehen.domains.game_theory.game import Game
from verstehen.domains.game_theory.generate import (
    Payoffs,
    Values,
    grids,
    make_game,
    payoff_values,
    transpose_grid,
)

# ---------------------------------------------------------------- Pareto optimality

def pareto_game(rng: np.random.Generator, shape: tuple[int, int], count: int, *,
                unique: bool = False) -> Game:
    """A game with exactly `count` Pareto-optimal cells.

    Those cells form a chain (player 1's payoff rising as player 2's falls); every other cell
    is dominated by one of them, and so cannot dominate any of them.
    """
    m, n = shape
    if not 1 <= count <= m * n:
        raise ValueError(f"a {m}x{n} game cannot have {count} Pareto-optimal cells")
    vals = payoff_values(rng, shape, unique)
    if unique:
        ups = sorted(vals.draw(above=0) for _ in range(count))
        downs = sorted((vals.draw(above=0) for _ in range(count)), reverse=True)
    else:
        ups = sorted((rng.choice(9, size=count, replace=False) + 1).tolist())
        downs = sorted((rng.choice(9, size=count, replace=False) + 1).tolist(), reverse=True)
    cells = rng.permutation(m * n).tolist()
    u1, u2 = [[0] * n for _ in range(m)], [[0] * n for _ in range(m)]
    for rank, c in enumerate(cells[:count]):
        u1[c // n][c % n], u2[c // n][c % n] = ups[rank], downs[rank]
    for c in cells[count:]:
        top = int(rng.integers(count))
        a = vals.draw(below=ups[top] + 1)
        b = vals.draw(below=downs[top] + (0 if a == ups[top] else 1))
        u1[c // n][c % n], u2[c // n][c % n] = a, b
    return make_game(u1, u2)


def pareto_cell_game(rng: np.random.Generator, shape: tuple[int, int], positive: bool,
                     ) -> tuple[Game, tuple[int, int]]:
    """A random game and a cell that is (positive) or just fails to be Pareto optimal.

    A negative is a Pareto-optimal cell with another cell raised to beat it by 1 for one or
    both players.
    """
    m, n = shape
    u1 = rng.integers(0, 10, size=(m, n)).tolist()
    u2 = rng.integers(0, 10, size=(m, n)).tolist()
    pairs = [(u1[i][j], u2[i][j]) for i in range(m) for j in range(n)]
    optimal = [k for k, (a, b) in enumerate(pairs)
               if not any(p >= a and q >= b and (p > a or q > b) for p, q in pairs)]
    k = optimal[int(rng.integers(len(optimal)))]
    i, j = divmod(k, n)
    if not positive:
        o, p = divmod(int(rng.choice([x for x in range(m * n) if x != k])), n)
        a, b = u1[i][j], u2[i][j]
        steps = [(da, db) for da, db in ((0, 1), (1, 0), (1, 1)) if a + da <= 9 and b + db <= 9]
        if steps:  # another cell beats it by 1 for one or both players
            da, db = steps[int(rng.integers(len(steps)))]
            u1[o][p], u2[o][p] = a + da, b + db
        else:  # (9, 9): lower the cell instead and give its payoffs to the other
            da, db = ((0, 1), (1, 0), (1, 1))[int(rng.integers(3))]
            u1[i][j], u2[i][j] = a - da, b - db
            u1[o][p], u2[o][p] = a, b
    game = make_game(u1, u2)
    assert is_pareto_optimal(game, i, j) == positive
    return game, (i, j)


# ---------------------------------------------------------------- zero-sum and symmetric

def zero_sum_game(rng: np.random.Generator, shape: tuple[int, int], *,
                  payoffs: Payoffs | None = None, unique: bool = False) -> Game:
    """A zero-sum game, player 1's payoffs in -9..9 (unique: all 2mn numbers differ).

    `payoffs = (player, strategy, values)`: that strategy pays its player `values` against the
    opponent's strategies in order (values must be distinct and non-zero when unique).
    """
    m, n = shape
    sizes = Values(rng, lo=1, hi=max(9, m * n + 2), unique=True) if unique else None
    fixed: dict[tuple[int, int], int] = {}
    if payoffs:
        player, s, values = payoffs
        for o, v in enumerate(values):
            fixed[(s, o) if player == 1 else (o, s)] = int(v) if player == 1 else -int(v)
            if sizes:
                sizes.use(abs(int(v)))
    u1 = [[0] * n for _ in range(m)]
    for i in range(m):
        for j in range(n):
            if (i, j) in fixed:
                u1[i][j] = fixed[(i, j)]
            elif sizes:
                u1[i][j] = sizes.draw() * (1 if rng.random() < 0.5 else -1)
            else:
                u1[i][j] = int(rng.integers(-9, 10))
    return make_game(u1, [[-a for a in row] for row in u1])


def zero_sum_near_miss(rng: np.random.Generator, shape: tuple[int, int]) -> Game:
    """A zero-sum game with one cell's payoffs adding up to a small non-zero number."""
    u1, u2 = grids(zero_sum_game(rng, shape))
    i, j = int(rng.integers(shape[0])), int(rng.integers(shape[1]))
    u2[i][j] += _nudge(rng, u2[i][j], -9, 9)
    return make_game(u1, u2)


def symmetric_game(rng: np.random.Generator, n: int, *, payoffs: Payoffs | None = None,
                   distinct: bool = False) -> Game:
    """A symmetric n x n game (u2[i][j] == u1[j][i]).

    `payoffs = (player, strategy, values)`: that strategy pays its player `values` against the
    opponent's strategies in order (for either player this fixes player 1's row `strategy`).
    `distinct`: player 1's n*n payoffs all differ (so do player 2's).
    """
    vals = Values(rng, hi=max(9, n * n + 3) if distinct else 9, unique=distinct)
    if payoffs:
        for v in payoffs[2]:
            vals.use(int(v))
    u1 = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            fixed = payoffs is not None and payoffs[1] == i
            u1[i][j] = int(payoffs[2][j]) if fixed else vals.draw()  # type: ignore[index]
    return make_game(u1, transpose_grid(u1))


def symmetric_near_miss(rng: np.random.Generator, n: int) -> Game:
    """A symmetric game with one cell off: a payoff moved by 1-2, or a mirrored pair unswapped."""
    u1, u2 = grids(symmetric_game(rng, n))
    uneven = [(i, j) for i in range(n) for j in range(n) if i < j and u1[i][j] != u1[j][i]]
    if uneven and rng.random() < 0.5:
        i, j = uneven[int(rng.integers(len(uneven)))]
        u1[j][i], u2[j][i] = u1[i][j], u2[i][j]  # the mirror cell repeats (a, b), not (b, a)
    else:
        i, j = int(rng.integers(n)), int(rng.integers(n))
        u2[i][j] += _nudge(rng, u2[i][j], 0, 9)
    return make_game(u1, u2)


def _nudge(rng: np.random.Generator, value: int, lo: int, hi: int) -> int:
    """A change of 1 or 2 either way that keeps `value` in lo..hi."""
    steps = [d for d in (-2, -1, 1, 2) if lo <= value + d <= hi]
    return int(steps[int(rng.integers(len(steps)))])
