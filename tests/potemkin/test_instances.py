"""Claim-free instance tests on replies written by hand as a model might write them.

Each expected answer is worked out from the definition in the comment beside it. Games: player 1
picks the row, each cell is (player 1's payoff, player 2's payoff).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from verstehen.domains.catalog import CONCEPTS
from verstehen.domains.game_theory.instances import MIXED_MAX
from verstehen.domains.game_theory.parse import parse_game
from verstehen.domains.game_theory.tasks.wording import template
from verstehen.methods.potemkin.instances import (
    INSTANCE_REQUESTS,
    INSTANCE_TESTED,
    InstanceCheck,
    instance_check,
)

from domains.test_poetry_checks import SONNET_130 as POEM_130

PD = "[[(3, 3), (0, 5)], [(5, 0), (1, 1)]]"  # prisoner's dilemma
PENNIES = "[[(1, -1), (-1, 1)], [(-1, 1), (1, -1)]]"  # matching pennies
SEXES = "[[(2, 1), (0, 0)], [(0, 0), (1, 2)]]"  # battle of the sexes


def said(matrix: str) -> str:
    """A chatty reply ending with the matrix after the flag."""
    return f"Let me think about the payoffs briefly.\n\nThis works.\n\n<OUTPUT>\n{matrix}"


SONNET_130 = (f"Here is a Shakespearean sonnet:\n\n{POEM_130}\n\n"
              "This sonnet follows the ABAB CDCD EFEF GG rhyme scheme.")

BASHO = "An old silent pond\nA frog jumps into the pond—\nSplash! Silence again."

CASES: list[tuple[str, str, bool]] = [
    # -------------------------------------------------- strict dominance
    # R2 pays player 1 5>3 against C1 and 1>0 against C2: strictly dominant (C2 likewise).
    ("game-theory/strict-dominance", said(PD), True),
    # Player 1 prefers R1 against C1 (1>-1) but R2 against C2 (1>-1); player 2 likewise: none.
    ("game-theory/strict-dominance", said(PENNIES), False),
    # R2 ties R1 against C1 (1=1): only weakly better; player 2 prefers C1 at R1, C2 at R2.
    ("game-theory/strict-dominance", said("[[(1, 1), (0, 0)], [(1, 0), (1, 1)]]"), False),
    # -------------------------------------------------- weak dominance
    # R2 >= R1 everywhere (1=1, 1>0) and better against C2: weakly dominant.
    ("game-theory/weak-dominance", said("[[(1, 1), (0, 0)], [(1, 0), (1, 1)]]"), True),
    # A strictly dominant strategy is weakly dominant too (checks.weakly_dominant).
    ("game-theory/weak-dominance", said(PD), True),
    # R1 and R2 pay player 1 the same (2, 0), C1 and C2 pay player 2 the same: duplicates, and a
    # strategy with a duplicate is not weakly dominant (it is never strictly better).
    ("game-theory/weak-dominance", said("[[(2, 1), (0, 1)], [(2, 0), (0, 0)]]"), False),
    ("game-theory/weak-dominance", said(PENNIES), False),
    # -------------------------------------------------- iterated dominance
    # C3 is dominated by C2 (2>1, 1>0); then R2 by R1 (1>0, 1>0); then C1 by C2 (2>0): (R1, C2).
    ("game-theory/iterated-dominance",
     said("[[(1, 0), (1, 2), (0, 1)], [(0, 3), (0, 1), (2, 0)]]"), True),
    # Both players' first strategies are dominated (5>3, 1>0): one profile (R2, C2) is left.
    ("game-theory/iterated-dominance", said(PD), True),
    # No strategy of the battle of the sexes is strictly dominated: nothing is removed.
    ("game-theory/iterated-dominance", said(SEXES), False),
    # R3 is dominated by R1 (2>-1, 0>-1), but the battle of the sexes that is left stays 2x2.
    ("game-theory/iterated-dominance",
     said("[[(2, 1), (0, 0)], [(0, 0), (1, 2)], [(-1, 0), (-1, 0)]]"), False),
    # A 1x1 game is a single profile, but no strategy is removed: not an instance.
    ("game-theory/iterated-dominance", said("[[(3, 4)]]"), False),
    # -------------------------------------------------- pure Nash equilibrium
    # (U, L): 2 is player 1's best in column L and 1 player 2's best in row U (also (D, R)).
    ("game-theory/pure-nash", "Sure!\n\n<OUTPUT>\n| | L | R |\n|---|---|---|\n"
                              "| U | (2, 1) | (0, 0) |\n| D | (0, 0) | (1, 2) |", True),
    # In every cell one player gains by switching (the loser of the pennies), so none.
    ("game-theory/pure-nash", said(PENNIES), False),
    # -------------------------------------------------- mixed Nash equilibrium
    # Matching pennies: both mix 1/2-1/2, the only equilibrium.
    ("game-theory/mixed-nash", said(PENNIES), True),
    # Battle of the sexes: besides its two pure ones, player 1 plays U with 2/3, player 2 L
    # with 1/3 (each makes the other indifferent: 2q = 1 - q, p = 2(1 - p)).
    ("game-theory/mixed-nash", said(SEXES), True),
    # Degenerate: player 2 gets 1 in row R1 whatever the column, so at R1 any mix is a best
    # response; R1 stays best for player 1 while C1 has weight >= 1/3 (2q >= 1 - q): e.g. 1/2.
    ("game-theory/mixed-nash", said("[[(2, 1), (0, 1)], [(0, 0), (1, 0)]]"), True),
    # Prisoner's dilemma: strictly dominant strategies, so (R2, C2) is the only equilibrium.
    ("game-theory/mixed-nash", said(PD), False),
    # Degenerate, only pure: (R1, C1) and (R2, C2) are equilibria. Player 1 mixing needs both
    # rows best against y, i.e. y = C2, but then C2 is player 2's best only if x puts 0 on R1;
    # player 2 mixing needs x = R2 and then R2 is best only if y puts 0 on C1.
    ("game-theory/mixed-nash", said("[[(1, 1), (0, 0)], [(0, 0), (0, 0)]]"), False),
    # -------------------------------------------------- zero-sum
    # 1 + -1 = 0 in every cell.
    ("game-theory/zero-sum", said(PENNIES), True),
    # Constant-sum (every cell adds up to 1) is not zero-sum.
    ("game-theory/zero-sum", said("[[(1, 0), (0, 1)], [(0, 1), (1, 0)]]"), False),
    # -------------------------------------------------- symmetric
    # Player 1: [[3, 0], [5, 1]], player 2: [[3, 5], [0, 1]] is player 1's transposed.
    ("game-theory/symmetric", "The prisoner's dilemma.\nOUTPUT:\n"
                              "Player 1: [[3, 0], [5, 1]]\nPlayer 2: [[3, 5], [0, 1]]", True),
    # (U, L) pays (2, 1): swapping the players would have to pay both the same on the diagonal.
    ("game-theory/symmetric", said(SEXES), False),
    # Not square, so not symmetric.
    ("game-theory/symmetric", said("[[(1, 1), (0, 0), (2, 2)], [(0, 0), (1, 1), (2, 2)]]"),
     False),
    # -------------------------------------------------- haiku
    # Basho: An-old-si-lent-pond 5, A-frog-jumps-in-to-the-pond 7, Splash-Si-lence-a-gain 5.
    ("poetry/haiku", f"Here is a haiku about stillness:\n\n{BASHO}", True),
    # Title and commentary dropped; the last line, "birds sing", has 2 syllables, not 5.
    ("poetry/haiku", "Sure! Here's a haiku:\n\n**Morning Light**\n\nThe sun rises slow\n"
                     "over the quiet green hills\nbirds sing\n\nThis haiku captures dawn.", False),
    # Four lines, not three.
    ("poetry/haiku", "Sure, here is a non-haiku:\n\nThe sun rises slow\nover the quiet green "
                     "hills\nbirds begin to sing\nand the day is here", False),
    # -------------------------------------------------- Shakespearean sonnet
    # Sonnet 130: 14 lines, ABAB CDCD EFEF GG, iambic pentameter.
    ("poetry/shakespearean-sonnet", SONNET_130, True),
    # "compare" changed to "deny": lines 13/14 "rare"/"deny" no longer rhyme.
    ("poetry/shakespearean-sonnet", SONNET_130.replace("false compare", "false deny"), False),
    # -------------------------------------------------- slant rhyme
    # WORM / SWARM: different stressed vowels, the same closing R M (consonance).
    ("poetry/slant-rhyme", 'Here is a slant rhyme:\n\n"worm" and "swarm"', True),
    # Curly quotes in a sentence are read the same way.
    ("poetry/slant-rhyme", "A slant rhyme pair: “Worm” and “swarm”.", True),
    # The pair on a line of its own is the example; "cat"/"hat" is only mentioned.
    ("poetry/slant-rhyme", 'Unlike "cat" and "hat", which rhyme perfectly, here is one:\n\n'
                           '- **"worm" and "swarm"**', True),
    # CAT / HAT rhyme perfectly, so they are not a slant rhyme.
    ("poetry/slant-rhyme", 'Not a slant rhyme: "cat" and "hat" (a perfect rhyme).', False),
    # "ice cream" is two words: a slant rhyme is a pair of single words.
    ("poetry/slant-rhyme", '"ice cream" and "dream"', False),
    # -------------------------------------------------- anapest
    # in-the-HEAT | of-the-NIGHT: two da-da-DUM feet.
    ("poetry/anapest", "Here's an anapestic line:\n\nin the heat of the night", True),
    # un-der-STAND: one anapest.
    ("poetry/anapest", 'Sure:\n\n"understand"', True),
    # HAP-pi-ly is a dactyl (DUM-da-da).
    ("poetry/anapest", "Here's an anapest:\n\nhappily", False),
    # in-the-MOR-ning-LIGHT: 5 syllables, not whole anapests.
    ("poetry/anapest", "in the morning light", False),
]


@pytest.mark.parametrize(("scope", "reply", "expected"), CASES)
def test_instance_checks(scope: str, reply: str, expected: bool) -> None:
    got = instance_check(scope, reply)
    assert got.is_instance is expected, got.reason
    assert got.reason


def test_every_tested_scope_has_an_instance_and_a_non_instance() -> None:
    for want in (True, False):
        assert {s for s, _, e in CASES if e is want} == INSTANCE_TESTED


def test_reasons_name_what_was_found() -> None:
    assert "player 1's R2" in (instance_check("game-theory/strict-dominance", said(PD)).reason
                               or "")
    assert instance_check("game-theory/mixed-nash", said(PENNIES)).reason == (
        "a Nash equilibrium gives positive probability to player 1's {R1, R2} and player 2's "
        "{C1, C2}")
    assert "(R1, C1) add up to 1" in (instance_check(
        "game-theory/zero-sum", said("[[(1, 0), (0, 1)], [(0, 1), (1, 0)]]")).reason or "")


@pytest.mark.parametrize(("scope", "reply", "why"), [
    ("game-theory/pure-nash", "The prisoner's dilemma is a good example.", "no payoff matrix"),
    ("game-theory/zero-sum", said("[[(1, -1), (0, 0)], [(2, -2)]]"), "row 2"),
    ("game-theory/symmetric", f"{PD}\nThat one fails, so:\n<OUTPUT>\n",
     "nothing follows the last <OUTPUT>"),
    ("game-theory/strict-dominance", "I don't know.", "professes not to know"),
    ("poetry/haiku", "   ", "no poem"),
    ("poetry/anapest", "I'm not sure.", "professes not to know"),
    ("poetry/slant-rhyme", "worm, swarm", 'no word pair written "a" and "b"'),
    ("poetry/slant-rhyme", '"cat" and "hat" or "worm" and "swarm"', "several word pairs"),
])
def test_unreadable_replies_are_none_with_a_reason(scope: str, reply: str, why: str) -> None:
    got = instance_check(scope, reply)
    assert got.is_instance is None
    assert why in (got.reason or "")


def test_mixed_nash_size_limit() -> None:
    k = MIXED_MAX + 1
    big = "[" + ", ".join("[" + ", ".join(["(0, 0)"] * k) + "]" for _ in range(k)) + "]"
    got = instance_check("game-theory/mixed-nash", said(big))
    assert got.is_instance is None and f"at most {MIXED_MAX}" in (got.reason or "")


@pytest.mark.parametrize("scope", ["game-theory/pareto-optimality", "game-theory/best-response"])
def test_untestable_concepts(scope: str) -> None:
    got = instance_check(scope, said(PD))
    assert got == InstanceCheck(None, got.reason)
    assert (got.reason or "").startswith(f"no claim-free instance test for {scope}: ")
    assert scope not in INSTANCE_TESTED


@pytest.mark.parametrize("scope", ["psych/ikea-effect", "literary/haiku", "poetry/rhyme", ""])
def test_non_exact_scopes_raise(scope: str) -> None:
    with pytest.raises(ValueError, match="not an exactly-graded scope"):
        instance_check(scope, said(PD))


def test_requests_cover_every_exact_scope() -> None:
    exact = {c.scope for c in CONCEPTS if c.scope}
    assert len(exact) == 13 and set(INSTANCE_REQUESTS) == exact
    assert all(INSTANCE_REQUESTS[s].strip() for s in exact)
    untested = {"game-theory/pareto-optimality", "game-theory/best-response"}
    assert exact - untested == INSTANCE_TESTED


def test_game_request_is_the_generate_format_and_parses() -> None:
    request = INSTANCE_REQUESTS["game-theory/pure-nash"]
    assert "<OUTPUT>" in request and template(2, 2, one_line=True) in request
    # A reply in exactly the requested layout reads as the game meant.
    reply = "<OUTPUT>\n[[ (3,3), (0,5) ], [ (5,0), (1,1) ]]"
    assert parse_game(reply) == parse_game(PD)


def test_importing_loads_no_heavy_modules() -> None:
    """The instance checks load no solver, plotting library, model runtime or provider SDK
    (nashpy loads only when a mixed-equilibrium test runs)."""
    heavy = ("nashpy", "matplotlib", "llama_cpp", "openai", "anthropic")
    code = ("import sys, verstehen.methods.potemkin.instances; "
            f"print(sorted(m for m in {heavy!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
