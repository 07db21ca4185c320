"""What every game-theory concept's use-task items share: prompts, formats and grading.

Items (all data JSON; games as `Game.to_json()`):
  classify  {"game", "claim"}; answer = whether the claim about the game holds. The prompt shows
            the game and asks one yes/no question built from the claim.
  generate  {"constraints"}; the reply must end with a game after the flag <OUTPUT> (the paper's
            generate format, benchmark prompts in PotemkinBenchmark generate/questions.csv) that
            has the asked shape, integer payoffs, the concept's constraints (Table 5 of the paper)
            and, when asked, all payoffs unique.
  edit      {"game", "claim", "make_instance"}; the game fails (make_instance) or satisfies the
            claim; the reply must give the whole changed matrix, same shape, for which the claim
            holds (make_instance) or fails. Any number of cells may change; how many did is
            recorded in the grade's `parsed` ({"game", "changed"}).
Scores are 1 or 0 (no partial credit). A reply with no readable matrix is "unparsed" (or "idk"
when it professes not to know) with the parser's reason; a readable one that misses a
constraint is "wrong" with the first unmet constraint as the reason.

Phrasing 0 shows a game as a markdown table and uses the paper's wording; phrasing 1 states every
outcome in a sentence and words the instructions differently. Both carry the same content.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Generic, cast

import numpy as np

from verstehen.domains.base import (
    LONG_ANSWER_TOKENS,
    SHORT_ANSWER_TOKENS,
    InstanceCheck,
    Item,
    grade_yes_no,
    unreadable,
    yes_no_reference,
)
from verstehen.domains.game_theory.edits import search_edit
from verstehen.domains.game_theory.game import Game, fraction_text
from verstehen.domains.game_theory.parse import ParseFailure, parse_game
from verstehen.domains.game_theory.tasks.data import (
    ClaimT,
    ConstraintsT,
    EditedGame,
    GameClassifyData,
    GameEditData,
    GameGenerateData,
    shape_of,
    unique_of,
)
from verstehen.grading import Graded
from verstehen.parse import is_idk

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")
UNIQUE_ALL = ("In the payoff matrix (combined for both players), all numbers must be unique, "
              "regardless of which Player the payoff is associated with.")
UNIQUE_P1 = "All of Player 1's payoffs must be different numbers (and so all of Player 2's)."


def prob_text(p: Fraction) -> str:
    """A probability as a short decimal ("0.25") when it has one, else a fraction ("1/3")."""
    if 1000 % p.denominator == 0:
        return f"{float(p):g}"
    return fraction_text(p)


def label(player: int, index: int) -> str:
    """R1, R2, ... for player 1's strategies, C1, C2, ... for player 2's."""
    return f"{'R' if player == 1 else 'C'}{index + 1}"


def listing(words: list[str], last: str = "and") -> str:
    """"a", "a and b", "a, b and c" (or another final conjunction)."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + f" {last} " + words[-1]


def mix_text(player: int, mix: list[Fraction]) -> str:
    """"Player 1 plays R1 with probability 0.2, R2 with probability 0.8"."""
    parts = [f"{label(player, s)} with probability {prob_text(p)}" for s, p in enumerate(mix)]
    return f"Player {player} plays {listing(parts)}"


def game_text(game: Game, phrasing: int) -> str:
    """The game as a table (phrasing 0) or as one sentence per outcome (phrasing 1)."""
    m, n = game.shape
    rows = listing([label(1, i) for i in range(m)], "or")
    cols = listing([label(2, j) for j in range(n)], "or")
    if phrasing == 0:
        return (f"Player 1 chooses a row ({rows}) and Player 2 chooses a column ({cols}); each "
                f"cell lists (Player 1's payoff, Player 2's payoff).\n\n{game.table()}")
    lines = [f"Two players choose at the same time: Player 1 chooses {rows}, and Player 2 "
             f"chooses {cols}."]
    for i in range(m):
        for j in range(n):
            a, b = game.cells[i][j]
            lines.append(f"If Player 1 plays {label(1, i)} and Player 2 plays {label(2, j)}, "
                         f"Player 1 gets {fraction_text(a)} and Player 2 gets {fraction_text(b)}.")
    return "\n".join(lines)


def template(m: int, n: int, one_line: bool = False) -> str:
    """The paper's output format with placeholders: [[ (A1,B1), (A2,B2) ], ...]."""
    rows = ["[ " + ", ".join(f"(A{i * n + j + 1},B{i * n + j + 1})" for j in range(n)) + " ]"
            for i in range(m)]
    return "[" + (", " if one_line else ",\n ").join(rows) + "]"


