"""Every condition a game-theory generate or edit prompt states is graded, and only those.

Each test takes an item's reference answer, which meets every stated condition, and moves it as
little as it can so that exactly one condition fails: which ones hold is worked out here, from
the mutated game and the exact checkers (`checks`), not read from the grader. The grader must
call that reply "wrong" and name the condition, and the reference, the condition restored,
"correct"; each test also finds the condition stated in both phrasings of the prompt.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from fractions import Fraction
from itertools import product
from typing import Any

import numpy as np
import pytest

from verstehen.domains.base import Item
from verstehen.domains.game_theory import checks
from verstehen.domains.game_theory.game import Game
from verstehen.domains.game_theory.tasks import GAME_THEORY_TASKS
from verstehen.grading import Graded

STRICT, WEAK = "game-theory/strict-dominance", "game-theory/weak-dominance"
IESDS, PURE, MIXED = ("game-theory/iterated-dominance", "game-theory/pure-nash",
                      "game-theory/mixed-nash")
PARETO, BEST, ZERO, SYMMETRIC = ("game-theory/pareto-optimality", "game-theory/best-response",
                                 "game-theory/zero-sum", "game-theory/symmetric")
KEYS = [STRICT, WEAK, IESDS, PURE, MIXED, PARETO, BEST, ZERO, SYMMETRIC]
UNIQUE_KEYS = [PURE, PARETO, BEST, ZERO, SYMMETRIC]  # the concepts that can ask for it
SEEDS = 80  # items tried, per test, for one that asks for the condition and can break it alone
Grids = list[list[list[Fraction]]]  # [row][column] -> [player 1's payoff, player 2's]
Violations = Callable[[Game, dict[str, Any]], set[str]]
Values = Callable[[Fraction, Game], list[Fraction]]  # what a payoff of a game may move to


# ---------------------------------------------------------------- what holds, worked out here

def _least(game: Game) -> Fraction:
    return min(x for row in game.cells for cell in row for x in cell)


def _dominant(strict: bool) -> Callable[[Game, int], int | None]:
    if strict:
        return checks.strictly_dominant
    return lambda game, player: next(iter(checks.weakly_dominant(game, player)), None)


def _dominance(strict: bool) -> Violations:
    """The dominance constraints a game misses: "dominant" (the asked player has none),
    "payoffs" (its dominant strategy pays otherwise), "other" (the other player has one, or
    not, against what is asked), "not-strict" (weak dominance asked not to be strict)."""
    dominant = _dominant(strict)

    def missed(game: Game, c: dict[str, Any]) -> set[str]:
        k = c["player"]
        out = set()
        s = dominant(game, k)
        if s is None:
            out.add("dominant")
        elif checks.own_payoffs(game, k)[s] != c["payoffs"]:
            out.add("payoffs")
        if (dominant(game, 3 - k) is not None) != (c["players"] == "both"):
            out.add("other")
        if c.get("not_strict") and checks.strictly_dominant(game, k) is not None:
            out.add("not-strict")
        return out
    return missed


def _pure_nash(game: Game, c: dict[str, Any]) -> set[str]:
    found, k = checks.pure_nash(game), c["player"]
    out = set()
    if not any(checks.own_payoffs(game, k)[cell[k - 1]] == c["payoffs"] for cell in found):
        out.add("equilibrium-payoffs")
    if c["only"] and len(found) != 1:
        out.add("only")
    return out


def _payoff_row(holds: Callable[[Game], bool]) -> Violations:
    def missed(game: Game, c: dict[str, Any]) -> set[str]:
        out = set() if holds(game) else {"class"}
        if checks.own_payoffs(game, c["player"])[c["action"]] != c["payoffs"]:
            out.add("row")
        return out
    return missed


def _mix(values: list[str]) -> list[Fraction]:
    return [Fraction(v) for v in values]


CONCEPT: dict[str, Violations] = {
    STRICT: _dominance(True),
    WEAK: _dominance(False),
    IESDS: lambda g, c: set() if list(checks.iesds(g).shape) == c["end"] else {"end"},
    PURE: _pure_nash,
    MIXED: lambda g, c: set() if checks.nash_partner(
        g, c["player"], (Fraction(c["p"]), 1 - Fraction(c["p"]))) is not None else {"mix"},
    PARETO: lambda g, c: set() if len(checks.pareto_optimal(g)) == c["count"] else {"count"},
    BEST: lambda g, c: set() if checks.best_responses(
        g, c["player"], _mix(c["mix"])) == [c["strategy"]] else {"best-response"},
    ZERO: _payoff_row(checks.is_zero_sum),
    SYMMETRIC: _payoff_row(checks.is_symmetric),
}

# The claim of an edit item, straight from the checkers.
CLAIM: dict[str, Callable[[Game, dict[str, Any]], bool]] = {
    STRICT: lambda g, c: checks.strictly_dominant(g, c["player"]) is not None,
    WEAK: lambda g, c: bool(checks.weakly_dominant(g, c["player"])),
    IESDS: lambda g, c: (list(checks.iesds(g).rows), list(checks.iesds(g).cols))
    == (c["rows"], c["cols"]),
    PURE: lambda g, c: tuple(c["cell"]) in checks.pure_nash(g),
    MIXED: lambda g, c: checks.is_nash(g, _mix(c["x"]), _mix(c["y"])),
    PARETO: lambda g, c: tuple(c["cell"]) in checks.pareto_optimal(g),
    BEST: lambda g, c: c["strategy"] in checks.best_responses(g, c["player"], _mix(c["mix"])),
    ZERO: lambda g, c: checks.is_zero_sum(g),
    SYMMETRIC: lambda g, c: checks.is_symmetric(g),
}


def _payoffs_missed(game: Game, nonnegative: bool) -> set[str]:
    out = set()
    if any(x.denominator != 1 for row in game.cells for cell in row for x in cell):
        out.add("integer")
    if nonnegative and _least(game) < 0:
        out.add("non-negative")
    return out


def _unique_missed(game: Game, unique: str | None) -> set[str]:
    p1 = [a for row in game.cells for a, _ in row]
    both = p1 + [b for row in game.cells for _, b in row]
    if unique == "all" and len(set(both)) < len(both):
        return {"unique"}
    if unique == "player1" and len(set(p1)) < len(p1):
        return {"unique"}
    return set()


def generate_missed(key: str, game: Game, c: dict[str, Any]) -> set[str]:
    """The conditions a generate prompt states that `game` misses (any shape but the asked one
    misses the shape alone: nothing else can be read against the constraints)."""
    if list(game.shape) != c["shape"]:
        return {"shape"}
    return (_payoffs_missed(game, key != ZERO) | _unique_missed(game, c["unique"])
            | CONCEPT[key](game, c))


def edit_nonnegative(key: str, shown: Game) -> bool:
    """Whether an edit prompt asks for non-negative payoffs (the README's rule): unless the
    concept is zero-sum or the shown game has a negative payoff."""
    return key != ZERO and _least(shown) >= 0


def edit_missed(key: str, item: Item, game: Game) -> set[str]:
    """The conditions an edit prompt states that `game` misses."""
    shown = Game.from_json(item.data["game"])
    if game.shape != shown.shape:
        return {"shape"}
    out = _payoffs_missed(game, edit_nonnegative(key, shown))
    if CLAIM[key](game, item.data["claim"]) != item.data["make_instance"]:
        out.add("goal")
    return out


# ---------------------------------------------------------------- small moves of a game

def _grids(game: Game) -> Grids:
    return [[list(cell) for cell in row] for row in game.cells]


def _game(cells: Grids) -> Game:
    return Game(tuple(tuple((a, b) for a, b in row) for row in cells))


def _own(cells: Grids, player: int) -> list[list[tuple[int, int]]]:
    """Where each of the player's payoffs sits: [own strategy][opponent strategy] -> (i, j)."""
    m, n = len(cells), len(cells[0])
    if player == 1:
        return [[(i, j) for j in range(n)] for i in range(m)]
    return [[(i, j) for i in range(m)] for j in range(n)]


def moves(game: Game, values: Values) -> Iterator[Game]:
    """Games one small change away, the simplest first: one payoff moved to each of its
    `values`; a cell's two payoffs moved by opposite amounts (a zero-sum cell stays one); a
    payoff and its mirror moved alike (a symmetric game stays one); a player's payoffs against
    one opponent strategy all moved alike (none of the player's comparisons changes); one
    strategy copied over another, or raised above all its player's others; the payoffs that tie
    a strategy lowered by 1; a cell raised above every payoff."""
    cells = _grids(game)
    m, n = game.shape
    for i, j, p in product(range(m), range(n), (0, 1)):
        for v in values(cells[i][j][p], game):
            new = _grids(game)
            new[i][j][p] = v
            yield _game(new)
    for i, j in product(range(m), range(n)):
        a, b = cells[i][j]
        for v in values(a, game):
            new = _grids(game)
            new[i][j] = [v, b - (v - a)]
            yield _game(new)
        if m == n:
            for v in values(a, game):
                new = _grids(game)
                new[i][j][0], new[j][i][1] = v, new[j][i][1] + (v - a)
                yield _game(new)
    for player in (1, 2):
        where = _own(cells, player)
        for o in range(len(where[0])):
            line = [where[s][o] for s in range(len(where))]
            low = min(cells[i][j][player - 1] for i, j in line)
            for v in values(low, game):
                new = _grids(game)
                for i, j in line:
                    new[i][j][player - 1] += v - low
                yield _game(new)
        for s, t in product(range(len(where)), repeat=2):
            if s != t:
                new = _grids(game)
                for (i, j), (k, h) in zip(where[s], where[t], strict=True):
                    new[k][h][player - 1] = cells[i][j][player - 1]
                yield _game(new)
        for s in range(len(where)):
            new, tied = _grids(game), _grids(game)
            for o, (i, j) in enumerate(where[s]):
                top = max(cells[k][h][player - 1] for k, h in (w[o] for w in where))
                new[i][j][player - 1] = top + 1
                for t in range(len(where)):
                    k, h = where[t][o]
                    if t != s and cells[k][h][player - 1] == cells[i][j][player - 1]:
                        tied[k][h][player - 1] -= 1
            yield _game(new)
            yield _game(tied)
    top = max(x for row in cells for cell in row for x in cell)
    for i, j in product(range(m), range(n)):
        new = _grids(game)
        new[i][j] = [top + 1, top + 2]
        yield _game(new)


def near(value: Fraction, game: Game) -> list[Fraction]:
    """Whole-number moves of a payoff, staying at 0 or above."""
    return [value + d for d in (1, -1, 2, -2, 3) if value + d >= 0]


def halves(value: Fraction, game: Game) -> list[Fraction]:
    """Moves to a non-integer."""
    return [value + Fraction(1, 2), value - Fraction(1, 2)]


def below_zero(value: Fraction, game: Game) -> list[Fraction]:
    """Moves to a negative integer."""
    return [Fraction(-1), Fraction(-2)]


def copies(value: Fraction, game: Game) -> list[Fraction]:
    """Moves onto another payoff's value."""
    return sorted({x for row in game.cells for cell in row for x in cell} - {value})


def extra_row(game: Game) -> Game:
    """The game with one more row of new, distinct, non-negative integers."""
    top = int(max(x for row in game.cells for cell in row for x in cell))
    n = game.shape[1]
    row = tuple((Fraction(top + 1 + 2 * j), Fraction(top + 2 + 2 * j)) for j in range(n))
    return Game((*game.cells, row))


# ---------------------------------------------------------------- items and replies

def game_concept(key: str) -> Any:
    """The concept's tasks, a `GameConcept` (the registry types them by the common protocol)."""
    return GAME_THEORY_TASKS[key]


def reference_game(concept: Any, item: Item) -> Game:
    """The reference answer's matrix, read as the Python literal it is."""
    reply = concept.reference(item)
    assert reply.startswith("<OUTPUT>\n")
    return Game.of(ast.literal_eval(reply.removeprefix("<OUTPUT>\n")))


def reply(game: Game) -> str:
    """A reply that reasons, then gives the matrix after the flag."""
    return f"Some reasoning.\n<OUTPUT>\n{game.python_literal()}"


def broken_generate(key: str, condition: str, asks: Callable[[dict[str, Any]], bool],
                    values: Values) -> tuple[Item, Game, Game]:
    """A generate item that `asks` for the condition, its reference game (which meets every
    condition) and that game moved to miss `condition` alone."""
    concept = game_concept(key)
    for seed in range(SEEDS):
        item = concept.generate_item(np.random.default_rng(seed))
        c = item.data["constraints"]
        if not asks(c):
            continue
        right = reference_game(concept, item)
        assert generate_missed(key, right, c) == set(), (c, right)
        for game in moves(right, values):
            if generate_missed(key, game, c) == {condition}:
                return item, right, game
    raise AssertionError(f"no {key} item whose {condition} alone could be broken")


def edit_item(key: str, make: bool, nonnegative: bool | None) -> Iterator[Item]:
    """Edit items whose prompt asks for non-negative payoffs or not, as given (None: either)."""
    concept = game_concept(key)
    for seed in range(SEEDS):
        item = concept.edit_item(np.random.default_rng(seed), make)
        shown = Game.from_json(item.data["game"])
        if nonnegative is None or edit_nonnegative(key, shown) == nonnegative:
            yield item


def broken_edit(key: str, condition: str, make: bool, nonnegative: bool | None,
                values: Values) -> tuple[Item, Game, Game]:
    """An edit item (see `edit_item`), its reference game and that game moved to miss
    `condition` alone."""
    concept = game_concept(key)
    for item in edit_item(key, make, nonnegative):
        right = reference_game(concept, item)
        assert edit_missed(key, item, right) == set(), (item.data, right)
        for game in moves(right, values):
            if edit_missed(key, item, game) == {condition}:
                return item, right, game
    raise AssertionError(f"no {key} edit item whose {condition} alone could be broken")


def assert_wrong_then_right(concept: Any, item: Item, right: Game, wrong: Game,
                            *named: str) -> Graded:
    """`wrong` graded wrong with every word of `named` in the reason; `right` correct."""
    graded = concept.grade(item, reply(wrong))
    assert (graded.score, graded.outcome) == (0.0, "wrong"), (graded, wrong)
    assert graded.reason and all(word in graded.reason for word in named), graded.reason
    again = concept.grade(item, reply(right))
    assert (again.score, again.outcome) == (1.0, "correct"), again.reason
    return graded


def stated(concept: Any, item: Item, table: str, prose: str | None = None) -> None:
    """`table` in the phrasing-0 prompt and `prose` (or `table` again) in the phrasing-1 one."""
    assert table in concept.render(item, 0)
    assert (table if prose is None else prose) in concept.render(item, 1)


def _always(c: dict[str, Any]) -> bool:
    return True


# ---------------------------------------------------------------- generate: every concept

@pytest.mark.parametrize("key", KEYS)
def test_generate_shape(key: str) -> None:
    """The asked m x n: a reply with one more row is wrong for its shape."""
    concept = game_concept(key)
    item = concept.generate_item(np.random.default_rng(0))
    right = reference_game(concept, item)
    m, n = item.data["constraints"]["shape"]
    stated(concept, item, f"Generate a {m}x{n} payoff matrix",
           f"{m} actions for Player 1 and {n} for Player 2")
    taller = extra_row(right)
    assert generate_missed(key, taller, item.data["constraints"]) == {"shape"}
    assert_wrong_then_right(concept, item, right, taller, f"{m + 1}x{n}", f"not {m}x{n}")


@pytest.mark.parametrize("key", KEYS)
def test_generate_integer_payoffs(key: str) -> None:
    """Integer-valued payoffs: one payoff off by a half, all else kept, is wrong."""
    concept = game_concept(key)
    item, right, wrong = broken_generate(key, "integer", _always, halves)
    stated(concept, item, "integer-valued payoffs", "pairs of non-negative integers"
           if key != ZERO else "pairs of integers")
    assert_wrong_then_right(concept, item, right, wrong, "integers")


@pytest.mark.parametrize("key", [k for k in KEYS if k != ZERO])
def test_generate_nonnegative_payoffs(key: str) -> None:
    """Non-negative payoffs (every concept but zero-sum): one payoff below 0, all else kept,
    is wrong, and the reason says which payoff and where."""
    concept = game_concept(key)
    item, right, wrong = broken_generate(key, "non-negative", _always, below_zero)
    stated(concept, item, "non-negative, integer-valued payoffs", "pairs of non-negative integers")
    graded = assert_wrong_then_right(concept, item, right, wrong, "is negative",
                                     "the prompt asks for non-negative payoffs")
    i, j, p = next((i, j, p) for i, row in enumerate(wrong.cells)
                   for j, cell in enumerate(row) for p, x in enumerate(cell) if x < 0)
    assert graded.reason is not None and graded.reason.startswith(
        f"player {p + 1}'s payoff {wrong.cells[i][j][p]} at (R{i + 1}, C{j + 1}) is negative")


def test_generate_zero_sum_is_not_asked_for_nonnegative_payoffs() -> None:
    """Zero-sum prompts ask for integers only (as the benchmark's do): negative payoffs pass."""
    concept = game_concept(ZERO)
    for seed in range(SEEDS):
        item = concept.generate_item(np.random.default_rng(seed))
        right = reference_game(concept, item)
        if _least(right) < 0:
            break
    assert _least(right) < 0
    for phrasing in (0, 1):
        assert "non-negative" not in concept.render(item, phrasing)
    stated(concept, item, "integer-valued payoffs", "pairs of integers")
    assert concept.grade(item, reply(right)).outcome == "correct"
    assert not concept.asks_nonnegative()


@pytest.mark.parametrize("key", UNIQUE_KEYS)
def test_generate_unique_payoffs(key: str) -> None:
    """All payoffs unique (player 1's, for symmetric games), when asked: one payoff moved onto
    another's value, all else kept, is wrong."""
    concept = game_concept(key)
    item, right, wrong = broken_generate(key, "unique", lambda c: c["unique"] is not None, copies)
    if item.data["constraints"]["unique"] == "all":
        stated(concept, item, "all numbers must be unique, regardless of which Player")
        named = "the payoff numbers are not all unique"
    else:
        stated(concept, item, "All of Player 1's payoffs must be different numbers")
        named = "player 1's payoffs are not all different"
    assert_wrong_then_right(concept, item, right, wrong, named)


@pytest.mark.parametrize("key", UNIQUE_KEYS)
def test_generate_repeated_payoffs_pass_when_not_asked(key: str) -> None:
    """Without the demand, neither phrasing asks for unique payoffs and a repeat the demand
    would forbid passes."""
    concept = game_concept(key)
    demand = "player1" if key == SYMMETRIC else "all"
    for seed in range(SEEDS):
        item = concept.generate_item(np.random.default_rng(seed))
        c = item.data["constraints"]
        if c["unique"] is not None:
            continue
        right = reference_game(concept, item)
        repeated = next((g for g in moves(right, copies)
                         if _unique_missed(g, demand) and not generate_missed(key, g, c)), None)
        if repeated is not None:
            break
    assert repeated is not None
    for phrasing in (0, 1):
        assert "unique" not in concept.render(item, phrasing)
        assert "different numbers" not in concept.render(item, phrasing)
    assert concept.grade(item, reply(repeated)).outcome == "correct"


# ---------------------------------------------------------------- generate: each concept's own

@pytest.mark.parametrize("key", [STRICT, WEAK])
def test_dominance_the_asked_player_has_a_dominant_strategy(key: str) -> None:
    """"There must be a strictly (weakly) dominant strategy for ... Player k"."""
    concept = game_concept(key)
    item, right, wrong = broken_generate(key, "dominant", _always, near)
    c, adverb = item.data["constraints"], concept.adverb
    stated(concept, item, f"there must be a {adverb} dominant strategy for")
    assert_wrong_then_right(concept, item, right, wrong,
                            f"Player {c['player']} has no {adverb} dominant strategy")


@pytest.mark.parametrize(("key", "players"),
                         list(product([STRICT, WEAK], ["both", "one"])))
def test_dominance_the_other_player(key: str, players: str) -> None:
    """"... for both players" or "only one player, Player k (Player j must have none)"."""
    concept = game_concept(key)
    item, right, wrong = broken_generate(key, "other", lambda c: c["players"] == players, near)
    c, adverb = item.data["constraints"], concept.adverb
    other = 3 - c["player"]
    if players == "both":
        stated(concept, item, f"{adverb} dominant strategy for both players")
        named = f"Player {other} has no {adverb} dominant strategy"
    else:
        stated(concept, item, f"only one player, Player {c['player']} (Player {other} must "
                              f"have none)")
        named = f"Player {other} has a {adverb} dominant strategy too"
    assert_wrong_then_right(concept, item, right, wrong, named)


@pytest.mark.parametrize("key", [STRICT, WEAK])
def test_dominance_the_dominant_strategys_payoffs(key: str) -> None:
    """"In the row (column) that is ... dominant for Player k, Player k receives [..]"."""
    concept = game_concept(key)
    item, right, wrong = broken_generate(key, "payoffs", _always, near)
    c = item.data["constraints"]
    stated(concept, item, f"Player {c['player']} receives a payoff of {c['payoffs']}")
    assert_wrong_then_right(concept, item, right, wrong, f"not {c['payoffs']}")


def test_weak_dominance_not_strictly_dominant() -> None:
    """"Player k's weakly dominant strategy must not be strictly dominant"."""
    concept = game_concept(WEAK)
    item, right, wrong = broken_generate(WEAK, "not-strict", lambda c: c["not_strict"], near)
    c = item.data["constraints"]
    stated(concept, item, f"Player {c['player']}'s weakly dominant strategy must not be "
                          f"strictly dominant.")
    assert_wrong_then_right(concept, item, right, wrong, "is strictly dominant")


def test_iterated_dominance_end_shape() -> None:
    """"Start with an a x b matrix and end with a c x d matrix"."""
    concept = game_concept(IESDS)
    item, right, wrong = broken_generate(IESDS, "end", _always, near)
    (a, b), (e, f) = item.data["constraints"]["shape"], item.data["constraints"]["end"]
    stated(concept, item, f"Start with a {a}x{b} matrix and end with a {e}x{f} matrix")
    left = checks.iesds(wrong).shape
    assert_wrong_then_right(concept, item, right, wrong, f"leaves a {left[0]}x{left[1]} game",
                            f"not {e}x{f}")


def test_pure_nash_equilibrium_in_the_given_line() -> None:
    """"In the row (column) that contains the pure strategy Nash equilibrium, Player k
    receives [..]"."""
    concept = game_concept(PURE)
    item, right, wrong = broken_generate(PURE, "equilibrium-payoffs", _always, near)
    c = item.data["constraints"]
    stated(concept, item, f"contains {'the' if c['only'] else 'a'} pure strategy Nash "
                          f"equilibrium, Player {c['player']} receives a payoff of "
                          f"{c['payoffs']}")
    assert_wrong_then_right(concept, item, right, wrong, str(c["payoffs"]))


def test_pure_nash_exactly_one() -> None:
    """"The game must have exactly one pure strategy Nash equilibrium"."""
    concept = game_concept(PURE)
    item, right, wrong = broken_generate(PURE, "only", lambda c: c["only"], near)
    stated(concept, item, "The game must have exactly one pure strategy Nash equilibrium.")
    found = len(checks.pure_nash(wrong))
    assert_wrong_then_right(concept, item, right, wrong,
                            f"has {found} pure-strategy Nash equilibria, not exactly one")


def test_mixed_nash_mixing_probability() -> None:
    """"In the mixed strategy Nash equilibrium, Player k should take Action 1 with a
    probability of p"."""
    concept = game_concept(MIXED)
    item, right, wrong = broken_generate(MIXED, "mix", _always, near)
    c = item.data["constraints"]
    p = f"{float(Fraction(c['p'])):g}"
    stated(concept, item, f"Player {c['player']} should take Action 1 with a probability of "
                          f"{p}")
    assert_wrong_then_right(concept, item, right, wrong, f"Player {c['player']} take Action 1",
                            f"probability {p}")


def test_pareto_count() -> None:
    """"Exactly e distinct Pareto optimal outcomes (cells of the matrix)"."""
    concept = game_concept(PARETO)
    item, right, wrong = broken_generate(PARETO, "count", _always, near)
    e = item.data["constraints"]["count"]
    stated(concept, item, f"exactly {e} distinct Pareto optimal outcome")
    found = len(checks.pareto_optimal(wrong))
    assert_wrong_then_right(concept, item, right, wrong,
                            f"has {found} Pareto-optimal outcomes, not {e}")


def test_best_response_to_the_mix() -> None:
    """"Player k's best response to this should be the s-th action, and no other"."""
    concept = game_concept(BEST)
    item, right, wrong = broken_generate(BEST, "best-response", _always, near)
    c = item.data["constraints"]
    ordinal = ("first", "second", "third", "fourth")[c["strategy"]]
    stated(concept, item, f"Player {c['player']}'s best response to this should be the "
                          f"{ordinal} action, and no other action")
    assert_wrong_then_right(concept, item, right, wrong, f"Player {c['player']}'s best responses")


@pytest.mark.parametrize(("key", "words"), [(ZERO, ("Zero-Sum Game", "a zero-sum game")),
                                            (SYMMETRIC, ("Symmetric Game", "a symmetric game"))])
def test_the_class_of_game(key: str, words: tuple[str, str]) -> None:
    """"Generate an example of ... Zero-Sum (Symmetric) Game": the game must be one."""
    concept = game_concept(key)
    item, right, wrong = broken_generate(key, "class", _always, near)
    stated(concept, item, f"concept in game theory: {words[0]}.", f"illustrates {words[1]}.")
    assert_wrong_then_right(concept, item, right, wrong, f"the game is not {concept.adjective}")


@pytest.mark.parametrize("key", [ZERO, SYMMETRIC])
def test_the_given_payoff_row(key: str) -> None:
    """"If Player k takes the s-th action, they should receive a payoff of [..]"."""
    concept = game_concept(key)
    item, right, wrong = broken_generate(key, "row", _always, near)
    c = item.data["constraints"]
    ordinal = ("first", "second", "third", "fourth")[c["action"]]
    stated(concept, item, f"If Player {c['player']} takes the {ordinal} action, they should "
                          f"receive a payoff of {c['payoffs']}")
    assert_wrong_then_right(concept, item, right, wrong, f"{ordinal} action pays",
                            f"not {c['payoffs']}")


# ---------------------------------------------------------------- edit

@pytest.mark.parametrize(("key", "make"), list(product(KEYS, [True, False])))
def test_edit_same_shape(key: str, make: bool) -> None:
    """"The whole changed m x n payoff matrix (the same shape as the example)"."""
    concept = game_concept(key)
    item = concept.edit_item(np.random.default_rng(1), make)
    right = reference_game(concept, item)
    m, n = Game.from_json(item.data["game"]).shape
    stated(concept, item, f"the whole changed {m}x{n} payoff matrix (the same shape as the "
                          f"example)", "the whole edited game (same size)")
    taller = extra_row(right)
    assert edit_missed(key, item, taller) == {"shape"}
    graded = assert_wrong_then_right(concept, item, right, taller,
                                     f"the edited matrix is {m + 1}x{n}, the original {m}x{n}")
    assert graded.parsed == {"game": taller.to_json(), "changed": None}


@pytest.mark.parametrize(("key", "make"), list(product(KEYS, [True, False])))
def test_edit_integer_payoffs(key: str, make: bool) -> None:
    """Integer-valued payoffs, asked of every edit."""
    concept = game_concept(key)
    item, right, wrong = broken_edit(key, "integer", make, None, halves)
    stated(concept, item, "integer-valued payoffs", "integers (Player 2's actions in order)")
    assert_wrong_then_right(concept, item, right, wrong, "the payoffs are not all integers")


@pytest.mark.parametrize(("key", "make"),
                         list(product([k for k in KEYS if k != ZERO], [True, False])))
def test_edit_nonnegative_payoffs(key: str, make: bool) -> None:
    """Non-negative payoffs, asked of an edit unless the game is zero-sum or the game shown
    has a negative payoff."""
    concept = game_concept(key)
    item, right, wrong = broken_edit(key, "non-negative", make, True, below_zero)
    stated(concept, item, "non-negative, integer-valued payoffs", "pairs of non-negative integers")
    assert_wrong_then_right(concept, item, right, wrong, "is negative",
                            "the prompt asks for non-negative payoffs")


@pytest.mark.parametrize(("key", "make"), list(product([IESDS, ZERO], [True, False])))
def test_edit_negative_payoffs_pass_when_not_asked(key: str, make: bool) -> None:
    """A game shown with a negative payoff (iterated dominance often has one) or a zero-sum
    game: neither phrasing asks for non-negative payoffs, and a negative one passes."""
    concept = game_concept(key)
    for item in edit_item(key, make, False):
        right = reference_game(concept, item)
        kept = next((g for g in moves(right, below_zero)
                     if _least(g) < 0 and not edit_missed(key, item, g)), None)
        if kept is not None:
            break
    assert kept is not None
    for phrasing in (0, 1):
        assert "non-negative" not in concept.render(item, phrasing)
    stated(concept, item, "integer-valued payoffs", "pairs of integers")
    assert concept.grade(item, reply(kept)).outcome == "correct"
    assert not concept.asks_nonnegative(Game.from_json(item.data["game"]))


@pytest.mark.parametrize(("key", "make"), list(product(KEYS, [True, False])))
def test_edit_goal(key: str, make: bool) -> None:
    """"Change the payoffs so that <claim holds / fails>"."""
    concept = game_concept(key)
    item, right, wrong = broken_edit(key, "goal", make, None, near)
    goal = concept.goal(item.data["claim"], make)
    stated(concept, item, f"change the payoffs so that {goal}.",
           f"Edit the payoffs of this game so that {goal}:")
    assert_wrong_then_right(concept, item, right, wrong, f"after the edit it is not so that {goal}")


# ---------------------------------------------------------------- one source for both

@pytest.mark.parametrize("key", KEYS)
def test_prompt_and_grade_read_one_rule_for_nonnegative(key: str) -> None:
    """Over many items, a prompt words "non-negative" exactly when `asks_nonnegative` says so,
    and a negative payoff is held against a reply exactly then."""
    concept = game_concept(key)
    rng = np.random.default_rng(5)
    for k in range(20):
        item = concept.generate_item(rng) if k % 3 == 0 else concept.edit_item(rng, k % 3 == 1)
        shown = Game.from_json(item.data["game"]) if item.kind == "edit" else None
        asked = concept.asks_nonnegative(shown)
        assert asked is (key != ZERO and (shown is None or _least(shown) >= 0))
        for phrasing in (0, 1):
            assert ("non-negative" in concept.render(item, phrasing)) is asked
        right = reference_game(concept, item)
        lowered = next(g for g in moves(right, below_zero) if _least(g) < 0)
        reason = concept.grade(item, reply(lowered)).reason or ""
        assert ("the prompt asks for non-negative payoffs" in reason) is asked
