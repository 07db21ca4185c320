"""Use-task items for Pareto optimality, zero-sum games and symmetric games.

Claims: {"cell": [i, j]} "(Ri, Cj) is Pareto optimal"; {} "the game is zero-sum" / "symmetric".
Generate constraints follow Table 5: the number of Pareto-optimal cells of a 3x3 game, a given
payoff row for zero-sum and symmetric games. The paper's "all numbers unique, regardless of the
player" cannot hold in a symmetric game (u2[i][j] == u1[j][i] repeats every number), so the
symmetric concept asks instead that player 1's payoffs all differ.
"""

from __future__ import annotations

from typing import TypedDict

import numpy as np

from verstehen.domains.game_theory import instances
from verstehen.domains.game_theory.checks import (
    is_pareto_optimal,
    is_symmetric,
    is_zero_sum,
    own_payoffs,
    pareto_optimal,
)
from verstehen.domains.game_theory.edits import (
    break_pareto,
    make_pareto,
    make_symmetric,
    make_zero_sum,
    nudge_corner,
)
from verstehen.domains.game_theory.game import Game, fraction_text
from verstehen.domains.game_theory.generate import payoff_list, random_shape
from verstehen.domains.game_theory.generate_outcomes import (
    pareto_cell_game,
    pareto_game,
    symmetric_game,
    symmetric_near_miss,
    zero_sum_game,
    zero_sum_near_miss,
)
from verstehen.domains.game_theory.tasks.base import GameConcept, lifted
from verstehen.domains.game_theory.tasks.data import GameConstraints, Unique, shape_of
from verstehen.domains.game_theory.tasks.equilibria import CellClaim
from verstehen.domains.game_theory.tasks.wording import ORDINALS, label


class ParetoConstraints(GameConstraints):
    """A game (3x3) with exactly `count` Pareto-optimal cells."""

    count: int


class WholeGameClaim(TypedDict):
    """No parameters: the claim is that the whole game is zero-sum (symmetric)."""


class PayoffRowConstraints(GameConstraints):
    """A zero-sum (symmetric) game where action `action` of `player` pays them `payoffs`
    against the other player's actions in order."""

    player: int
    action: int
    payoffs: list[int]


class Pareto(GameConcept[CellClaim, ParetoConstraints]):
    """Is the outcome (Ri, Cj) Pareto optimal?"""

    key, name = "game-theory/pareto-optimality", "Pareto Optimality"
    phrase = "Pareto optimality"
    untested_because = ("every finite game has a Pareto-optimal cell, so only a claim about a "
                        "given cell can be tested")

    def sample(self, rng: np.random.Generator, positive: bool) -> tuple[Game, CellClaim]:
        game, cell = pareto_cell_game(rng, random_shape(rng), positive)
        return game, {"cell": list(cell)}

    def holds(self, game: Game, claim: CellClaim) -> bool:
        return is_pareto_optimal(game, *claim["cell"])

    def edit(self, game: Game, claim: CellClaim, want: bool) -> Game:
        return (make_pareto if want else break_pareto)(game, *claim["cell"])

    def _cell(self, claim: CellClaim) -> str:
        i, j = claim["cell"]
        return f"the outcome ({label(1, i)}, {label(2, j)})"

    def question(self, claim: CellClaim) -> str:
        return f"Is {self._cell(claim)} Pareto optimal?"

    def goal(self, claim: CellClaim, want: bool) -> str:
        return f"{self._cell(claim)} {'is' if want else 'is not'} Pareto optimal"

    def constraints(self, rng: np.random.Generator) -> ParetoConstraints:
        return {"shape": [3, 3], "count": int(rng.integers(1, 6)),
                "unique": "all" if rng.random() < 0.5 else None}

    def describe(self, c: ParetoConstraints) -> list[str]:
        e = c["count"]
        return [f"You must generate a 3x3 matrix where there are exactly {e} distinct Pareto "
                f"optimal outcome{'s' if e > 1 else ''} (cells of the matrix)."]

    def build_example(self, rng: np.random.Generator, c: ParetoConstraints) -> Game:
        return lifted(pareto_game(rng, shape_of(c), c["count"], unique=c["unique"] == "all"))

    def unmet(self, game: Game, c: ParetoConstraints) -> str | None:
        found = len(pareto_optimal(game))
        if found != c["count"]:
            return f"the game has {found} Pareto-optimal outcomes, not {c['count']}"
        return None