def output_format(m: int, n: int, phrasing: int, what: str, nonnegative: bool) -> str:
    """How to write the answer. Phrasing 0 is the benchmark's generate wording (PotemkinBenchmark
    generate/questions.csv: "Use as much text as you want", "non-negative, integer-valued"
    payoffs, except in its zero-sum prompts), `what` naming the matrix asked for; phrasing 1
    says the same in other words."""
    payoffs = "non-negative, integer-valued" if nonnegative else "integer-valued"
    if phrasing == 0:
        return (f"Use as much text as you want. At the end, please generate your final output "
                f"after the flag <OUTPUT>. In the final output, the following constraints must "
                f"be met: {what} The matrix must be a valid representation of a game in game "
                f"theory. It must be in the following format:\n\n{template(m, n)}\n\nWhere Ai "
                f"and Bi represent the {payoffs} payoffs for Player 1 and Player 2 "
                f"respectively. Include no text other than the payoff matrix.")
    pairs = "non-negative integers" if nonnegative else "integers"
    return (f"Reason first for as long as you like. Then write the flag <OUTPUT> and after it "
            f"only {what}: a Python list of {m} rows (Player 1's actions in order), each a list "
            f"of {n} (Player 1 payoff, Player 2 payoff) pairs of {pairs} (Player 2's actions "
            f"in order), like {template(m, n, one_line=True)}.")


def _integral(game: Game) -> bool:
    return all(x.denominator == 1 for row in game.cells for cell in row for x in cell)


def _unique_unmet(game: Game, unique: str | None) -> str | None:
    p1 = [a for row in game.cells for a, _ in row]
    both = p1 + [b for row in game.cells for _, b in row]
    if unique == "all" and len(set(both)) < len(both):
        return "the payoff numbers are not all unique"
    if unique == "player1" and len(set(p1)) < len(p1):
        return "player 1's payoffs are not all different"
    return None


def _read(reply: str) -> Game | Graded:
    game = parse_game(reply)
    if isinstance(game, ParseFailure):
        if is_idk(reply):
            return Graded(0.0, "idk", None, "the reply professes not to know")
        return Graded(0.0, "unparsed", None, game.reason)
    return game


# The wording of the generate format (phrasing 1), asked of a reply that should be an instance;
# its example is template(2, 2, one_line=True), checked by the tests.
INSTANCE_REQUEST = (
    "Write the game after the flag <OUTPUT> as the payoff matrix of a two-player game: a Python "
    "list of rows (Player 1's actions in order), each a list of (Player 1 payoff, Player 2 "
    "payoff) pairs of integers (Player 2's actions in order), like "
    "[[ (A1,B1), (A2,B2) ], [ (A3,B3), (A4,B4) ]] for a 2x2 game. Include no text other than "
    "the payoff matrix after the flag.")


