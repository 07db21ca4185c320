"""Claim-free instance tests of the game-theory concepts: each concept read as a property of
the whole game, with the reason in words (`GameConcept.instance_check` parses the game first).

- strict / weak dominance: some player has a strictly / weakly dominant strategy (`checks`
  definitions; a strictly dominant strategy is weakly dominant too).
- iterated dominance: the game is dominance solvable: IESDS removes at least one strategy and
  leaves a single profile.
- pure Nash: the game has a pure-strategy Nash equilibrium.
- mixed Nash: the game has a Nash equilibrium in which some player gives two or more strategies
  positive probability; decided exactly over every pair of supports, degenerate games included
  (None for a player with more than MIXED_MAX strategies).
- zero-sum, symmetric: `checks.is_zero_sum`, `checks.is_symmetric`.
Pareto optimality and best response have none (their concepts say why).
"""

from __future__ import annotations

from verstehen.domains.game_theory import checks
from verstehen.domains.game_theory.game import Game, fraction_text
from verstehen.domains.game_theory.supports import mixed_supports

MIXED_MAX = 6  # strategies a player; the mixed-equilibrium search is exponential in it


def _label(player: int, index: int) -> str:
    return f"{'R' if player == 1 else 'C'}{index + 1}"


def _cell(i: int, j: int) -> str:
    return f"({_label(1, i)}, {_label(2, j)})"


def strictly_dominant_somewhere(game: Game) -> tuple[bool, str]:
    """Whether some player has a strictly dominant strategy, and whose."""
    found = [f"player {p}'s {_label(p, s)}" for p in (1, 2)
             if (s := checks.strictly_dominant(game, p)) is not None]
    if found:
        return True, "strictly dominant: " + ", ".join(found)
    return False, "neither player has a strictly dominant strategy"


def weakly_dominant_somewhere(game: Game) -> tuple[bool, str]:
    """Whether some player has a weakly dominant strategy, and whose."""
    found = [f"player {p}'s {_label(p, s)}" for p in (1, 2)
             for s in checks.weakly_dominant(game, p)]
    if found:
        return True, "weakly dominant: " + ", ".join(found)
    return False, "neither player has a weakly dominant strategy"


def dominance_solvable(game: Game) -> tuple[bool, str]:
    """Whether IESDS removes a strategy and leaves a single profile."""
    e = checks.iesds(game)
    k = len(e.steps)
    left = f"IESDS removes {k} strateg{'y' if k == 1 else 'ies'}, leaving {e.shape[0]}x{e.shape[1]}"
    return k > 0 and e.shape == (1, 1), left


def has_pure_nash(game: Game) -> tuple[bool, str]:
    """Whether the game has a pure-strategy Nash equilibrium, and which cells."""
    cells = checks.pure_nash(game)
    shown = ", ".join(_cell(i, j) for i, j in cells)
    return bool(cells), f"pure Nash equilibria: {shown}" if cells else "no pure Nash equilibrium"


def has_mixed_nash(game: Game) -> tuple[bool | None, str]:
    """Whether some Nash equilibrium mixes two or more strategies (None above MIXED_MAX)."""
    if max(game.shape) > MIXED_MAX:
        return None, (f"the game is {game.shape[0]}x{game.shape[1]}: the exact test for mixed "
                      f"equilibria takes at most {MIXED_MAX} strategies a player")
    found = mixed_supports(game)
    if found is None:
        return False, "every Nash equilibrium is pure"
    s, t = ("{" + ", ".join(_label(p, k) for k in sup) + "}"
            for p, sup in zip((1, 2), found, strict=True))
    return True, (f"a Nash equilibrium gives positive probability to player 1's {s} and "
                  f"player 2's {t}")


def zero_sum(game: Game) -> tuple[bool, str]:
    """Whether the payoffs add up to 0 in every cell, or the first cell where they do not."""
    if checks.is_zero_sum(game):
        return True, "the payoffs add up to 0 in every cell"
    (i, j), total = next(((i, j), a + b) for i, row in enumerate(game.cells)
                         for j, (a, b) in enumerate(row) if a + b)
    return False, f"the payoffs at {_cell(i, j)} add up to {fraction_text(total)}"


def symmetric(game: Game) -> tuple[bool, str]:
    """Whether the game is symmetric, or the first pair of cells that breaks it."""
    m, n = game.shape
    if checks.is_symmetric(game):
        return True, "player 2's payoff at (Ri, Cj) is player 1's at (Rj, Ci) for all i, j"
    if m != n:
        return False, f"the game is {m}x{n}, not square"
    i, j = next((i, j) for i in range(m) for j in range(n)
                if game.payoff(2, i, j) != game.payoff(1, j, i))
    return False, f"player 2's payoff at {_cell(i, j)} differs from player 1's at {_cell(j, i)}"
