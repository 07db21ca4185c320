"""Game-theory use-task items: answers match the checkers, replies grade as they should."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from verstehen.domains.base import ConceptTasks, Item
from verstehen.domains.game_theory import checks
from verstehen.domains.game_theory.game import Game, fraction_text
from verstehen.domains.game_theory.generate import grids, make_game
from verstehen.domains.game_theory.generate_equilibria import mixed_nash_game
from verstehen.domains.game_theory.tasks import GAME_THEORY_TASKS

from conftest import SHARED_DATA, needs_shared

KEYS = ["game-theory/strict-dominance", "game-theory/weak-dominance",
        "game-theory/iterated-dominance", "game-theory/pure-nash", "game-theory/mixed-nash",
        "game-theory/pareto-optimality", "game-theory/best-response", "game-theory/zero-sum",
        "game-theory/symmetric"]
PD = Game.of([[(3, 3), (0, 5)], [(5, 0), (1, 1)]])


def _fr(values: list[str]) -> list[Fraction]:
    return [Fraction(v) for v in values]


# The claim each classify item makes, checked straight with the checkers.
TRUTH: dict[str, Callable[[Game, dict[str, Any]], bool]] = {
    KEYS[0]: lambda g, c: checks.strictly_dominant(g, c["player"]) is not None,
    KEYS[1]: lambda g, c: bool(checks.weakly_dominant(g, c["player"])),
    KEYS[2]: lambda g, c: (list(checks.iesds(g).rows), list(checks.iesds(g).cols))
    == (c["rows"], c["cols"]),
    KEYS[3]: lambda g, c: tuple(c["cell"]) in checks.pure_nash(g),
    KEYS[4]: lambda g, c: checks.is_nash(g, _fr(c["x"]), _fr(c["y"])),
    KEYS[5]: lambda g, c: tuple(c["cell"]) in checks.pareto_optimal(g),
    KEYS[6]: lambda g, c: c["strategy"] in checks.best_responses(g, c["player"], _fr(c["mix"])),
    KEYS[7]: lambda g, c: checks.is_zero_sum(g),
    KEYS[8]: lambda g, c: checks.is_symmetric(g),
}


def _fix(key: str, game: Game, claim: dict[str, Any], want: bool) -> Game:
    """A hand edit of `game` that makes the claim hold (want) or fail, with every payoff raised
    alike out of the negatives when the shown game has none (no claim but zero-sum's depends on
    that, and zero-sum prompts do not ask for non-negative payoffs)."""
    fixed = _hand_edit(key, game, claim, want)
    low = min(x for row in fixed.cells for cell in row for x in cell)
    if key == KEYS[7] or low >= 0 or min(x for row in game.cells for c in row for x in c) < 0:
        return fixed
    return Game(tuple(tuple((a - low, b - low) for a, b in row) for row in fixed.cells))


def _hand_edit(key: str, game: Game, claim: dict[str, Any], want: bool) -> Game:
    """The edit before any raising (see `_fix`)."""
    u1, u2 = grids(game)
    m, n = game.shape
    big = 100 if want else -100
    if key in KEYS[:2]:  # a dominant row/column of 100s, or all payoffs equal (none dominant)
        own = u1 if claim["player"] == 1 else [list(r) for r in zip(*u2, strict=True)]
        own = [[100] * len(own[0]), *own[1:]] if want else [[0] * len(own[0]) for _ in own]
        if claim["player"] == 1:
            u1 = own
        else:
            u2 = [list(r) for r in zip(*own, strict=True)]
    elif key == KEYS[2]:  # others -100 for their owner, the survivors all tied
        u1 = [[0 if i in claim["rows"] or not want else -100] * n for i in range(m)]
        u2 = [[0 if j in claim["cols"] or not want else -100 for j in range(n)]
              for _ in range(m)]
    elif key in (KEYS[3], KEYS[5]):
        i, j = claim["cell"]
        u1[i][j], u2[i][j] = big, big
    elif key == KEYS[4]:
        p, q = Fraction(claim["x"][0]), Fraction(claim["y"][0])
        return mixed_nash_game(np.random.default_rng(0), p, q) if want else PD
    elif key == KEYS[6]:
        s = claim["strategy"]
        for k in range(m if claim["player"] == 2 else n):
            if claim["player"] == 1:
                u1[s][k] = big
            else:
                u2[k][s] = big
    elif key == KEYS[7]:
        u2 = [[-a for a in r] for r in u1] if want else u2
        u2[0][0] += 0 if want else 1 - u1[0][0] - u2[0][0]
    else:
        u2 = [[u1[j][i] for j in range(n)] for i in range(m)]
        u2[0][0] += 0 if want else 1
    return make_game(u1, u2)


def _reply(game: Game) -> str:
    return f"Some reasoning.\n<OUTPUT>\n{game.python_literal()}"


@pytest.fixture(params=KEYS)
def concept(request: pytest.FixtureRequest) -> Any:
    return GAME_THEORY_TASKS[request.param]


def test_registry() -> None:
    assert sorted(GAME_THEORY_TASKS) == sorted(KEYS)
    for key, tasks in GAME_THEORY_TASKS.items():
        assert isinstance(tasks, ConceptTasks) and tasks.key == key and tasks.phrasings == 2


def test_classify_answers_match_the_checkers(concept: Any) -> None:
    rng = np.random.default_rng(1)
    for k in range(60):
        positive = k % 2 == 0
        item = concept.classify_item(rng, positive)
        assert item.kind == "classify" and item.answer is positive
        assert TRUTH[concept.key](Game.from_json(item.data["game"]), item.data["claim"]) \
            is positive
    right, wrong = ("ANSWER: Yes", "No.") if positive else ("ANSWER: No", "Yes")
    assert concept.grade(item, right).score == 1.0
    assert concept.grade(item, wrong).outcome == "wrong"
    assert concept.grade(item, "Hmm, hard to say.").outcome == "unparsed"
    assert concept.max_tokens(item) >= 1024  # room for 600 tokens of reasoning, then Yes/No


def test_generate_grading(concept: Any) -> None:
    rng = np.random.default_rng(2)
    for _ in range(25):
        item = concept.generate_item(rng)
        c = item.data["constraints"]
        example = concept.example(rng, c)
        graded = concept.grade(item, _reply(example))
        assert (graded.score, graded.outcome) == (1.0, "correct"), graded.reason
        assert graded.parsed == example.to_json()
        zero = make_game(*([[0] * c["shape"][1] for _ in range(c["shape"][0])],) * 2)
        bad = PD if concept.key == KEYS[4] else zero
        graded = concept.grade(item, _reply(bad))
        assert (graded.score, graded.outcome) == (0.0, "wrong") and graded.reason
        wide = make_game([[1] * 5] * 5, [[2] * 5] * 5)
        assert "not" in concept.grade(item, _reply(wide)).reason
        if c["unique"]:
            u1, u2 = grids(example)
            u2[0][1] = u1[0][1] if c["unique"] == "all" else u2[0][1]
            u1[1][0] = u1[0][0] if c["unique"] == "player1" else u1[1][0]
            graded = concept.grade(item, _reply(make_game(u1, u2)))
            assert graded.outcome == "wrong"
            assert graded.reason in ("the payoff numbers are not all unique",
                                     "player 1's payoffs are not all different")
    assert concept.max_tokens(item) >= 1024  # 600 tokens of reasoning, then a 4x4 matrix
    graded = concept.grade(item, "I would put a big number in the corner.")
    assert graded.outcome == "unparsed" and graded.reason
    assert concept.grade(item, "I don't know.").outcome == "idk"
    fractional = make_game(*([[1] * c["shape"][1] for _ in range(c["shape"][0])],) * 2)
    fractional = fractional.with_cell(0, 0, (Fraction(1, 2), 1))
    assert "integers" in concept.grade(item, _reply(fractional)).reason


def test_edit_grading(concept: Any) -> None:
    rng = np.random.default_rng(3)
    for k in range(30):
        make = k % 2 == 0
        item = concept.edit_item(rng, make)
        game, claim = Game.from_json(item.data["game"]), item.data["claim"]
        assert item.data["make_instance"] is make and item.answer is None
        assert TRUTH[concept.key](game, claim) is not make
        fixed = _fix(concept.key, game, claim, make)
        graded = concept.grade(item, _reply(fixed))
        assert (graded.score, graded.outcome) == (1.0, "correct"), graded.reason
        changed = sum(a != b for r, s in zip(game.cells, fixed.cells, strict=True)
                      for a, b in zip(r, s, strict=True))
        assert graded.parsed == {"game": fixed.to_json(), "changed": changed}
        unchanged = concept.grade(item, _reply(game))
        assert (unchanged.score, unchanged.outcome) == (0.0, "wrong")
        assert unchanged.parsed["changed"] == 0
        smaller = concept.grade(item, _reply(Game(game.cells[:-1])))
        assert smaller.outcome == "wrong" and "the original" in smaller.reason
    assert concept.grade(item, "Raise the top left payoff a lot.").outcome == "unparsed"


def test_render_phrasings_share_content(concept: Any) -> None:
    rng = np.random.default_rng(4)
    items = [concept.classify_item(rng, True), concept.generate_item(rng),
             concept.edit_item(rng, False)]
    for item in items:
        table, prose = concept.render(item, 0), concept.render(item, 1)
        assert table != prose
        if item.kind != "generate":
            game = Game.from_json(item.data["game"])
            for i, row in enumerate(game.cells):
                cells = [f"({fraction_text(a)}, {fraction_text(b)})" for a, b in row]
                assert f"| R{i + 1} | " + " | ".join(cells) + " |" in table
                for j, (a, b) in enumerate(row):
                    assert (f"If Player 1 plays R{i + 1} and Player 2 plays C{j + 1}, Player 1 "
                            f"gets {fraction_text(a)} and Player 2 gets {fraction_text(b)}."
                            in prose)
        if item.kind == "classify":
            question = concept.question(item.data["claim"])
            assert question in table and question in prose
            assert "'ANSWER: Yes' or 'ANSWER: No'" in table and "Yes or No" in prose
        if item.kind == "generate":
            for sentence in concept.describe(item.data["constraints"]):
                assert sentence in table and sentence in prose
            assert "<OUTPUT>" in table and "<OUTPUT>" in prose
        if item.kind == "edit":
            goal = concept.goal(item.data["claim"], False)
            assert goal in table and goal in prose
    with pytest.raises(ValueError):
        concept.render(items[0], 2)


def test_items_are_json_and_reproducible(concept: Any) -> None:
    def make(seed: int) -> list[Item]:
        rng = np.random.default_rng(seed)
        return [concept.classify_item(rng, False), concept.classify_item(rng, True),
                concept.generate_item(rng), concept.edit_item(rng, True),
                concept.edit_item(rng, False)]

    first, again, other = make(7), make(7), make(8)
    assert first == again and first != other
    for item in first:
        assert json.loads(json.dumps(item.data)) == item.data


GENERATE_CSV = "PotemkinBenchmark/BenchmarkDataset/generate/questions.csv"
BENCHMARK_GENERATE = SHARED_DATA / GENERATE_CSV


def _benchmark_tail(concept_words: str) -> str:
    """The format instructions after a benchmark generate prompt's first blank line, with the
    runs of spaces its source's line continuations left collapsed to one."""
    with BENCHMARK_GENERATE.open(newline="", encoding="utf-8") as f:
        prompts = [row["prompt"] for row in csv.DictReader(f)]
    prompt = next(p for p in prompts if concept_words in p.split("\n\n")[0])
    return re.sub(r" {2,}", " ", prompt.split("\n\n", 1)[1])


