"""Exact game-theory checkers on textbook games, expected values worked out by hand."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from verstehen.domains.game_theory.checks import (
    as_mix,
    best_responses,
    check_elimination,
    expected_payoffs,
    iesds,
    is_nash,
    is_pareto_optimal,
    is_pure_nash,
    is_symmetric,
    is_zero_sum,
    mixed_nash,
    nash_partner,
    pareto_optimal,
    pure_nash,
    strictly_dominant,
    strictly_dominates,
    weakly_dominant,
    weakly_dominates,
)
from verstehen.domains.game_theory.game import Game

# Row 1 / column 1 = cooperate, row 2 / column 2 = defect.
PD = Game.of([[(3, 3), (0, 5)], [(5, 0), (1, 1)]])
PENNIES = Game.of([[(1, -1), (-1, 1)], [(-1, 1), (1, -1)]])
# Row player prefers (R1, C1) = 2, column player (R2, C2) = 2.
BOS = Game.of([[(2, 1), (0, 0)], [(0, 0), (1, 2)]])
STAG = Game.of([[(4, 4), (0, 3)], [(3, 0), (3, 3)]])
RPS = Game.of([[(0, 0), (-1, 1), (1, -1)],
               [(1, -1), (0, 0), (-1, 1)],
               [(-1, 1), (1, -1), (0, 0)]])
# Solvable by IESDS in exactly one order: C3 (by C2 or C1), then R3 (by R1), then C1 (by C2),
# then R2 (by R1), leaving (R1, C2).
DOMINO = Game.of([[(4, 2), (3, 3), (0, 1)],
                  [(5, 1), (2, 2), (1, 0)],
                  [(3, 4), (2, 1), (5, 0)]])
# R4 pays 5 everywhere, more than any other row; in row R4 player 2's best is C3 (9).
FOUR = Game.of([[(1, 0), (2, 1), (3, 2), (4, 3)],
                [(2, 3), (3, 2), (4, 1), (1, 0)],
                [(3, 1), (4, 1), (1, 1), (2, 1)],
                [(5, 1), (5, 2), (5, 9), (5, 3)]])
HALF = (F(1, 2), F(1, 2))


def test_prisoners_dilemma() -> None:
    assert strictly_dominant(PD, 1) == 1 and strictly_dominant(PD, 2) == 1
    assert weakly_dominant(PD, 1) == [1] and weakly_dominant(PD, 2) == [1]
    assert pure_nash(PD) == [(1, 1)]
    assert mixed_nash(PD) == [((0, 1), (0, 1))]
    assert pareto_optimal(PD) == [(0, 0), (0, 1), (1, 0)]
    assert not is_pareto_optimal(PD, 1, 1)
    assert iesds(PD).rows == (1,) and iesds(PD).cols == (1,)
    assert is_symmetric(PD) and not is_zero_sum(PD)


def test_matching_pennies() -> None:
    assert pure_nash(PENNIES) == []
    assert mixed_nash(PENNIES) == [(HALF, HALF)]
    assert is_nash(PENNIES, HALF, HALF)
    assert not is_nash(PENNIES, (F(1, 3), F(2, 3)), HALF)
    assert is_zero_sum(PENNIES) and not is_symmetric(PENNIES)
    assert strictly_dominant(PENNIES, 1) is None and weakly_dominant(PENNIES, 2) == []
    assert iesds(PENNIES).steps == ()
    assert len(pareto_optimal(PENNIES)) == 4  # zero-sum: no outcome is better for both


def test_battle_of_the_sexes() -> None:
    assert pure_nash(BOS) == [(0, 0), (1, 1)]
    # player 2 indifferent when p*1 = (1-p)*2, p = 2/3; player 1 when 2q = 1-q, q = 1/3
    mixed = ((F(2, 3), F(1, 3)), (F(1, 3), F(2, 3)))
    assert set(mixed_nash(BOS)) == {((1, 0), (1, 0)), ((0, 1), (0, 1)), mixed}
    assert is_nash(BOS, *mixed)
    assert not is_nash(BOS, (F(1, 3), F(2, 3)), (F(2, 3), F(1, 3)))  # roles swapped
    assert nash_partner(BOS, 1, (F(2, 3), F(1, 3))) == (F(1, 3), F(2, 3))
    assert nash_partner(BOS, 2, (F(1, 3), F(2, 3))) == (F(2, 3), F(1, 3))
    assert nash_partner(BOS, 1, HALF) is None  # player 2 replies C2, where R1 pays 0 < 1
    assert nash_partner(BOS, 1, (1, 0)) == (1, 0)
    assert pareto_optimal(BOS) == [(0, 0), (1, 1)]


def test_stag_hunt() -> None:
    assert pure_nash(STAG) == [(0, 0), (1, 1)]
    # player 2 indifferent when 4p = 3, p = 3/4; symmetric, so q = 3/4
    mixed = ((F(3, 4), F(1, 4)), (F(3, 4), F(1, 4)))
    assert mixed in mixed_nash(STAG) and len(mixed_nash(STAG)) == 3
    assert pareto_optimal(STAG) == [(0, 0)]
    assert strictly_dominant(STAG, 1) is None and weakly_dominant(STAG, 1) == []
    assert is_symmetric(STAG)


def test_rock_paper_scissors() -> None:
    third = (F(1, 3),) * 3
    assert is_zero_sum(RPS) and is_symmetric(RPS)
    assert pure_nash(RPS) == []
    assert mixed_nash(RPS) == [(third, third)]
    assert len(pareto_optimal(RPS)) == 9
    # against rock/paper half and half: rock -1/2, paper 1/2, scissors 0
    assert expected_payoffs(RPS, 1, (F(1, 2), F(1, 2), 0)) == [F(-1, 2), F(1, 2), 0]
    assert best_responses(RPS, 1, (F(1, 2), F(1, 2), 0)) == [1]
    assert best_responses(RPS, 2, third) == [0, 1, 2]


def test_iterated_dominance_order() -> None:
    result = iesds(DOMINO)
    assert (result.rows, result.cols) == ((0,), (1,))
    assert result.steps == ((2, 2), (1, 2), (2, 0), (1, 1))
    assert check_elimination(DOMINO, result.steps, complete=True) is None
    assert check_elimination(DOMINO, [(2, 2), (1, 2)]) is None
    assert "still strictly dominated" in check_elimination(DOMINO, [(2, 2)], complete=True)
    assert "not strictly dominated" in check_elimination(DOMINO, [(1, 2)])  # R3 beats R1 at C3
    assert "not strictly dominated" in check_elimination(DOMINO, [(2, 2), (2, 0)])
    assert "already eliminated" in check_elimination(DOMINO, [(2, 2), (2, 2)])
    assert "no strategy" in check_elimination(DOMINO, [(1, 3)])
    assert "not a (player" in check_elimination(DOMINO, [(3, 0)])


def test_weak_versus_strict() -> None:
    game = Game.of([[(1, 0), (1, 0)], [(1, 0), (0, 0)]])  # R1 ties R2 at C1, beats it at C2
    assert strictly_dominant(game, 1) is None and weakly_dominant(game, 1) == [0]
    assert weakly_dominates(game, 1, 0, 1) and not strictly_dominates(game, 1, 0, 1)
    assert weakly_dominant(game, 2) == []  # the two columns are duplicates for player 2
    duplicates = Game.of([[(2, 0), (2, 0)], [(2, 1), (2, 1)]])
    assert weakly_dominant(duplicates, 1) == []
    single = Game.of([[(1, 0), (2, 5)]])
    assert strictly_dominant(single, 1) is None and weakly_dominant(single, 1) == []
    assert strictly_dominant(single, 2) == 1


def test_best_responses_unique_and_tied() -> None:
    assert best_responses(PENNIES, 1, HALF) == [0, 1]
    assert best_responses(PENNIES, 1, (1, 0)) == [0]
    assert best_responses(PENNIES, 2, (1, 0)) == [1]
    assert best_responses(PD, 1, (F(9, 10), F(1, 10))) == [1]
    with pytest.raises(ValueError):
        best_responses(PD, 1, (F(1, 2), F(1, 3)))
    with pytest.raises(ValueError):
        best_responses(PD, 1, (1, 0, 0))


def test_exact_rational_payoffs() -> None:
    # coordination: player 1 gets 1/3 at (R1, C1) and 1 at (R2, C2); player 2 the reverse
    game = Game.of([[("1/3", 1), (0, 0)], [(0, 0), (1, "1/3")]])
    # player 1 indifferent when q/3 = 1 - q, q = 3/4; player 2 when p = (1 - p)/3, p = 1/4
    x, y = (F(1, 4), F(3, 4)), (F(3, 4), F(1, 4))
    assert is_nash(game, x, y)
    assert not is_nash(game, (F(1, 4) + F(1, 10**9), F(3, 4) - F(1, 10**9)), y)
    assert (x, y) in mixed_nash(game)
    assert best_responses(game, 1, y) == [0, 1]
    assert is_zero_sum(Game.of([[("1/3", "-1/3"), (F(2, 7), F(-2, 7))]]))
    assert not is_zero_sum(Game.of([[(F(1, 3), F(-333333, 10**6))]]))


def test_four_by_four() -> None:
    assert strictly_dominant(FOUR, 1) == 3
    assert strictly_dominant(FOUR, 2) is None
    assert pure_nash(FOUR) == [(3, 2)]
    assert is_pure_nash(FOUR, 3, 2) and not is_pure_nash(FOUR, 3, 3)
    assert iesds(FOUR).rows == (3,) and iesds(FOUR).cols == (2,)
    assert pareto_optimal(FOUR) == [(3, 2)]
    assert mixed_nash(FOUR) == [((0, 0, 0, 1), (0, 0, 1, 0))]
    assert best_responses(FOUR, 2, (0, 0, 0, 1)) == [2]


def test_degenerate_game_equilibria_are_verified() -> None:
    zero = Game.of([[(0, 0), (0, 0)], [(0, 0), (0, 0)]])
    found = mixed_nash(zero)
    assert found and all(is_nash(zero, x, y) for x, y in found)
    assert pure_nash(zero) == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_zero_sum_and_symmetric_definitions() -> None:
    constant_sum = Game.of([[(5, 5), (7, 3)], [(2, 8), (4, 6)]])
    assert not is_zero_sum(constant_sum)
    mirrored = Game.of([[(2, 2), (3, 1)], [(3, 1), (1, 1)]])  # (3, 1) should be (1, 3) at R2 C1
    assert not is_symmetric(mirrored)
    assert is_symmetric(Game.of([[(2, 2), (2, 1)], [(1, 2), (1, 1)]]))  # paper's Fig. 11(c)
    assert not is_symmetric(Game.of([[(1, 1), (2, 2), (3, 3)], [(2, 2), (1, 1), (0, 0)]]))
    with pytest.raises(ValueError):
        nash_partner(RPS, 1, (F(1, 3),) * 3)


def test_decimal_probabilities_are_read_exactly() -> None:
    """0.1/0.9 as floats do not sum to 1 in binary; as decimals they do (Matching Pennies)."""
    pennies = Game.of([[(1, -1), (-1, 1)], [(-1, 1), (1, -1)]])
    assert as_mix((0.1, 0.9), 2) == (F(1, 10), F(9, 10))
    assert as_mix((0.3, 0.7), 2) == (F(3, 10), F(7, 10))
    assert as_mix((1 / 3, 1 / 3, 1 / 3), 3) == (F(1, 3),) * 3
    assert is_nash(pennies, (0.5, 0.5), (0.5, 0.5))
    assert not is_nash(pennies, (0.1, 0.9), (0.5, 0.5))  # player 2 then strictly prefers C1
