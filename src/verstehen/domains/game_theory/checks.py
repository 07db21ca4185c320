"""Exact checkers for two-player games: dominance, iterated dominance, equilibria, Pareto.

Player 1 chooses a row, player 2 a column; strategy indices are 0-based. A mixed strategy is a
sequence of probabilities over a player's strategies (anything `Fraction()` accepts; it must be
non-negative and sum to exactly 1). All arithmetic is exact. Definitions:

- Strategy s of player p *strictly dominates* t when s pays p strictly more than t against every
  strategy of the opponent. s is *strictly dominant* when it strictly dominates every other
  strategy of p. A player with a single strategy has no dominant strategy (nothing to dominate).
- s *weakly dominates* t when s pays at least as much as t against every opponent strategy and
  strictly more against at least one. s is *weakly dominant* when it weakly dominates every other
  strategy of p. So a strictly dominant strategy is weakly dominant too, a strategy with a
  duplicate (same payoffs as another strategy) is not, and a player has at most one.
- Iterated elimination of strictly dominated strategies (IESDS) removes, one at a time, a pure
  strategy strictly dominated by another pure strategy still present, in the game the earlier
  removals left, until none is. The survivors do not depend on the order of removal, so `iesds`
  is a function of the game. Domination by mixed strategies is not used.
- A pure Nash equilibrium is a cell (i, j) where row i is a best response to column j and column j
  to row i (ties allowed). A mixed profile (x, y) is a Nash equilibrium when every strategy played
  with positive probability is a best response to the other player's mix.
- A cell is Pareto optimal when no other cell gives both players at least as much and one of them
  strictly more (cells with identical payoffs are both Pareto optimal or neither).
- A game is zero-sum when the payoffs add up to 0 in every cell. Constant-sum games with another
  constant are strategically equivalent but are not called zero-sum here.
- A game is symmetric when it is square and u2[i][j] == u1[j][i] for all i, j: swapping the
  players' roles gives the same game (so diagonal cells pay both players the same).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from verstehen.domains.game_theory.game import Game, to_fraction

Mix = tuple[Fraction, ...]
Profile = tuple[Mix, Mix]


def _check_player(player: int) -> None:
    if player not in (1, 2):
        raise ValueError(f"player must be 1 or 2, not {player!r}")


def own_payoffs(game: Game, player: int) -> list[list[Fraction]]:
    """The player's payoffs as `[own strategy][opponent strategy]`."""
    _check_player(player)
    if player == 1:
        return [[a for a, _ in row] for row in game.cells]
    m, n = game.shape
    return [[game.cells[i][j][1] for i in range(m)] for j in range(n)]


def strictly_dominates(game: Game, player: int, s: int, t: int) -> bool:
    """True when the player's strategy s strictly dominates t."""
    u = own_payoffs(game, player)
    return all(a > b for a, b in zip(u[s], u[t], strict=True))


def weakly_dominates(game: Game, player: int, s: int, t: int) -> bool:
    """True when s is at least as good as t everywhere and strictly better somewhere."""
    u = own_payoffs(game, player)
    return _weakly(u[s], u[t])


def _weakly(a: Sequence[Fraction], b: Sequence[Fraction]) -> bool:
    pairs = list(zip(a, b, strict=True))
    return all(x >= y for x, y in pairs) and any(x > y for x, y in pairs)


def strictly_dominant(game: Game, player: int) -> int | None:
    """The player's strictly dominant strategy, or None (always None with a single strategy)."""
    u = own_payoffs(game, player)
    if len(u) < 2:
        return None
    best = max(range(len(u)), key=lambda s: u[s][0])
    others = [t for t in range(len(u)) if t != best]
    if all(all(a > b for a, b in zip(u[best], u[t], strict=True)) for t in others):
        return best
    return None


def weakly_dominant(game: Game, player: int) -> list[int]:
    """The player's weakly dominant strategies: at most one (see the module doc); [] if single."""
    u = own_payoffs(game, player)
    if len(u) < 2:
        return []
    return [s for s in range(len(u))
            if all(_weakly(u[s], u[t]) for t in range(len(u)) if t != s)]


# ---------------------------------------------------------------- iterated dominance

@dataclass(frozen=True)
class Elimination:
    """What IESDS leaves: surviving original row and column indices, and the removals in order."""

    rows: tuple[int, ...]
    cols: tuple[int, ...]
    steps: tuple[tuple[int, int], ...]  # (player, original strategy index)

    @property
    def shape(self) -> tuple[int, int]:
        """(surviving rows, surviving columns)."""
        return len(self.rows), len(self.cols)


