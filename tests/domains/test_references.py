"""Every item the generators make has a reference reply that its own grader scores 1.

A model that answers every item right must be able to pass: for each concept and each kind of
item (both classify answers, both edit directions), `grade(item, reference(item))` is 1 over
hundreds of items drawn with different seeds, and every word a generate item can ask about has
an answer. Hand-worked edits check that the references are the edits the definitions call for.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from verstehen.domains.base import ConceptTasks, Item
from verstehen.domains.game_theory.edits import search_edit
from verstehen.domains.game_theory.game import Game
from verstehen.domains.game_theory.parse import parse_game
from verstehen.domains.game_theory.tasks import GAME_THEORY_TASKS
from verstehen.domains.game_theory.tasks.equilibria import CellClaim, PureNash
from verstehen.domains.poetry import generate as gen
from verstehen.domains.poetry.checks import is_haiku, is_shakespearean_sonnet
from verstehen.domains.poetry.pronounce import words
from verstehen.domains.poetry.rhyme import slant_rhyme
from verstehen.domains.poetry.tasks import POETRY_TASKS
from verstehen.domains.poetry.tasks_forms import _end_words, _nouns
from verstehen.domains.registry import concept_tasks
from verstehen.methods.certification.scopes.arithmetic import arithmetic_scope, number_text
from verstehen.scopes.base import Question
from verstehen.scopes.mcq import MCQScope

SEEDS = 300  # per kind of item: 300 of each classify answer, generate, make and break edits
CONCEPTS: dict[str, ConceptTasks] = {**GAME_THEORY_TASKS, **POETRY_TASKS}
MAKERS: dict[str, Callable[[ConceptTasks, np.random.Generator], Item]] = {
    "classify-yes": lambda t, r: t.classify_item(r, True),
    "classify-no": lambda t, r: t.classify_item(r, False),
    "generate": lambda t, r: t.generate_item(r),
    "edit-make": lambda t, r: t.edit_item(r, True),
    "edit-break": lambda t, r: t.edit_item(r, False),
}


def test_all_fifteen_concepts_are_covered() -> None:
    assert len(CONCEPTS) == 15
    assert all(concept_tasks(key) is tasks for key, tasks in CONCEPTS.items())


@pytest.mark.parametrize("key", sorted(CONCEPTS))
def test_every_reference_grades_right(key: str) -> None:
    tasks = CONCEPTS[key]
    start = time.process_time()
    for kind, make in MAKERS.items():
        for seed in range(SEEDS):
            item = make(tasks, np.random.default_rng(seed))
            reply = tasks.reference(item)
            graded = tasks.grade(item, reply)
            assert graded.score == 1.0 and graded.outcome == "correct", (
                key, kind, seed, item.data, reply, graded)
    # all fifteen concepts together stay well under 30 s (measured: about 1 s each)
    assert time.process_time() - start < 6.0, key


@pytest.mark.not_fast  # grades a reference answer to every word the generators draw: seconds
def test_every_word_a_generate_item_can_ask_for_has_a_reference() -> None:
    """The words come from the lexicon lists the generators draw from; a word none of the
    references can use would be a generator bug (an item nobody can answer)."""
    asks = {
        "poetry/haiku": _nouns(),
        "poetry/shakespearean-sonnet": _nouns(),
        "poetry/iambic-pentameter": _end_words(),
        "poetry/rhyme": sorted({a.word for g in gen._all_groups() for a, _ in gen._pairs_of(g)}),
        "poetry/slant-rhyme": sorted({a for g in gen._slant_groups() for a in g for b in g
                                      if slant_rhyme(a, b)}),
    }
    for key, drawn in asks.items():
        tasks = POETRY_TASKS[key]
        for word in drawn:
            item = Item("generate", None, {"word": word})
            graded = tasks.grade(item, tasks.reference(item))
            assert graded.score == 1.0, (key, word, graded)
    for feet in (1, 2, 3, 4):
        item = Item("generate", None, {"feet": feet})
        assert POETRY_TASKS["poetry/anapest"].grade(
            item, POETRY_TASKS["poetry/anapest"].reference(item)).score == 1.0


def test_a_word_with_no_stress_fit_still_gets_a_sonnet_line() -> None:
    """"violin" (cmudict 0 0 1 here: unstressed, unstressed, stressed) fits the iambic template
    nowhere without an unstressed syllable on a beat, which iambic scansion allows ("a
    VI-o-LIN"); the sonnet's reference puts it there."""
    sonnet = POETRY_TASKS["poetry/shakespearean-sonnet"]
    item = Item("generate", None, {"word": "violin"})
    poem = sonnet.reference(item)
    assert "violin" in words(poem) and is_shakespearean_sonnet(poem).ok


def test_haiku_reference_uses_the_word_in_five_seven_five() -> None:
    item = Item("generate", None, {"word": "kangaroo"})
    poem = POETRY_TASKS["poetry/haiku"].reference(item)
    assert "kangaroo" in words(poem) and is_haiku(poem).ok


def _edited(key: str, game: list, claim: dict, make: bool) -> Game:
    tasks = GAME_THEORY_TASKS[key]
    item = Item("edit", None, {"game": Game.of(game).to_json(), "claim": claim,
                               "make_instance": make})
    found = parse_game(tasks.reference(item))
    assert isinstance(found, Game) and tasks.grade(item, tasks.reference(item)).score == 1.0
    return found


PD = [[(3, 3), (0, 5)], [(5, 0), (1, 1)]]  # the prisoner's dilemma: (R2, C2) its only equilibrium


def test_hand_worked_game_edits() -> None:
    # (R1, C1) becomes an equilibrium when it pays each player the best of its column / row:
    # player 1's column C1 holds 3 and 5, player 2's row R1 holds 3 and 5, so (5, 5).
    assert _edited("game-theory/pure-nash", PD, {"cell": [0, 0]}, True) == Game.of(
        [[(5, 5), (0, 5)], [(5, 0), (1, 1)]])
    # breaking (R2, C2): player 1's other row R1 pays 0 against C2, raised to 1 + 1 = 2.
    assert _edited("game-theory/pure-nash", PD, {"cell": [1, 1]}, False) == Game.of(
        [[(3, 3), (2, 5)], [(5, 0), (1, 1)]])
    # player 1's R2 (5, 1) strictly dominates R1 (3, 0); a tie in the closest column breaks it:
    # the gaps are 2 and 1, so R1 takes R2's 1 against C2.
    assert _edited("game-theory/strict-dominance", PD, {"player": 1}, False) == Game.of(
        [[(3, 3), (1, 5)], [(5, 0), (1, 1)]])
    # zero-sum: player 2 gets minus player 1's payoff in every cell.
    assert _edited("game-theory/zero-sum", PD, {}, True) == Game.of(
        [[(3, -3), (0, 0)], [(5, -5), (1, -1)]])
    # Pareto: (R2, C2) = (1, 1) is beaten by (3, 3); made optimal by the best payoffs (5, 5).
    assert _edited("game-theory/pareto-optimality", PD, {"cell": [1, 1]}, True) == Game.of(
        [[(3, 3), (0, 5)], [(5, 0), (5, 5)]])


def test_hand_worked_mixed_equilibrium_edit() -> None:
    """x = (1/2, 1/2), y = (1/4, 3/4) on matching pennies' shape: player 1 is indifferent
    against y when A00 - A10 = 4 - 1 and A11 - A01 = 1; player 2 against x when
    B00 - B01 = 2 - 1 and B11 - B10 = 1 (the payoffs set from the unchanged ones)."""
    zero = [[(0, 0), (0, 0)], [(0, 0), (0, 0)]]
    claim = {"x": ["1/2", "1/2"], "y": ["1/4", "3/4"]}
    game = [[(2, 0), (0, 0)], [(0, 0), (0, 0)]]  # row 1 pays more against y: not an equilibrium
    assert _edited("game-theory/mixed-nash", game, claim, True) == Game.of(
        [[(3, 1), (0, 0)], [(0, 0), (1, 1)]])
    # zero payoffs make every profile an equilibrium; one payoff raised breaks it
    assert _edited("game-theory/mixed-nash", zero, claim, False) == Game.of(
        [[(1, 0), (0, 0)], [(0, 0), (0, 0)]])


def test_iterated_dominance_edit_leaves_exactly_the_claimed_strategies() -> None:
    """Claim: IESDS leaves R1 and C1, C2 of a 2x3 game where nothing is dominated. Worked by
    hand: R2 (3, 2, 1) is lowered where needed to below R1 (1, 2, 3): (0, 1, 1). Player 2's
    survivors C1, C2 face R1 alone, so they tie there at the larger of 1 and 0; C3 (2, 0) is
    lowered below C1 (1, 3): (0, 0). Then R2 goes, C3 goes, and C1, C2 tie."""
    game = [[(1, 1), (2, 0), (3, 2)], [(3, 3), (2, 2), (1, 0)]]
    found = _edited("game-theory/iterated-dominance", game, {"rows": [0], "cols": [0, 1]}, True)
    assert found == Game.of([[(1, 1), (2, 1), (3, 0)], [(0, 3), (1, 2), (1, 0)]])
    # breaking it: the eliminated R2 raised to beat every row everywhere survives alone
    kept = _edited("game-theory/iterated-dominance", found.to_json(),
                   {"rows": [0], "cols": [0, 1]}, False)
    assert kept.cells[1] == ((2, 3), (3, 2), (4, 0))


@pytest.mark.parametrize("name", ["arithmetic", "arithmetic/small"])
def test_arithmetic_reference_is_the_exact_value(name: str) -> None:
    scope = arithmetic_scope(name)
    rng = np.random.default_rng(3)
    for _ in range(2000):
        q = scope.sample(rng)
        graded = scope.grade(q, scope.reference(q))
        assert (graded.score, graded.outcome) == (1.0, "correct"), (q.data, scope.reference(q))


def test_number_text_is_exact_where_the_decimal_ends() -> None:
    assert number_text(Fraction(1776)) == "1776"
    assert number_text(Fraction(-1, 8)) == "-0.125"  # 1/8 = 0.125 exactly
    assert number_text(Fraction(2469, 20)) == "123.45"
    assert number_text(Fraction(1, 3)) == "0.333333333333333"  # 15 significant digits
    question = Question(id="q", prompt="", answer=0.1 + 0.2, data={"a": 0.1, "b": 0.2, "op": "+"})
    assert arithmetic_scope("arithmetic").reference(question) == "0.3"  # the printed operands


def test_mcq_reference_is_the_right_label(tmp_path: Path) -> None:
    rows = [{"id": f"q{i}", "answerKey": "ABC"[i % 3],
             "question": {"stem": f"Pick {i}", "choices": [
                 {"label": lab, "text": f"{lab}{i}"} for lab in "ABC"]}} for i in range(6)]
    path = tmp_path / "three.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    scope = MCQScope(path)
    for i, item in enumerate(scope.items):
        q = scope.question_for(item)
        assert scope.reference(q) == "ABC"[i % 3] and scope.grade(q, scope.reference(q)).score == 1


def test_a_construction_that_misses_falls_back_on_a_bounded_search() -> None:
    """Should `edit` ever miss, `edited` searches one- and two-payoff changes, and says so when
    none works (the search is bounded, so it ends)."""

    class Lazy(PureNash):
        def edit(self, game: Game, claim: CellClaim, want: bool) -> Game:
            return game  # misses on purpose

    lazy = Lazy()
    pd = Game.of(PD)
    # (R1, C1) of the prisoner's dilemma: raising player 1's 3 to 5 alone leaves player 2's
    # deviation to C2 (5 > 3), so the search needs a cell change; it finds one
    found = lazy.edited(pd, {"cell": [0, 0]}, True)
    assert lazy.holds(found, {"cell": [0, 0]})
    assert sum(a != b for r, s in zip(pd.cells, found.cells, strict=True)
               for a, b in zip(r, s, strict=True)) == 1
    assert search_edit(pd, lambda g: False) is None