class _PayoffRowClass(GameConcept[WholeGameClaim, PayoffRowConstraints]):
    """A class of games (zero-sum, symmetric) with Table 5's given payoff row."""

    adjective: str

    def _check(self, game: Game) -> bool:
        raise NotImplementedError

    def _make(self, game: Game) -> Game:
        raise NotImplementedError

    def edit(self, game: Game, claim: WholeGameClaim, want: bool) -> Game:
        return self._make(game) if want else nudge_corner(game)

    def holds(self, game: Game, claim: WholeGameClaim) -> bool:
        return self._check(game)

    def question(self, claim: WholeGameClaim) -> str:
        return f"Is this game {self.adjective}?"

    def goal(self, claim: WholeGameClaim, want: bool) -> str:
        return f"the game {'is' if want else 'is not'} {self.adjective}"

    def _row(self, rng: np.random.Generator, shape: tuple[int, int], distinct: bool,
             unique: Unique) -> PayoffRowConstraints:
        k = int(rng.integers(1, 3))
        own, opp = shape if k == 1 else shape[::-1]
        return {"shape": list(shape), "player": k, "action": int(rng.integers(own)),
                "payoffs": payoff_list(rng, opp, distinct=distinct), "unique": unique}

    def describe(self, c: PayoffRowConstraints) -> list[str]:
        return [f"If Player {c['player']} takes the {ORDINALS[c['action']]} action, they should "
                f"receive a payoff of {c['payoffs']} if the other player takes the "
                f"corresponding actions (in order)."]

    def unmet(self, game: Game, c: PayoffRowConstraints) -> str | None:
        if not self._check(game):
            return f"the game is not {self.adjective}"
        got = own_payoffs(game, c["player"])[c["action"]]
        if got != c["payoffs"]:
            return (f"Player {c['player']}'s {ORDINALS[c['action']]} action pays "
                    f"[{', '.join(fraction_text(v) for v in got)}], not {c['payoffs']}")
        return None


class ZeroSum(_PayoffRowClass):
    """Is this game zero-sum (payoffs add up to 0 in every cell)?"""

    key, name, adjective = "game-theory/zero-sum", "Zero-Sum Game", "zero-sum"
    phrase = "a zero-sum game"
    instance_test = staticmethod(instances.zero_sum)
    negative_payoffs = True

    def _check(self, game: Game) -> bool:
        return is_zero_sum(game)

    def _make(self, game: Game) -> Game:
        return make_zero_sum(game)

    def sample(self, rng: np.random.Generator, positive: bool) -> tuple[Game, WholeGameClaim]:
        shape = random_shape(rng)
        return (zero_sum_game(rng, shape) if positive else zero_sum_near_miss(rng, shape)), {}

    def constraints(self, rng: np.random.Generator) -> PayoffRowConstraints:
        unique = bool(rng.random() < 0.5)
        return self._row(rng, random_shape(rng), unique, "all" if unique else None)

    def build_example(self, rng: np.random.Generator, c: PayoffRowConstraints) -> Game:
        return zero_sum_game(rng, shape_of(c), unique=c["unique"] == "all",
                             payoffs=(c["player"], c["action"], c["payoffs"]))


class Symmetric(_PayoffRowClass):
    """Is this game symmetric (square, u2[i][j] == u1[j][i])?"""

    key, name, adjective = "game-theory/symmetric", "Symmetric Game", "symmetric"
    phrase = "a symmetric game"
    instance_test = staticmethod(instances.symmetric)

    def _check(self, game: Game) -> bool:
        return is_symmetric(game)

    def _make(self, game: Game) -> Game:
        return make_symmetric(game)

    def sample(self, rng: np.random.Generator, positive: bool) -> tuple[Game, WholeGameClaim]:
        n = int(rng.integers(2, 5))
        return (symmetric_game(rng, n) if positive else symmetric_near_miss(rng, n)), {}

    def constraints(self, rng: np.random.Generator) -> PayoffRowConstraints:
        n, distinct = int(rng.integers(2, 5)), bool(rng.random() < 0.5)
        return self._row(rng, (n, n), distinct, "player1" if distinct else None)

    def build_example(self, rng: np.random.Generator, c: PayoffRowConstraints) -> Game:
        return symmetric_game(rng, c["shape"][0], distinct=c["unique"] == "player1",
                              payoffs=(c["player"], c["action"], c["payoffs"]))