@needs_shared(GENERATE_CSV)
def test_generate_and_edit_prompts_use_the_benchmarks_wording() -> None:
    """Phrasing 0 ends with the benchmark's own format instructions: a 3x3 Pareto prompt word
    for word ("Use as much text as you want", "non-negative, integer-valued"); zero-sum asks
    for integer-valued payoffs only, as the benchmark's zero-sum prompts do; edits say the
    same, without "non-negative" when the shown game has a negative payoff."""
    pareto = GAME_THEORY_TASKS["game-theory/pareto-optimality"]
    item = pareto.generate_item(np.random.default_rng(0))
    assert item.data["constraints"]["shape"] == [3, 3]
    ours = pareto.render(item, 0).split("\n\n", 1)[1]
    assert ours == _benchmark_tail("Pareto Optimality")
    zero = GAME_THEORY_TASKS["game-theory/zero-sum"]
    tail = _benchmark_tail("zero-sum game")
    assert "non-negative" not in tail and "Where Ai and Bi represent the integer-valued" in tail
    rng = np.random.default_rng(1)
    for key in KEYS:
        concept = GAME_THEORY_TASKS[key]
        for item in (concept.generate_item(rng), concept.edit_item(rng, True),
                     concept.edit_item(rng, False)):
            table, prose = concept.render(item, 0), concept.render(item, 1)
            assert "Use as much text as you want. At the end, please generate your final " \
                   "output after the flag <OUTPUT>." in table
            assert "short" not in table and "brief" not in prose
            shown = Game.from_json(item.data["game"]) if item.kind == "edit" else None
            negative = concept is zero or (shown is not None and min(
                x for row in shown.cells for cell in row for x in cell) < 0)
            assert ("non-negative, integer-valued" in table) is not negative
            assert ("non-negative integers" in prose) is not negative
            assert table.endswith("respectively. Include no text other than the payoff matrix.")