def _dominator(u: list[list[Fraction]], s: int, own: list[int], opp: list[int]) -> int | None:
    """An alive own strategy strictly dominating s over the alive opponent strategies."""
    mine = u[s]
    for t in own:
        if t != s:
            theirs = u[t]
            if all(theirs[o] > mine[o] for o in opp):
                return t
    return None


def iesds(game: Game) -> Elimination:
    """Iterated elimination of strictly dominated (by pure) strategies; player 1 first each pass."""
    u = (own_payoffs(game, 1), own_payoffs(game, 2))
    alive = ([*range(game.shape[0])], [*range(game.shape[1])])
    steps: list[tuple[int, int]] = []
    removed = True
    while removed:
        removed = False
        for player in (1, 2):
            own, opp = alive[player - 1], alive[2 - player]
            for s in list(own):
                if _dominator(u[player - 1], s, own, opp) is not None:
                    own.remove(s)
                    steps.append((player, s))
                    removed = True
    return Elimination(tuple(alive[0]), tuple(alive[1]), tuple(steps))


def check_elimination(game: Game, steps: Sequence[Sequence[int]], *,
                      complete: bool = False) -> str | None:
    """None when each (player, strategy) removal is legal in turn, else why not.

    With `complete`, the sequence must also leave no strictly dominated strategy.
    """
    u = (own_payoffs(game, 1), own_payoffs(game, 2))
    alive = ([*range(game.shape[0])], [*range(game.shape[1])])
    for k, step in enumerate(steps, 1):
        if len(step) != 2 or step[0] not in (1, 2):
            return f"step {k}: {step!r} is not a (player 1 or 2, strategy) pair"
        player, s = step
        size = game.shape[player - 1]
        if not isinstance(s, int) or not 0 <= s < size:
            return f"step {k}: player {player} has no strategy {s!r} (0..{size - 1})"
        own, opp = alive[player - 1], alive[2 - player]
        if s not in own:
            return f"step {k}: strategy {s} of player {player} is already eliminated"
        if _dominator(u[player - 1], s, own, opp) is None:
            return f"step {k}: strategy {s} of player {player} is not strictly dominated there"
        own.remove(s)
    if complete:
        for player in (1, 2):
            own, opp = alive[player - 1], alive[2 - player]
            for s in own:
                if _dominator(u[player - 1], s, own, opp) is not None:
                    return f"strategy {s} of player {player} is still strictly dominated"
    return None


# ---------------------------------------------------------------- best responses and equilibria

def as_mix(values: Sequence[Any], size: int) -> Mix:
    """A validated mixed strategy over `size` strategies (ValueError if it is not one).

    Values are read by `Game`'s `to_fraction`: 0.1 is 1/10, so 0.1 + 0.9 sums to 1.
    """
    mix = tuple(to_fraction(v) for v in values)
    if len(mix) != size:
        raise ValueError(f"a mixed strategy here needs {size} probabilities, not {len(mix)}")
    if any(p < 0 for p in mix) or sum(mix) != 1:
        raise ValueError(f"not a probability distribution: {[str(p) for p in mix]}")
    return mix


def expected_payoffs(game: Game, player: int, opponent_mix: Sequence[Any]) -> list[Fraction]:
    """The player's expected payoff from each own strategy against the opponent's mix."""
    u = own_payoffs(game, player)
    mix = as_mix(opponent_mix, len(u[0]))
    return [sum((p * a for p, a in zip(mix, row, strict=True) if p), Fraction(0)) for row in u]


def best_responses(game: Game, player: int, opponent_mix: Sequence[Any]) -> list[int]:
    """All of the player's pure best responses to the opponent's mixed strategy."""
    values = expected_payoffs(game, player, opponent_mix)
    top = max(values)
    return [s for s, v in enumerate(values) if v == top]


def is_nash(game: Game, x: Sequence[Any], y: Sequence[Any]) -> bool:
    """True when (x, y) is a (mixed) Nash equilibrium: each support is all best responses."""
    m, n = game.shape
    x, y = as_mix(x, m), as_mix(y, n)
    br1, br2 = set(best_responses(game, 1, y)), set(best_responses(game, 2, x))
    return (all(i in br1 for i, p in enumerate(x) if p)
            and all(j in br2 for j, q in enumerate(y) if q))


def pure_nash(game: Game) -> list[tuple[int, int]]:
    """All pure-strategy Nash equilibria (row, column), in row-major order."""
    m, n = game.shape
    col_best = [max(game.cells[i][j][0] for i in range(m)) for j in range(n)]
    row_best = [max(b for _, b in row) for row in game.cells]
    return [(i, j) for i in range(m) for j in range(n)
            if game.cells[i][j][0] == col_best[j] and game.cells[i][j][1] == row_best[i]]


