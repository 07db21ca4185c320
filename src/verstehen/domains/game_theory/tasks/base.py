"""What every game-theory concept's use-task items share: prompts, formats and grading.

Items (all data JSON; games as `Game.to_json()`):
  classify  {"game", "claim"}; answer = whether the claim about the game holds. The prompt shows
            the game and asks one yes/no question built from the claim.
  generate  {"constraints"}; the reply must end with a game after the flag <OUTPUT> (the paper's
            generate format, benchmark prompts in PotemkinBenchmark generate/questions.csv) that
            has the asked shape, integer payoffs, non-negative ones (unless the concept is
            zero-sum), all payoffs unique when asked, and the concept's constraints (Table 5 of
            the paper).
  edit      {"game", "claim", "make_instance"}; the game fails (make_instance) or satisfies the
            claim; the reply must give the whole changed matrix, same shape, integer payoffs,
            non-negative ones (unless the concept is zero-sum or the shown game has a negative
            payoff), for which the claim holds (make_instance) or fails. Any number of cells may
            change; how many did is recorded in the grade's `parsed` ({"game", "changed"}).
Every condition a prompt states is graded, and nothing else: the wording and the grade read the
same methods (`asks_nonnegative`, `requirements`, `describe` with `unmet`), and the reference
answers (`example`, `edited`) are checked against the same conditions. Scores are 1 or 0 (no
partial credit). A reply with no readable matrix is "unparsed" (or "idk" when it professes not
to know) with the parser's reason; a readable one that misses a condition is "wrong" with the
first unmet one, in the order listed above, as the reason. How the matrix is written (the
template, "no text other than the payoff matrix") is left to the parser: any format
`parse_game` reads after <OUTPUT> counts, text beside it included.

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
    Unique,
    shape_of,
    unique_of,
)
from verstehen.domains.game_theory.tasks.wording import (
    INSTANCE_REQUEST,
    UNIQUE_ASKS,
    game_text,
    label,
    output_format,
)
from verstehen.grading import Graded
from verstehen.parse import is_idk

EXAMPLE_TRIES = 100


def least(game: Game) -> Fraction:
    """The smallest payoff of either player."""
    return min(x for row in game.cells for cell in row for x in cell)


def lifted(game: Game) -> Game:
    """The game with every payoff raised by the same amount so that the least is 0, when it is
    below 0: no comparison changes, and distinct payoffs stay distinct."""
    low = least(game)
    if low >= 0:
        return game
    return Game(tuple(tuple((a - low, b - low) for a, b in row) for row in game.cells))


def _payoffs_unmet(game: Game, nonnegative: bool) -> str | None:
    if any(x.denominator != 1 for row in game.cells for cell in row for x in cell):
        return "the payoffs are not all integers"
    if nonnegative:
        for i, row in enumerate(game.cells):
            for j, cell in enumerate(row):
                for player, x in enumerate(cell, 1):
                    if x < 0:
                        return (f"player {player}'s payoff {fraction_text(x)} at ({label(1, i)}, "
                                f"{label(2, j)}) is negative; the prompt asks for non-negative "
                                f"payoffs")
    return None


def _unique_unmet(game: Game, unique: Unique) -> str | None:
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
        if game.cut_off:
            return Graded(0.0, "truncated", None, game.reason)
        if is_idk(reply):
            return Graded(0.0, "idk", None, "the reply professes not to know")
        return Graded(0.0, "unparsed", None, game.reason)
    return game


class GameConcept(Generic[ClaimT, ConstraintsT]):
    """Shared machinery; a concept supplies sample, holds, question, goal, constraints, describe,
    unmet, build_example and edit, typed by its kind of claim and of constraints."""

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

    def build_example(self, rng: np.random.Generator, constraints: ConstraintsT) -> Game:
        """A game built to meet the constraints (`example` checks it against the prompt)."""
        raise NotImplementedError

    def edit(self, game: Game, claim: ClaimT, want: bool) -> Game:
        """The game changed (same shape, integer payoffs) so that the claim holds (want) or
        fails, built directly (`edits`)."""
        raise NotImplementedError

    def instance_test(self, game: Game) -> tuple[bool | None, str]:
        """Whether the whole game is an instance, and why (`game_theory.instances`)."""
        raise NotImplementedError

    # ------------------------------------------------ what the prompts ask of every matrix
    def asks_nonnegative(self, shown: Game | None = None) -> bool:
        """Whether a generate prompt (`shown` None) or an edit prompt showing `shown` asks for
        non-negative payoffs: not for zero-sum games, nor to edit a game with a negative one."""
        return not self.negative_payoffs and (shown is None or least(shown) >= 0)

    def requirements(self, constraints: ConstraintsT) -> list[str]:
        """The sentences a generate prompt states its constraints in: the concept's, then any
        uniqueness demand."""
        unique = unique_of(constraints)
        return self.describe(constraints) + ([UNIQUE_ASKS[unique]] if unique else [])

    def example(self, rng: np.random.Generator, constraints: ConstraintsT) -> Game:
        """A game meeting every condition the generate prompt states: a reference answer, and
        proof they can be met (`build_example` drawn again until one does)."""
        for _ in range(EXAMPLE_TRIES):
            game = self.build_example(rng, constraints)
            if self._generated_unmet(game, constraints) is None:
                return game
        raise RuntimeError(f"{self.key}: no example meets {constraints}")

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
            m, n = shape_of(c)
            asks = " ".join(self.requirements(c))
            plus = self.asks_nonnegative()
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
        plus = self.asks_nonnegative(game)
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
        changed = (sum(a != b for r, s in zip(old.cells, game.cells, strict=True)
                       for a, b in zip(r, s, strict=True)) if game.shape == old.shape else None)
        parsed: EditedGame = {"game": game.to_json(), "changed": changed}
        reason = self._edited_unmet(old, game, d["claim"], d["make_instance"])
        if reason:
            return Graded(0.0, "wrong", parsed, reason)
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
        """`edit`'s game, checked against every condition the edit prompt states; should it
        miss, the first game a bounded search finds that meets them."""
        out = self.edit(game, claim, want)
        if self._edited_unmet(game, out, claim, want) is None:
            return out
        found = search_edit(game, lambda g: self._edited_unmet(game, g, claim, want) is None)
        if found is None:
            raise RuntimeError(f"{self.key}: no edit makes the claim {want}: {game.to_json()}")
        return found

    def _edited_unmet(self, old: Game, new: Game, claim: ClaimT, want: bool) -> str | None:
        """The first condition of the edit prompt showing `old` that the reply `new` misses:
        the same shape, integer (and, when asked, non-negative) payoffs, the claim as wanted."""
        if new.shape != old.shape:
            return (f"the edited matrix is {new.shape[0]}x{new.shape[1]}, the original "
                    f"{old.shape[0]}x{old.shape[1]}")
        reason = _payoffs_unmet(new, self.asks_nonnegative(old))
        if reason is None and self.holds(new, claim) != want:
            reason = f"after the edit it is not so that {self.goal(claim, want)}"
        return reason

    def _generated_unmet(self, game: Game, c: ConstraintsT) -> str | None:
        """The first condition of the generate prompt that `game` misses: the shape, integer
        (and, when asked, non-negative) payoffs, uniqueness when asked, the concept's own."""
        m, n = shape_of(c)
        if game.shape != (m, n):
            return f"the matrix is {game.shape[0]}x{game.shape[1]}, not {m}x{n}"
        return (_payoffs_unmet(game, self.asks_nonnegative()) or _unique_unmet(game, unique_of(c))
                or self.unmet(game, c))

    def _grade_generated(self, game: Game, c: ConstraintsT) -> Graded:
        reason = self._generated_unmet(game, c)
        if reason:
            return Graded(0.0, "wrong", game.to_json(), reason)
        return Graded(1.0, "correct", game.to_json())
