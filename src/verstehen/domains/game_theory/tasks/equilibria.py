"""Use-task items for pure and mixed Nash equilibria and best responses.

Claims: {"cell": [i, j]} "(Ri, Cj) is a pure-strategy Nash equilibrium"; {"x": [...], "y": [...]}
"this mixed profile is a Nash equilibrium" (2x2 games, fully mixed profiles); {"player": k,
"mix": [...], "strategy": s} "s is a best response of player k to the opponent's mix" (ties
count: every maximizer is a best response). Probabilities are fraction strings.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TypedDict

import numpy as np

from verstehen.domains.game_theory import instances
from verstehen.domains.game_theory.checks import (
    best_responses,
    is_nash,
    is_pure_nash,
    nash_partner,
    own_payoffs,
    pure_nash,
)
from verstehen.domains.game_theory.edits import (
    break_pure_nash,
    make_indifferent,
    make_pure_nash,
    raise_first,
    set_best_response,
)
from verstehen.domains.game_theory.game import Game, fraction_text
from verstehen.domains.game_theory.generate import DECIMALS, payoff_list, random_shape
from verstehen.domains.game_theory.generate_equilibria import (
    best_response_game,
    decimal_mix,
    mixed_nash_game,
    pure_nash_game,
)
from verstehen.domains.game_theory.tasks.base import GameConcept, lifted
from verstehen.domains.game_theory.tasks.data import GameConstraints, shape_of
from verstehen.domains.game_theory.tasks.dominance import payoff_clause
from verstehen.domains.game_theory.tasks.wording import ORDINALS, label, mix_text, prob_text

NICE = (*DECIMALS, Fraction(1, 3), Fraction(2, 3), Fraction(1, 4), Fraction(3, 4))


class CellClaim(TypedDict):
    """A claim about the outcome (Ri, Cj), as [i, j]."""

    cell: list[int]


class NashConstraints(GameConstraints):
    """A pure Nash equilibrium (the only one, when `only`) in a row (player 1) or column
    (player 2) where `player` receives `payoffs`."""

    player: int
    only: bool
    payoffs: list[int]


class MixedProfileClaim(TypedDict):
    """Player 1 mixes `x` over the rows and player 2 `y` over the columns (fraction strings)."""

    x: list[str]
    y: list[str]


class MixedNashConstraints(GameConstraints):
    """A 2x2 game with a Nash equilibrium where `player` takes action 1 with probability `p`
    (a fraction string)."""

    player: int
    p: str


class BestResponseClaim(TypedDict):
    """`strategy` is a best response of `player` to the opponent's `mix` (fraction strings)."""

    player: int
    mix: list[str]
    strategy: int


class BestResponseConstraints(GameConstraints):
    """Against the opponent's 3-action `mix`, `strategy` is `player`'s only best response."""

    player: int
    mix: list[str]
    strategy: int


def _fracs(values: list[str]) -> list[Fraction]:
    return [Fraction(v) for v in values]


def _room_below(payoffs: list[int], need: int) -> bool:
    """Whether `need` non-negative integers, none of them in `payoffs`, lie below its largest:
    an equilibrium there can then beat the rest of its line with all payoffs unique."""
    top = max(payoffs)
    return top - sum(v < top for v in payoffs) >= need