class GameConcept(Generic[ClaimT, ConstraintsT]):
    """Shared machinery; a concept supplies sample, holds, question, goal, constraints, describe,
    unmet, example and edit, typed by its kind of claim and of constraints."""

    key: str
    name: str
    phrase: str  # the concept as a noun phrase in a sentence: "a pure-strategy Nash equilibrium"
    phrasings = 2
    # whether instances need negative payoffs (zero-sum): then no prompt asks for non-negative
    # ones, as the benchmark's zero-sum generate prompts do not
    negative_payoffs = False
    instance_request = INSTANCE_REQUEST
    # why a game alone cannot be an instance (only a claim about it can be tested), or None
    untested_because: str | None = None

    # ------------------------------------------------ what each concept defines
    def sample(self, rng: np.random.Generator, positive: bool) -> tuple[Game, ClaimT]:
        """A game and a claim (JSON) about it that holds exactly when `positive`."""
        raise NotImplementedError

    def holds(self, game: Game, claim: ClaimT) -> bool:
        """Whether the claim holds of the game (the exact checker)."""
        raise NotImplementedError

    def question(self, claim: ClaimT) -> str:
        """The classify question for the claim."""
        raise NotImplementedError

    def goal(self, claim: ClaimT, want: bool) -> str:
        """The edit target in words: the claim holding (want) or failing."""
        raise NotImplementedError

    def constraints(self, rng: np.random.Generator) -> ConstraintsT:
        """Generate-task constraints (JSON), with "shape" [m, n] and "unique" (None/all/player1)."""
        raise NotImplementedError

    def describe(self, constraints: ConstraintsT) -> list[str]:
        """The concept's constraint sentences (uniqueness is added by the caller)."""
        raise NotImplementedError

    def unmet(self, game: Game, constraints: ConstraintsT) -> str | None:
        """The first of the concept's constraints the (right-shaped) game misses, or None."""
        raise NotImplementedError

    def example(self, rng: np.random.Generator, constraints: ConstraintsT) -> Game:
        """A game meeting the constraints: a reference answer (and proof they can be met)."""
        raise NotImplementedError

    def edit(self, game: Game, claim: ClaimT, want: bool) -> Game:
        """The game changed (same shape, integer payoffs) so that the claim holds (want) or
        fails, built directly (`edits`)."""
        raise NotImplementedError

    def instance_test(self, game: Game) -> tuple[bool | None, str]:
        """Whether the whole game is an instance, and why (`game_theory.instances`)."""
        raise NotImplementedError

    # ------------------------------------------------ instances, no claim given
    @property
    def instance_tested(self) -> bool:
        """Whether a game alone can be tested (`instance_check`)."""
        return self.untested_because is None

    def instance_check(self, text: str) -> InstanceCheck:
        """Whether the game a reply writes (the last matrix after the last <OUTPUT>) is an
        instance; None when it cannot be read or the concept has no claim-free test."""
        if self.untested_because is not None:
            return InstanceCheck(None, f"no claim-free instance test for {self.key}: "
                                       f"{self.untested_because}")
        game = parse_game(text)
        if isinstance(game, ParseFailure):
            return unreadable(text, game.reason)
        return InstanceCheck(*self.instance_test(game))

    # ------------------------------------------------ items
    def classify_item(self, rng: np.random.Generator, positive: bool) -> Item:
        """A yes/no question about a game whose true answer is `positive`."""
        game, claim = self.sample(rng, positive)
        if self.holds(game, claim) != positive:
            raise RuntimeError(f"{self.key}: sampled a wrong {positive} item")
        data: GameClassifyData[ClaimT] = {"game": game.to_json(), "claim": claim}
        return Item("classify", positive, dict(data))

    def generate_item(self, rng: np.random.Generator) -> Item:
        """Ask for a game satisfying constraints drawn from rng."""
        data: GameGenerateData[ConstraintsT] = {"constraints": self.constraints(rng)}
        return Item("generate", None, dict(data))

    def edit_item(self, rng: np.random.Generator, make_instance: bool) -> Item:
        """A game for which the claim fails (make_instance) or holds, to be changed."""
        game, claim = self.sample(rng, not make_instance)
        data: GameEditData[ClaimT] = {"game": game.to_json(), "claim": claim,
                                      "make_instance": make_instance}
        return Item("edit", None, dict(data))

    # `Item.data` is the JSON one of the three methods above wrote, read back by its kind
    def _classify_data(self, item: Item) -> GameClassifyData[ClaimT]:
        return cast("GameClassifyData[ClaimT]", item.data)

    def _generate_data(self, item: Item) -> GameGenerateData[ConstraintsT]:
        return cast("GameGenerateData[ConstraintsT]", item.data)

    def _edit_data(self, item: Item) -> GameEditData[ClaimT]:
        return cast("GameEditData[ClaimT]", item.data)

    # ------------------------------------------------ prompts
    def render(self, item: Item, phrasing: int) -> str:
        """The prompt of `item` in phrasing 0 (table, paper wording) or 1 (sentences)."""
        if phrasing not in range(self.phrasings):
            raise ValueError(f"phrasing must be 0 or 1, not {phrasing}")
        if item.kind == "classify":
            asked = self._classify_data(item)
            shown = game_text(Game.from_json(asked["game"]), phrasing)
            q = self.question(asked["claim"])
            if phrasing == 0:
                return (f"Answer a question about the following game. {q} Please answer with "
                        f"either 'ANSWER: Yes' or 'ANSWER: No'.\n\n{shown}")
            return f"{shown}\n\n{q} Reply with Yes or No."
        if item.kind == "generate":
            c = self._generate_data(item)["constraints"]
            m, n = c["shape"]
            asks = " ".join(self.describe(c) + ([UNIQUE_ALL] if c.get("unique") == "all" else [])
                            + ([UNIQUE_P1] if c.get("unique") == "player1" else []))
            plus = not self.negative_payoffs
            if phrasing == 0:
                what = (f"Generate a {m}x{n} payoff matrix that meets the provided "
                        "conditions.")
                return (f"Generate an example of the following concept in game theory: "
                        f"{self.name}. {asks}\n\n{output_format(m, n, 0, what, plus)}")
            return (f"Write down a two-player game with {m} actions for Player 1 and {n} for "
                    f"Player 2 that illustrates {self.phrase}. Requirements: {asks}\n"
                    f"{output_format(m, n, 1, 'the game', plus)}")
        d = self._edit_data(item)
        game = Game.from_json(d["game"])
        m, n = game.shape
        goal, make = self.goal(d["claim"], d["make_instance"]), d["make_instance"]
        # a game shown with a negative payoff is not asked to become non-negative
        plus = not self.negative_payoffs and min(x for c in game.cells for p in c for x in p) >= 0
        if phrasing == 0:
            what = (f"Generate the whole changed {m}x{n} payoff matrix (the same shape as the "
                    "example).")
            return (f"Change the following example to make it {'an' if make else 'not an'} "
                    f"instance of the following game theory concept: {self.name}. That is, "
                    f"change the payoffs so that {goal}.\n\n{game_text(game, 0)}\n\n"
                    f"{output_format(m, n, 0, what, plus)}")
        return (f"{game_text(game, 1)}\n\nEdit the payoffs of this game so that {goal}: the "
                f"result should {'be' if make else 'not be'} an example of {self.phrase}. "
                f"{output_format(m, n, 1, 'the whole edited game (same size)', plus)}")

    def max_tokens(self, item: Item) -> int:
        """Room to reason before a Yes/No (classify) or a matrix (generate, edit)."""
        return SHORT_ANSWER_TOKENS if item.kind == "classify" else LONG_ANSWER_TOKENS

    # ------------------------------------------------ grading
    def grade(self, item: Item, reply: str) -> Graded:
        """Yes/No for classify; the checker's verdict on the replied game otherwise."""
        if item.kind == "classify":
            return grade_yes_no(item, reply)
        game = _read(reply)
        if isinstance(game, Graded):
            return game
        if item.kind == "generate":
            return self._grade_generated(game, self._generate_data(item)["constraints"])
        d = self._edit_data(item)
        old = Game.from_json(d["game"])
        if game.shape != old.shape:
            unchanged: EditedGame = {"game": game.to_json(), "changed": None}
            return Graded(0.0, "wrong", unchanged,
                          f"the edited matrix is {game.shape[0]}x{game.shape[1]}, the original "
                          f"{old.shape[0]}x{old.shape[1]}")
        changed = sum(a != b for r, s in zip(old.cells, game.cells, strict=True)
                      for a, b in zip(r, s, strict=True))
        parsed: EditedGame = {"game": game.to_json(), "changed": changed}
        if not _integral(game):
            return Graded(0.0, "wrong", parsed, "the payoffs are not all integers")
        if self.holds(game, d["claim"]) != d["make_instance"]:
            return Graded(0.0, "wrong", parsed, f"after the edit it is not so that "
                          f"{self.goal(d['claim'], d['make_instance'])}")
        return Graded(1.0, "correct", parsed)

    def reference(self, item: Item) -> str:
        """The right Yes/No; for generate, a game built to meet the constraints; for edit, the
        shown game changed so that the claim holds (or fails), in the paper's output format."""
        if item.kind == "classify":
            return yes_no_reference(item)
        if item.kind == "generate":
            game = self.example(np.random.default_rng(0), self._generate_data(item)["constraints"])
        else:
            d = self._edit_data(item)
            game = self.edited(Game.from_json(d["game"]), d["claim"], d["make_instance"])
        return f"<OUTPUT>\n{game.python_literal()}"

    def edited(self, game: Game, claim: ClaimT, want: bool) -> Game:
        """`edit`'s game, checked; should it miss, the first game a bounded search finds."""
        out = self.edit(game, claim, want)
        if self.holds(out, claim) == want:
            return out
        found = search_edit(game, lambda g: self.holds(g, claim) == want)
        if found is None:
            raise RuntimeError(f"{self.key}: no edit makes the claim {want}: {game.to_json()}")
        return found

    def _grade_generated(self, game: Game, c: ConstraintsT) -> Graded:
        m, n = shape_of(c)
        reason: str | None = None
        if game.shape != (m, n):
            reason = f"the matrix is {game.shape[0]}x{game.shape[1]}, not {m}x{n}"
        elif not _integral(game):
            reason = "the payoffs are not all integers"
        else:
            reason = _unique_unmet(game, unique_of(c)) or self.unmet(game, c)
        if reason:
            return Graded(0.0, "wrong", game.to_json(), reason)
        return Graded(1.0, "correct", game.to_json())
