"""Generators make instances that pass their checker and near misses that fail it; checkers
behave under relabelling strategies and swapping players."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from verstehen.domains.game_theory import generate as gen
from verstehen.domains.game_theory import generate_equilibria as geq
from verstehen.domains.game_theory import generate_outcomes as gout
from verstehen.domains.game_theory.checks import (
    best_responses,
    check_elimination,
    iesds,
    is_nash,
    is_pareto_optimal,
    is_pure_nash,
    is_symmetric,
    is_zero_sum,
    mixed_nash,
    nash_partner,
    own_payoffs,
    pareto_optimal,
    pure_nash,
    strictly_dominant,
    strictly_dominates,
    weakly_dominant,
)
from verstehen.domains.game_theory.game import Game

SEEDS = st.integers(0, 2**32 - 1)
SHAPES = st.tuples(st.integers(2, 4), st.integers(2, 4))
NICE = (*gen.DECIMALS, Fraction(1, 3), Fraction(2, 3), Fraction(1, 4), Fraction(3, 4))
FEW = settings(max_examples=40, deadline=None)


@st.composite
def games(draw: st.DrawFn, hi: int = 3) -> Game:
    """Small games with many ties (payoffs 0..hi), 1 to 4 strategies a side."""
    m, n = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    pair = st.tuples(st.integers(0, hi), st.integers(0, hi))
    return Game.of(draw(st.lists(st.lists(pair, min_size=n, max_size=n), min_size=m,
                                 max_size=m)))


def _all_distinct(game: Game) -> bool:
    values = [x for row in game.cells for cell in row for x in cell]
    return len(set(values)) == len(values)


# ---------------------------------------------------------------- generators

@FEW
@given(SEEDS, SHAPES, st.sampled_from(["strict", "weak", "no-strict", "no-weak", "free"]),
       st.sampled_from(["strict", "weak", "no-strict", "no-weak", "free"]))
def test_dominance_kinds(seed: int, shape: tuple[int, int], k1: str, k2: str) -> None:
    game = gen.dominance_game(np.random.default_rng(seed), shape, k1, k2)  # type: ignore[arg-type]
    assert game.shape == shape
    for player, kind in ((1, k1), (2, k2)):
        strict, weak = strictly_dominant(game, player), weakly_dominant(game, player)
        if kind == "strict":
            assert strict is not None and weak == [strict]
        if kind == "weak":
            assert strict is None and len(weak) == 1
        if kind == "no-strict":
            assert strict is None
        if kind == "no-weak":
            u = own_payoffs(game, player)
            assert weak == [] and len({tuple(r) for r in u}) == len(u)


@FEW
@given(SEEDS, SHAPES, st.sampled_from([1, 2]), st.sampled_from(["strict", "weak"]))
def test_dominant_strategy_gets_the_given_payoffs(seed: int, shape: tuple[int, int],
                                                  player: int, kind: str) -> None:
    rng = np.random.default_rng(seed)
    values = gen.payoff_list(rng, shape[1] if player == 1 else shape[0])
    kinds = {player: kind, 3 - player: "free"}
    game = gen.dominance_game(rng, shape, kinds[1], kinds[2], top=(player, values))  # type: ignore[arg-type]
    s = weakly_dominant(game, player)[0]
    assert own_payoffs(game, player)[s] == values


@FEW
@given(SEEDS, SHAPES, st.integers(1, 4), st.integers(1, 4))
def test_iterated_dominance_shapes(seed: int, start: tuple[int, int], c: int, d: int) -> None:
    end = (min(c, start[0]), min(d, start[1]))
    rng = np.random.default_rng(seed)
    game = gen.iesds_game(rng, start, end)
    assert game.shape == start and iesds(game).shape == end
    if end != start:
        near, rows, cols = gen.iesds_near_miss(rng, start, end)
        left = iesds(near)
        assert (len(rows), len(cols)) == end and (left.rows, left.cols) != (rows, cols)


@FEW
@given(SEEDS, SHAPES, st.booleans(), st.booleans(), st.booleans(), st.sampled_from([0, 1, 2]))
def test_pure_nash_generator(seed: int, shape: tuple[int, int], positive: bool, only: bool,
                             unique: bool, fixed: int) -> None:
    rng = np.random.default_rng(seed)
    cell = (int(rng.integers(shape[0])), int(rng.integers(shape[1])))
    size = shape[1] if fixed == 1 else shape[0]
    payoffs = (fixed, gen.payoff_list(rng, size, unique)) if fixed and positive else None
    game = geq.pure_nash_game(rng, shape, cell, positive=positive, payoffs=payoffs,
                              only=only and positive, unique=unique)
    assert is_pure_nash(game, *cell) == positive
    if positive and only:
        assert pure_nash(game) == [cell]
    if unique:
        assert _all_distinct(game)
    if payoffs:
        assert own_payoffs(game, fixed)[cell[fixed - 1]] == payoffs[1]


@FEW
@given(SEEDS, st.sampled_from(NICE), st.sampled_from(NICE))
def test_mixed_nash_generator(seed: int, p: Fraction, q: Fraction) -> None:
    game = geq.mixed_nash_game(np.random.default_rng(seed), p, q)
    x, y = (p, 1 - p), (q, 1 - q)
    assert is_nash(game, x, y)
    assert ((x, y)) in mixed_nash(game)
    assert nash_partner(game, 1, x) == y and nash_partner(game, 2, y) == x
    other = Fraction(1, 2) if p != Fraction(1, 2) else Fraction(1, 3)
    assert not is_nash(game, (other, 1 - other), y)
    assert all(0 <= v <= 9 for row in game.cells for cell in row for v in cell)


@FEW
@given(SEEDS, SHAPES, st.integers(1, 5), st.booleans())
def test_pareto_generators(seed: int, shape: tuple[int, int], count: int, unique: bool) -> None:
    rng = np.random.default_rng(seed)
    count = min(count, shape[0] * shape[1])
    game = gout.pareto_game(rng, shape, count, unique=unique)
    assert len(pareto_optimal(game)) == count
    assert _all_distinct(game) or not unique
    for positive in (True, False):
        game, cell = gout.pareto_cell_game(rng, shape, positive)
        assert is_pareto_optimal(game, *cell) == positive


@FEW
@given(SEEDS, SHAPES, st.sampled_from([1, 2]), st.booleans(), st.booleans(), st.booleans())
def test_best_response_generator(seed: int, shape: tuple[int, int], player: int,
                                 positive: bool, only: bool, unique: bool) -> None:
    rng = np.random.default_rng(seed)
    own, opp = shape if player == 1 else shape[::-1]
    mix, s = geq.decimal_mix(rng, opp), int(rng.integers(own))
    assert sum(mix) == 1 and all(p >= 0 for p in mix)
    game = geq.best_response_game(rng, shape, player, mix, s, positive=positive, only=only,
                                  unique=unique)
    found = best_responses(game, player, mix)
    assert (s in found) == positive
    if positive and only:
        assert found == [s]
    assert _all_distinct(game) or not unique


@FEW
@given(SEEDS, SHAPES, st.sampled_from([1, 2]), st.booleans())
def test_zero_sum_and_symmetric_generators(seed: int, shape: tuple[int, int], player: int,
                                           unique: bool) -> None:
    rng = np.random.default_rng(seed)
    own, opp = shape if player == 1 else shape[::-1]
    action, values = int(rng.integers(own)), gen.payoff_list(rng, opp, distinct=unique)
    game = gout.zero_sum_game(rng, shape, payoffs=(player, action, values), unique=unique)
    assert is_zero_sum(game) and own_payoffs(game, player)[action] == values
    assert _all_distinct(game) or not unique
    assert not is_zero_sum(gout.zero_sum_near_miss(rng, shape))
    n = shape[0]
    values = gen.payoff_list(rng, n, distinct=unique)
    game = gout.symmetric_game(rng, n, payoffs=(player, action % n, values), distinct=unique)
    assert is_symmetric(game) and own_payoffs(game, player)[action % n] == values
    p1 = [a for row in game.cells for a, _ in row]
    assert len(set(p1)) == len(p1) or not unique
    assert not is_symmetric(gout.symmetric_near_miss(rng, n))


# ---------------------------------------------------------------- checker invariances

@settings(max_examples=80, deadline=None)
@given(games(), st.data())
def test_relabelling_strategies(game: Game, data: st.DataObject) -> None:
    m, n = game.shape
    rows = data.draw(st.permutations(range(m)))
    cols = data.draw(st.permutations(range(n)))
    moved = game.permute(rows, cols)
    new_row, new_col = {old: k for k, old in enumerate(rows)}, {old: k for k, old in
                                                                enumerate(cols)}
    s1, s2 = strictly_dominant(game, 1), strictly_dominant(game, 2)
    assert strictly_dominant(moved, 1) == (None if s1 is None else new_row[s1])
    assert strictly_dominant(moved, 2) == (None if s2 is None else new_col[s2])
    assert weakly_dominant(moved, 1) == sorted(new_row[s] for s in weakly_dominant(game, 1))
    assert set(pure_nash(moved)) == {(new_row[i], new_col[j]) for i, j in pure_nash(game)}
    assert set(pareto_optimal(moved)) == {(new_row[i], new_col[j])
                                          for i, j in pareto_optimal(game)}
    left, left_moved = iesds(game), iesds(moved)
    assert sorted(left_moved.rows) == sorted(new_row[i] for i in left.rows)
    assert sorted(left_moved.cols) == sorted(new_col[j] for j in left.cols)
    assert is_zero_sum(moved) == is_zero_sum(game)
    if m == n:
        assert is_symmetric(game.permute(rows, rows)) == is_symmetric(game)
    mix = tuple(Fraction(1, m) for _ in range(m))
    assert sorted(best_responses(moved, 2, mix)) == sorted(
        new_col[j] for j in best_responses(game, 2, mix))


@settings(max_examples=80, deadline=None)
@given(games())
def test_swapping_players(game: Game) -> None:
    flipped = game.transpose()
    for player in (1, 2):
        assert strictly_dominant(flipped, 3 - player) == strictly_dominant(game, player)
        assert weakly_dominant(flipped, 3 - player) == weakly_dominant(game, player)
    assert sorted(pure_nash(flipped)) == sorted((j, i) for i, j in pure_nash(game))
    assert sorted(pareto_optimal(flipped)) == sorted((j, i) for i, j in pareto_optimal(game))
    left, left_flipped = iesds(game), iesds(flipped)
    assert (left_flipped.rows, left_flipped.cols) == (left.cols, left.rows)
    assert is_zero_sum(flipped) == is_zero_sum(game)
    assert is_symmetric(flipped) == is_symmetric(game)
    m = game.shape[0]
    mix = tuple(Fraction(k + 1, m * (m + 1) // 2) for k in range(m))
    assert best_responses(flipped, 1, mix) == best_responses(game, 2, mix)


@settings(max_examples=80, deadline=None)
@given(games(), st.randoms(use_true_random=False))
def test_iterated_elimination_is_order_independent(game: Game, random: object) -> None:
    # remove a random strictly dominated strategy each time until none is left
    alive = [list(range(game.shape[0])), list(range(game.shape[1]))]
    steps: list[tuple[int, int]] = []
    while True:
        options = [(p, s) for p in (1, 2) for s in alive[p - 1]
                   if any(_dominated_by(game, p, s, t, alive) for t in alive[p - 1])]
        if not options:
            break
        p, s = random.choice(options)  # type: ignore[attr-defined]
        alive[p - 1].remove(s)
        steps.append((p, s))
    assert check_elimination(game, steps, complete=True) is None
    left = iesds(game)
    assert [list(left.rows), list(left.cols)] == alive
    assert check_elimination(game, left.steps, complete=True) is None


def _dominated_by(game: Game, player: int, s: int, t: int, alive: list[list[int]]) -> bool:
    opp = alive[2 - player]
    if s == t:
        return False
    if player == 1:
        return all(game.cells[t][o][0] > game.cells[s][o][0] for o in opp)
    return all(game.cells[o][t][1] > game.cells[o][s][1] for o in opp)


@settings(max_examples=80, deadline=None)
@given(games())
def test_dominance_definitions_fit_together(game: Game) -> None:
    for player in (1, 2):
        strict, weak = strictly_dominant(game, player), weakly_dominant(game, player)
        assert len(weak) <= 1
        if strict is not None:
            assert weak == [strict]
            others = range(len(own_payoffs(game, player)))
            assert all(strictly_dominates(game, player, strict, t) for t in others
                       if t != strict)


@settings(max_examples=30, deadline=None)
@given(st.permutations(range(8)), st.permutations(range(8)))
def test_generic_two_by_two_games_have_an_odd_number_of_equilibria(a: list[int],
                                                                   b: list[int]) -> None:
    # distinct payoffs make a 2x2 game non-degenerate, where equilibria come in odd numbers
    game = Game.of([[(a[0], b[0]), (a[1], b[1])], [(a[2], b[2]), (a[3], b[3])]])
    found = mixed_nash(game)
    assert len(found) % 2 == 1
    pure = [(x.index(1), y.index(1)) for x, y in found if 1 in x and 1 in y]
    assert sorted(pure) == pure_nash(game)