class PureNash(GameConcept[CellClaim, NashConstraints]):
    """Is (Ri, Cj) a pure-strategy Nash equilibrium?"""

    key, name = "game-theory/pure-nash", "Pure Nash Equilibrium"
    phrase = "a pure-strategy Nash equilibrium"
    instance_test = staticmethod(instances.has_pure_nash)

    def sample(self, rng: np.random.Generator, positive: bool) -> tuple[Game, CellClaim]:
        m, n = random_shape(rng)
        cell = (int(rng.integers(m)), int(rng.integers(n)))
        return pure_nash_game(rng, (m, n), cell, positive=positive), {"cell": list(cell)}

    def holds(self, game: Game, claim: CellClaim) -> bool:
        return is_pure_nash(game, *claim["cell"])

    def edit(self, game: Game, claim: CellClaim, want: bool) -> Game:
        return (make_pure_nash if want else break_pure_nash)(game, *claim["cell"])

    def _cell(self, claim: CellClaim) -> str:
        i, j = claim["cell"]
        return f"({label(1, i)}, {label(2, j)})"

    def question(self, claim: CellClaim) -> str:
        return f"Is {self._cell(claim)} a pure-strategy Nash equilibrium?"

    def goal(self, claim: CellClaim, want: bool) -> str:
        return f"{self._cell(claim)} {'is' if want else 'is not'} a pure-strategy Nash equilibrium"

    def constraints(self, rng: np.random.Generator) -> NashConstraints:
        m, n = random_shape(rng)
        k, unique = int(rng.integers(1, 3)), bool(rng.random() < 0.5)
        only = bool(rng.random() < 0.5)
        payoffs = payoff_list(rng, n if k == 1 else m, distinct=unique)
        while unique and not _room_below(payoffs, (m if k == 1 else n) - 1):
            payoffs = payoff_list(rng, n if k == 1 else m, distinct=True)
        return {"shape": [m, n], "player": k, "only": only, "payoffs": payoffs,
                "unique": "all" if unique else None}

    def describe(self, c: NashConstraints) -> list[str]:
        k = c["player"]
        which = f"that contains {'the' if c['only'] else 'a'} pure strategy Nash equilibrium"
        return ([payoff_clause(k, which, c["payoffs"])]
                + (["The game must have exactly one pure strategy Nash equilibrium."]
                   if c["only"] else []))

    def build_example(self, rng: np.random.Generator, c: NashConstraints) -> Game:
        m, n = shape_of(c)
        # the equilibrium where the given payoffs peak: the most room below it for the others
        top = c["payoffs"].index(max(c["payoffs"]))
        cell = (int(rng.integers(m)), top) if c["player"] == 1 else (top, int(rng.integers(n)))
        return pure_nash_game(rng, (m, n), cell, payoffs=(c["player"], c["payoffs"]),
                              only=c["only"], unique=c["unique"] == "all")

    def unmet(self, game: Game, c: NashConstraints) -> str | None:
        found, k = pure_nash(game), c["player"]
        if not found:
            return "the game has no pure-strategy Nash equilibrium"
        if c["only"] and len(found) != 1:
            return f"the game has {len(found)} pure-strategy Nash equilibria, not exactly one"
        u = own_payoffs(game, k)
        if not any(u[cell[k - 1]] == c["payoffs"] for cell in found):
            line = "row" if k == 1 else "column"
            return (f"no pure-strategy Nash equilibrium lies in a {line} where Player {k} "
                    f"receives {c['payoffs']}")
        return None


class MixedNash(GameConcept[MixedProfileClaim, MixedNashConstraints]):
    """Is this fully mixed profile of a 2x2 game a Nash equilibrium?"""

    key, name = "game-theory/mixed-nash", "Mixed Strategy Nash Equilibrium"
    phrase = "a mixed-strategy Nash equilibrium"
    instance_test = staticmethod(instances.has_mixed_nash)

    def sample(self, rng: np.random.Generator, positive: bool
               ) -> tuple[Game, MixedProfileClaim]:
        p, q = (NICE[int(k)] for k in rng.integers(len(NICE), size=2))
        at = (p, q)
        while not positive and at == (p, q):
            # the game's only fully mixed equilibrium is the claim swapped, or one part moved
            other = NICE[int(rng.integers(len(NICE)))]
            at = ((q, p) if rng.random() < 0.5 else
                  (other, q) if rng.random() < 0.5 else (p, other))
        game = mixed_nash_game(rng, *at)
        return game, {"x": [fraction_text(p), fraction_text(1 - p)],
                      "y": [fraction_text(q), fraction_text(1 - q)]}

    def holds(self, game: Game, claim: MixedProfileClaim) -> bool:
        return is_nash(game, _fracs(claim["x"]), _fracs(claim["y"]))

    def edit(self, game: Game, claim: MixedProfileClaim, want: bool) -> Game:
        if want:
            return make_indifferent(game, _fracs(claim["x"]), _fracs(claim["y"]))
        return raise_first(game)

    def _profile(self, claim: MixedProfileClaim) -> str:
        return (f"{mix_text(1, _fracs(claim['x']))}, while "
                f"{mix_text(2, _fracs(claim['y']))}")

    def question(self, claim: MixedProfileClaim) -> str:
        return f"Is it a Nash equilibrium that {self._profile(claim)}?"

    def goal(self, claim: MixedProfileClaim, want: bool) -> str:
        return (f"it {'is' if want else 'is not'} a Nash equilibrium that "
                f"{self._profile(claim)}")

    def constraints(self, rng: np.random.Generator) -> MixedNashConstraints:
        p = DECIMALS[int(rng.integers(len(DECIMALS)))]
        return {"shape": [2, 2], "player": int(rng.integers(1, 3)), "p": fraction_text(p),
                "unique": None}

    def describe(self, c: MixedNashConstraints) -> list[str]:
        p = Fraction(c["p"])
        return [f"In the mixed strategy Nash equilibrium, Player {c['player']} should take "
                f"Action 1 with a probability of {prob_text(p)} and Action 2 with a probability "
                f"of {prob_text(1 - p)}."]

    def build_example(self, rng: np.random.Generator, c: MixedNashConstraints) -> Game:
        p, other = Fraction(c["p"]), DECIMALS[int(rng.integers(len(DECIMALS)))]
        return mixed_nash_game(rng, p, other) if c["player"] == 1 else mixed_nash_game(
            rng, other, p)

    def unmet(self, game: Game, c: MixedNashConstraints) -> str | None:
        p = Fraction(c["p"])
        if nash_partner(game, c["player"], (p, 1 - p)) is None:
            return (f"no Nash equilibrium has Player {c['player']} take Action 1 with "
                    f"probability {prob_text(p)}")
        return None