def is_pure_nash(game: Game, row: int, col: int) -> bool:
    """True when the cell (row, col) is a pure-strategy Nash equilibrium."""
    a, b = game.cells[row][col]
    return (all(r[col][0] <= a for r in game.cells)
            and all(q <= b for _, q in game.cells[row]))


def nash_partner(game: Game, player: int, mix: Sequence[Any]) -> Mix | None:
    """An opponent mix making (player's `mix`, it) a Nash equilibrium, or None if there is none.

    Exact, for an opponent with one or two strategies (ValueError otherwise).
    """
    _check_player(player)
    m, n = game.shape
    k = n if player == 1 else m
    if k > 2:
        raise ValueError("nash_partner needs an opponent with at most two strategies")
    own = as_mix(mix, m if player == 1 else n)
    opponent = 2 if player == 1 else 1
    replies = best_responses(game, opponent, own)
    if len(replies) == 1 or k == 1:
        candidates = [tuple(Fraction(int(j == replies[0])) for j in range(k))]
    else:
        # The opponent may mix freely; the player's support must all be best responses. That
        # set of q (weight on the opponent's first strategy) is an interval whose ends are 0, 1
        # or points where two of the player's strategies pay the same.
        u = own_payoffs(game, player)
        qs = {Fraction(0), Fraction(1)}
        for a in range(len(u)):
            for b in range(a + 1, len(u)):
                d0, d1 = u[a][0] - u[b][0], u[a][1] - u[b][1]
                if d0 != d1:
                    q = d1 / (d1 - d0)
                    if 0 <= q <= 1:
                        qs.add(q)
        candidates = [(q, 1 - q) for q in sorted(qs)]
    for other in candidates:
        x, y = (own, other) if player == 1 else (other, own)
        if is_nash(game, x, y):
            return other
    return None


def _rational(values: Sequence[float]) -> Mix | None:
    mix = tuple(Fraction(float(v)).limit_denominator(10**6) for v in values)
    return mix if all(p >= 0 for p in mix) and sum(mix) == 1 else None


def mixed_nash(game: Game) -> list[Profile]:
    """Nash equilibria (pure ones included) by nashpy's support enumeration, verified exactly.

    Each equilibrium is rationalized (denominators up to 10**6) and kept only if `is_nash`
    confirms it, so everything listed is an equilibrium; the list may be incomplete. nashpy's
    floating-point search misses some equilibria even of games without ties (in 67 of 900
    random 2x2 to 4x4 games; e.g. [[(6,-28),(-7,-4),(-5,-12)],[(12,18),(23,-29),(-25,19)]]
    with x = (6/7, 1/7), y = (0, 2/5, 3/5)). Grading never relies on it;
    `supports.mixed_supports` decides exactly whether a mixed equilibrium exists.
    """
    import nashpy  # lazy: nashpy loads SciPy (about 0.4 s), needed only for this list

    a = np.array([[float(p) for p, _ in row] for row in game.cells])
    b = np.array([[float(q) for _, q in row] for row in game.cells])
    found: list[Profile] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for x, y in nashpy.Game(a, b).support_enumeration():
            fx, fy = _rational(x), _rational(y)
            if fx and fy and (fx, fy) not in found and is_nash(game, fx, fy):
                found.append((fx, fy))
    return found


# ---------------------------------------------------------------- outcomes and classes of games

def is_pareto_optimal(game: Game, row: int, col: int) -> bool:
    """True when no other cell is at least as good for both players and better for one."""
    a, b = game.cells[row][col]
    return not any((p >= a and q >= b) and (p > a or q > b)
                   for r in game.cells for p, q in r)


def pareto_optimal(game: Game) -> list[tuple[int, int]]:
    """All Pareto-optimal cells (row, column), in row-major order."""
    m, n = game.shape
    return [(i, j) for i in range(m) for j in range(n) if is_pareto_optimal(game, i, j)]


def is_zero_sum(game: Game) -> bool:
    """True when the two payoffs add up to 0 in every cell (constant-sum is not enough)."""
    return all(a + b == 0 for row in game.cells for a, b in row)


def is_symmetric(game: Game) -> bool:
    """True when the game is square and u2[i][j] == u1[j][i] for all cells."""
    m, n = game.shape
    return m == n and all(game.cells[i][j][1] == game.cells[j][i][0]
                          for i in range(m) for j in range(n))
