"""Use-task items for strict dominance, weak dominance and iterated dominance.

Claims: {"player": k} "Player k has a strictly (weakly) dominant strategy"; iterated dominance
{"rows": [...], "cols": [...]} "IESDS leaves exactly these strategies" (definitions in checks).
Classify positives for weak dominance are weakly but not strictly dominant, and negatives give the
asked player no two strategies with identical payoffs, so every answer is the same under the
other textbook definition ("at least as good against everything", duplicates allowed).
Negatives are near misses (generate.py).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal, TypedDict, TypeVar

import numpy as np

from verstehen.domains.game_theory import instances
from verstehen.domains.game_theory.checks import (
    iesds,
    own_payoffs,
    strictly_dominant,
    weakly_dominant,
)
from verstehen.domains.game_theory.edits import (
    break_strict,
    break_survivors,
    break_weak,
    make_dominant,
    make_survivors,
)
from verstehen.domains.game_theory.game import Game, fraction_text
from verstehen.domains.game_theory.generate import (
    DominanceKind,
    dominance_game,
    iesds_game,
    iesds_near_miss,
    payoff_list,
    random_shape,
)
from verstehen.domains.game_theory.tasks.base import GameConcept, lifted
from verstehen.domains.game_theory.tasks.data import GameConstraints, shape_of
from verstehen.domains.game_theory.tasks.wording import label

IESDS = "iterated elimination of strictly dominated strategies (domination by pure strategies)"


def payoff_clause(player: int, which: str, values: list[int]) -> str:
    """Table 5's "In the row that is x for Player 1, Player 1 receives a payoff of [a, b]..."."""
    line = "row" if player == 1 else "column"
    return (f"In the {line} {which}, Player {player} receives a payoff of {values} if the other "
            f"player takes the corresponding actions (in order).")


class PlayerClaim(TypedDict):
    """Player `player` (1 or 2) has a strictly (weakly) dominant strategy."""

    player: int


class DominanceConstraints(GameConstraints):
    """A dominant strategy for `player` whose own payoffs are `payoffs`, and one for the other
    player too ("both") or not ("one")."""

    players: Literal["both", "one"]
    player: int
    payoffs: list[int]


class WeakDominanceConstraints(DominanceConstraints):
    """Weak dominance's, which may also ask that the dominant strategy not be strict."""

    not_strict: bool


class SurvivorsClaim(TypedDict):
    """IESDS leaves exactly rows `rows` of player 1 and columns `cols` of player 2."""

    rows: list[int]
    cols: list[int]


class IesdsConstraints(GameConstraints):
    """A game of shape `shape` that IESDS shrinks to shape `end` ([c, d])."""

    end: list[int]


DominanceConstraintsT = TypeVar("DominanceConstraintsT", bound=DominanceConstraints)


def _numbers(values: list[Fraction]) -> str:
    return "[" + ", ".join(fraction_text(v) for v in values) + "]"


