"""Claim-free instance tests: is a generated text REALLY an instance of an exact concept?

The incoherence procedure (paper section 4.1) has a model generate an instance or a non-instance
of a concept and then classify its own output. `instance_check(scope, reply)` says whether the
reply truly is an instance. Unlike the use tasks, no claim (a cell, a strategy, a mix) comes
with it, so each concept is read as a property of the whole game or text:
- strict-dominance / weak-dominance: some player has a strictly / weakly dominant strategy
  (`checks` definitions; a strictly dominant strategy is weakly dominant too).
- iterated-dominance: the game is dominance solvable: IESDS removes at least one strategy and
  leaves a single profile.
- pure-nash: the game has a pure-strategy Nash equilibrium.
- mixed-nash: the game has a Nash equilibrium in which some player gives two or more strategies
  positive probability; decided exactly over every pair of supports, degenerate games included
  (None for a player with more than MIXED_MAX strategies).
- zero-sum, symmetric: `checks.is_zero_sum`, `checks.is_symmetric`.
- pareto-optimality, best-response: no claim-free test (every finite game has a Pareto-optimal
  cell; a best response is relative to a given opposing strategy); the answer is None.
- poetry: the concept's own `check`, on the poem, line or phrase `extract_poem` reads (haiku,
  sonnet, anapest), or on the word pair written "a" and "b" (straight or curly quotes) in the
  reply (slant rhyme): the one pair on a line of its own, else the only pair mentioned.
Games are read by `parse_game` (the last matrix after the last <OUTPUT> marker). An unreadable
reply is None with the reason ("the reply professes not to know" when it does; a poem that
fails its check is too then, as in the generate grading). `INSTANCE_REQUESTS` holds, per exact
scope, the format request to append to a generation prompt so that the reply can be read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from verstehen.domains.catalog import CONCEPTS
from verstehen.domains.game_theory import checks
from verstehen.domains.game_theory.game import Game, fraction_text
from verstehen.domains.game_theory.parse import ParseFailure, parse_game
from verstehen.domains.game_theory.supports import mixed_supports
from verstehen.domains.poetry.extract import extract_poem
from verstehen.domains.poetry.task_base import PoetryConcept, estimate_note
from verstehen.domains.poetry.tasks_forms import Anapest, Haiku, ShakespeareanSonnet
from verstehen.domains.poetry.tasks_pairs import SlantRhyme
from verstehen.parse import answer_text, is_idk


@dataclass(frozen=True)
class InstanceCheck:
    """Whether a text is an instance (None: unreadable or untestable) and why."""

    is_instance: bool | None
    reason: str | None


EXACT_SCOPES = frozenset(c.scope for c in CONCEPTS if c.scope)
UNTESTED = {
    "game-theory/pareto-optimality": "every finite game has a Pareto-optimal cell, so only a "
                                     "claim about a given cell can be tested",
    "game-theory/best-response": "a best response is relative to the other player's strategy, "
                                 "which a game alone does not give",
}
INSTANCE_TESTED = EXACT_SCOPES - frozenset(UNTESTED)
MIXED_MAX = 6  # strategies a player; the mixed-equilibrium search is exponential in it

# The wording of tasks.base's generate format (phrasing 1); its example is
# tasks.base.template(2, 2, one_line=True), checked by the tests (tasks.base imports numpy).
_GAME_REQUEST = (
    "Write the game after the flag <OUTPUT> as the payoff matrix of a two-player game: a Python "
    "list of rows (Player 1's actions in order), each a list of (Player 1 payoff, Player 2 "
    "payoff) pairs of integers (Player 2's actions in order), like "
    "[[ (A1,B1), (A2,B2) ], [ (A3,B3), (A4,B4) ]] for a 2x2 game. Include no text other than "
    "the payoff matrix after the flag.")
INSTANCE_REQUESTS: dict[str, str] = {
    **{s: _GAME_REQUEST for s in sorted(EXACT_SCOPES) if s.startswith("game-theory/")},
    "poetry/haiku": "Write only the poem.",
    "poetry/shakespearean-sonnet": "Write only the poem.",
    "poetry/slant-rhyme": 'Write only the pair of words, on one line, as two single words in '
                          'double quotes joined by "and", like "word1" and "word2".',
    "poetry/anapest": "Write only the word, phrase or line, on a single line.",
}


def instance_check(scope: str, text: str) -> InstanceCheck:
    """Whether the reply `text` is an instance of the exact concept `scope` (module doc).

    ValueError when `scope` is not an exactly-graded scope of the catalog.
    """
    if scope not in EXACT_SCOPES:
        raise ValueError(f"{scope!r} is not an exactly-graded scope: {sorted(EXACT_SCOPES)}")
    if scope in UNTESTED:
        return InstanceCheck(None, f"no claim-free instance test for {scope}: {UNTESTED[scope]}")
    if scope.startswith("poetry/"):
        return _poetry(scope, text)
    game = parse_game(text)
    if isinstance(game, ParseFailure):
        return InstanceCheck(None, _idk_or(text, game.reason))
    ok, reason = _GAME_TESTS[scope](game)
    return InstanceCheck(ok, reason)


def _idk_or(text: str, reason: str) -> str:
    return "the reply professes not to know" if is_idk(text) else reason


# ---------------------------------------------------------------- games

def _label(player: int, index: int) -> str:
    return f"{'R' if player == 1 else 'C'}{index + 1}"


def _strict(game: Game) -> tuple[bool, str]:
    found = [f"player {p}'s {_label(p, s)}" for p in (1, 2)
             if (s := checks.strictly_dominant(game, p)) is not None]
    if found:
        return True, "strictly dominant: " + ", ".join(found)
    return False, "neither player has a strictly dominant strategy"


def _weak(game: Game) -> tuple[bool, str]:
    found = [f"player {p}'s {_label(p, s)}" for p in (1, 2)
             for s in checks.weakly_dominant(game, p)]
    if found:
        return True, "weakly dominant: " + ", ".join(found)
    return False, "neither player has a weakly dominant strategy"


def _iterated(game: Game) -> tuple[bool, str]:
    e = checks.iesds(game)
    k = len(e.steps)
    left = f"IESDS removes {k} strateg{'y' if k == 1 else 'ies'}, leaving {e.shape[0]}x{e.shape[1]}"
    return k > 0 and e.shape == (1, 1), left


def _pure(game: Game) -> tuple[bool, str]:
    cells = checks.pure_nash(game)
    shown = ", ".join(_cell(i, j) for i, j in cells)
    return bool(cells), f"pure Nash equilibria: {shown}" if cells else "no pure Nash equilibrium"


def _mixed(game: Game) -> tuple[bool | None, str]:
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


def _zero_sum(game: Game) -> tuple[bool, str]:
    if checks.is_zero_sum(game):
        return True, "the payoffs add up to 0 in every cell"
    (i, j), total = next(((i, j), a + b) for i, row in enumerate(game.cells)
                         for j, (a, b) in enumerate(row) if a + b)
    return False, f"the payoffs at {_cell(i, j)} add up to {fraction_text(total)}"


def _symmetric(game: Game) -> tuple[bool, str]:
    m, n = game.shape
    if checks.is_symmetric(game):
        return True, "player 2's payoff at (Ri, Cj) is player 1's at (Rj, Ci) for all i, j"
    if m != n:
        return False, f"the game is {m}x{n}, not square"
    i, j = next((i, j) for i in range(m) for j in range(n)
                if game.payoff(2, i, j) != game.payoff(1, j, i))
    return False, f"player 2's payoff at {_cell(i, j)} differs from player 1's at {_cell(j, i)}"


def _cell(i: int, j: int) -> str:
    return f"({_label(1, i)}, {_label(2, j)})"


_GAME_TESTS: dict[str, Callable[[Game], tuple[bool | None, str]]] = {
    "game-theory/strict-dominance": _strict,
    "game-theory/weak-dominance": _weak,
    "game-theory/iterated-dominance": _iterated,
    "game-theory/pure-nash": _pure,
    "game-theory/mixed-nash": _mixed,
    "game-theory/zero-sum": _zero_sum,
    "game-theory/symmetric": _symmetric,
}


# ---------------------------------------------------------------- poetry

_PAIR = r'["“]([^"“”\n]+)["”]\s+and\s+["“]([^"“”\n]+)["”]'
_PAIR_RE = re.compile(_PAIR)
_PAIR_LINE_RE = re.compile(r"[\s>*_`•\-\d.)]*" + _PAIR + r"[\s*_`.!,;:]*")


def _one_pair(reply: str) -> tuple[str, str] | str:
    """The word pair a reply gives, or why there is none: among the distinct pairs written
    "a" and "b", the one standing on a line of its own, else the only one."""
    body = answer_text(reply)
    def distinct(found: list[tuple[str, str]]) -> list[tuple[str, str]]:
        return list({(a.strip().lower(), b.strip().lower()): (a.strip(), b.strip())
                     for a, b in found}.values())
    alone = distinct([(m.group(1), m.group(2)) for line in body.splitlines()
                      if (m := _PAIR_LINE_RE.fullmatch(line))])
    pairs = distinct(_PAIR_RE.findall(body))
    for got in (alone, pairs):
        if len(got) == 1:
            return got[0]
    if not pairs:
        return 'no word pair written "a" and "b" found in the reply'
    shown = ", ".join(f'"{a}"/"{b}"' for a, b in pairs)
    return f"several word pairs in the reply ({shown}): cannot tell which is the example"


_POEMS: dict[str, type[PoetryConcept]] = {
    "poetry/haiku": Haiku, "poetry/shakespearean-sonnet": ShakespeareanSonnet,
    "poetry/slant-rhyme": SlantRhyme, "poetry/anapest": Anapest}


def _poetry(scope: str, reply: str) -> InstanceCheck:
    concept = _POEMS[scope]()
    if scope == "poetry/slant-rhyme":
        pair = _one_pair(reply)
        if isinstance(pair, str):
            return InstanceCheck(None, _idk_or(reply, pair))
        text: str | None = f'"{pair[0]}" and "{pair[1]}"'
    else:
        text = extract_poem(reply)
        if text is None:
            return InstanceCheck(None, _idk_or(reply, "no poem, line or phrase in the reply"))
    verdict = concept.check(text)
    if not verdict.ok and is_idk(reply):
        return InstanceCheck(None, "the reply professes not to know")
    return InstanceCheck(verdict.ok, verdict.reason + estimate_note(verdict))