class BestResponse(GameConcept[BestResponseClaim, BestResponseConstraints]):
    """Given the opponent's mix, is this strategy a best response?"""

    key, name = "game-theory/best-response", "Best Response"
    phrase = "a best response"
    untested_because = ("a best response is relative to the other player's strategy, which a "
                        "game alone does not give")

    def sample(self, rng: np.random.Generator, positive: bool
               ) -> tuple[Game, BestResponseClaim]:
        m, n = random_shape(rng)
        k = int(rng.integers(1, 3))
        mix = decimal_mix(rng, n if k == 1 else m)
        s = int(rng.integers(m if k == 1 else n))
        game = best_response_game(rng, (m, n), k, mix, s, positive=positive)
        return game, {"player": k, "mix": [fraction_text(p) for p in mix], "strategy": s}

    def holds(self, game: Game, claim: BestResponseClaim) -> bool:
        return claim["strategy"] in best_responses(game, claim["player"], _fracs(claim["mix"]))

    def edit(self, game: Game, claim: BestResponseClaim, want: bool) -> Game:
        return set_best_response(game, claim["player"], _fracs(claim["mix"]),
                                 claim["strategy"], want)

    def question(self, claim: BestResponseClaim) -> str:
        k = claim["player"]
        return (f"{mix_text(3 - k, _fracs(claim['mix']))}. Is {label(k, claim['strategy'])} a "
                f"best response for Player {k}?")

    def goal(self, claim: BestResponseClaim, want: bool) -> str:
        k = claim["player"]
        return (f"{label(k, claim['strategy'])} {'is' if want else 'is not'} a best response "
                f"for Player {k} when {mix_text(3 - k, _fracs(claim['mix']))}")

    def constraints(self, rng: np.random.Generator) -> BestResponseConstraints:
        mixer = 1 if rng.random() < 0.75 else 2  # the paper always mixes player 1
        size = int(rng.integers(3, 5))
        mix = decimal_mix(rng, 3)
        return {"shape": [3, size] if mixer == 1 else [size, 3], "player": 3 - mixer,
                "mix": [fraction_text(p) for p in mix], "strategy": int(rng.integers(3)),
                "unique": "all" if rng.random() < 0.5 else None}

    def describe(self, c: BestResponseConstraints) -> list[str]:
        k, mix = c["player"], [prob_text(Fraction(p)) for p in c["mix"]]
        return [f"In the game, imagine Player {3 - k} chooses the first action with a "
                f"probability of {mix[0]}, the second action with a probability of {mix[1]}, "
                f"and the third action with a probability of {mix[2]}. Player {k}'s best "
                f"response to this should be the {ORDINALS[c['strategy']]} action, and no "
                f"other action of Player {k} may be a best response."]

    def build_example(self, rng: np.random.Generator, c: BestResponseConstraints) -> Game:
        return lifted(best_response_game(rng, shape_of(c), c["player"], _fracs(c["mix"]),
                                         c["strategy"], only=True, unique=c["unique"] == "all"))

    def unmet(self, game: Game, c: BestResponseConstraints) -> str | None:
        found = best_responses(game, c["player"], _fracs(c["mix"]))
        if found != [c["strategy"]]:
            names = ", ".join(ORDINALS[s] for s in found)
            return f"Player {c['player']}'s best responses are the {names} action(s)"
        return None