class _Dominance(GameConcept[PlayerClaim, DominanceConstraintsT]):
    adverb: str  # "strictly" or "weakly"

    def _dominant(self, game: Game, player: int) -> int | None:
        if self.adverb == "strictly":
            return strictly_dominant(game, player)
        found = weakly_dominant(game, player)
        return found[0] if found else None

    def holds(self, game: Game, claim: PlayerClaim) -> bool:
        return self._dominant(game, claim["player"]) is not None

    def edit(self, game: Game, claim: PlayerClaim, want: bool) -> Game:
        k = claim["player"]
        if want:
            return make_dominant(game, k)
        return break_strict(game, k) if self.adverb == "strictly" else break_weak(game, k)

    def question(self, claim: PlayerClaim) -> str:
        return f"Does Player {claim['player']} have a {self.adverb} dominant strategy?"

    def goal(self, claim: PlayerClaim, want: bool) -> str:
        k = claim["player"]
        return (f"Player {k} has a {self.adverb} dominant strategy" if want
                else f"Player {k} has no {self.adverb} dominant strategy")

    def _dominance_constraints(self, rng: np.random.Generator) -> DominanceConstraints:
        m, n = random_shape(rng)
        k = int(rng.integers(1, 3))
        return {"shape": [m, n], "players": "both" if rng.random() < 0.5 else "one",
                "player": k, "payoffs": payoff_list(rng, n if k == 1 else m), "unique": None}

    def describe(self, c: DominanceConstraintsT) -> list[str]:
        k = c["player"]
        who = ("both players" if c["players"] == "both"
               else f"only one player, Player {k} (Player {3 - k} must have none)")
        return [f"In the game, there must be a {self.adverb} dominant strategy for {who}.",
                payoff_clause(k, f"that is {self.adverb} dominant for Player {k}", c["payoffs"])]

    def unmet(self, game: Game, c: DominanceConstraintsT) -> str | None:
        k, other = c["player"], 3 - c["player"]
        s = self._dominant(game, k)
        if s is None:
            return f"Player {k} has no {self.adverb} dominant strategy"
        got = own_payoffs(game, k)[s]
        if got != c["payoffs"]:
            return (f"Player {k}'s {self.adverb} dominant strategy {label(k, s)} pays "
                    f"{_numbers(got)}, not {c['payoffs']}")
        has_other = self._dominant(game, other) is not None
        if c["players"] == "both" and not has_other:
            return f"Player {other} has no {self.adverb} dominant strategy"
        if c["players"] == "one" and has_other:
            return f"Player {other} has a {self.adverb} dominant strategy too"
        return None


class StrictDominance(_Dominance[DominanceConstraints]):
    """Does Player k have a strictly dominant strategy?"""

    key, name, adverb = "game-theory/strict-dominance", "Strict Dominance", "strictly"
    phrase = "strict dominance"
    instance_test = staticmethod(instances.strictly_dominant_somewhere)

    def constraints(self, rng: np.random.Generator) -> DominanceConstraints:
        return self._dominance_constraints(rng)

    def build_example(self, rng: np.random.Generator, c: DominanceConstraints) -> Game:
        k = c["player"]
        kinds: dict[int, DominanceKind] = {
            k: "strict", 3 - k: "strict" if c["players"] == "both" else "no-strict"}
        return dominance_game(rng, shape_of(c), kinds[1], kinds[2], top=(k, c["payoffs"]))

    def sample(self, rng: np.random.Generator, positive: bool) -> tuple[Game, PlayerClaim]:
        k = int(rng.integers(1, 3))
        kinds: dict[int, DominanceKind] = {k: "strict" if positive else "no-strict", 3 - k: "free"}
        return dominance_game(rng, random_shape(rng), kinds[1], kinds[2]), {"player": k}


class WeakDominance(_Dominance[WeakDominanceConstraints]):
    """Does Player k have a weakly dominant strategy? (optionally: one that is not strict)"""

    key, name, adverb = "game-theory/weak-dominance", "Weak Dominance", "weakly"
    phrase = "weak dominance"
    instance_test = staticmethod(instances.weakly_dominant_somewhere)

    def sample(self, rng: np.random.Generator, positive: bool) -> tuple[Game, PlayerClaim]:
        k = int(rng.integers(1, 3))
        kinds: dict[int, DominanceKind] = {k: "weak" if positive else "no-weak", 3 - k: "free"}
        return dominance_game(rng, random_shape(rng), kinds[1], kinds[2]), {"player": k}

    def constraints(self, rng: np.random.Generator) -> WeakDominanceConstraints:
        return {**self._dominance_constraints(rng), "not_strict": bool(rng.random() < 0.5)}

    def describe(self, c: WeakDominanceConstraints) -> list[str]:
        extra = ([f"Player {c['player']}'s weakly dominant strategy must not be strictly "
                  f"dominant."] if c["not_strict"] else [])
        return super().describe(c) + extra

    def build_example(self, rng: np.random.Generator, c: WeakDominanceConstraints) -> Game:
        k = c["player"]
        either: DominanceKind = ("weak", "strict")[int(rng.integers(2))]
        kinds: dict[int, DominanceKind] = {k: "weak" if c["not_strict"] else either,
                                           3 - k: either if c["players"] == "both" else "no-weak"}
        return dominance_game(rng, shape_of(c), kinds[1], kinds[2], top=(k, c["payoffs"]))

    def unmet(self, game: Game, c: WeakDominanceConstraints) -> str | None:
        if c["not_strict"] and strictly_dominant(game, c["player"]) is not None:
            return f"Player {c['player']}'s dominant strategy is strictly dominant"
        return super().unmet(game, c)


def _survivors(rows: list[int], cols: list[int]) -> str:
    return (f"exactly the strategies {{{', '.join(label(1, i) for i in rows)}}} for Player 1 "
            f"and {{{', '.join(label(2, j) for j in cols)}}} for Player 2")


class IteratedDominance(GameConcept[SurvivorsClaim, IesdsConstraints]):
    """Does IESDS leave exactly these strategies? Generate: an a x b game that IESDS shrinks
    to c x d (the reply is the starting matrix)."""

    key, name = "game-theory/iterated-dominance", "Iterated Dominance"
    phrase = "iterated dominance"
    instance_test = staticmethod(instances.dominance_solvable)

    @staticmethod
    def _shapes(rng: np.random.Generator) -> tuple[tuple[int, int], tuple[int, int]]:
        a, b = random_shape(rng)
        while True:
            c, d = int(rng.integers(1, a + 1)), int(rng.integers(1, b + 1))
            if (c, d) != (a, b):
                return (a, b), (c, d)

    def sample(self, rng: np.random.Generator, positive: bool) -> tuple[Game, SurvivorsClaim]:
        start, end = self._shapes(rng)
        if positive:
            game = iesds_game(rng, start, end)
            left = iesds(game)
            rows, cols = left.rows, left.cols
        else:
            game, rows, cols = iesds_near_miss(rng, start, end)
        return game, {"rows": list(rows), "cols": list(cols)}

    def holds(self, game: Game, claim: SurvivorsClaim) -> bool:
        left = iesds(game)
        return list(left.rows) == claim["rows"] and list(left.cols) == claim["cols"]

    def edit(self, game: Game, claim: SurvivorsClaim, want: bool) -> Game:
        make = make_survivors if want else break_survivors
        return make(game, claim["rows"], claim["cols"])

    def question(self, claim: SurvivorsClaim) -> str:
        return f"Does {IESDS} leave {_survivors(claim['rows'], claim['cols'])}?"

    def goal(self, claim: SurvivorsClaim, want: bool) -> str:
        return (f"{IESDS} {'leaves' if want else 'does not leave'} "
                f"{_survivors(claim['rows'], claim['cols'])}")

    def constraints(self, rng: np.random.Generator) -> IesdsConstraints:
        start, end = self._shapes(rng)
        return {"shape": list(start), "end": list(end), "unique": None}

    def describe(self, c: IesdsConstraints) -> list[str]:
        (a, b), (e, f) = c["shape"], c["end"]
        return [f"Start with a {a}x{b} matrix and end with a {e}x{f} matrix: {IESDS} must "
                f"leave exactly {e} of Player 1's actions and {f} of Player 2's. Give the "
                f"starting {a}x{b} matrix."]

    def build_example(self, rng: np.random.Generator, c: IesdsConstraints) -> Game:
        end_rows, end_cols = c["end"]
        return lifted(iesds_game(rng, shape_of(c), (end_rows, end_cols)))

    def unmet(self, game: Game, c: IesdsConstraints) -> str | None:
        got = iesds(game).shape
        if list(got) != c["end"]:
            return (f"iterated elimination leaves a {got[0]}x{got[1]} game, not "
                    f"{c['end'][0]}x{c['end'][1]}")
        return None
