"""The oracle's answer to a question, before any style: what is right, and how a reply states it.

An `Answer` is the content (a Yes/No, a payoff matrix, a poem, a line, a word, a blank's text, a
number, a choice) with what the styles need around it: a lead-in line, a title, the working of a
number. `right_answer` covers every scope `verstehen scopes` lists: concept scopes through the
concept's `reference`, `arithmetic` and `mcq:` through the scope's own `reference`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from verstehen.domains.base import Item
from verstehen.domains.game_theory.game import Game
from verstehen.domains.game_theory.parse import parse_game
from verstehen.domains.game_theory.tasks.base import GameConcept
from verstehen.domains.poetry.tasks_forms import Anapest, Haiku, IambicPentameter
from verstehen.domains.poetry.tasks_pairs import PairConcept, PerfectRhyme
from verstehen.methods.certification.scopes.arithmetic import ArithmeticScope, number_text
from verstehen.methods.certification.scopes.concepts import ConceptScope
from verstehen.scopes.base import Question, Scope
from verstehen.scopes.mcq import MCQScope

Kind = Literal["yes_no", "matrix", "poem", "line", "word", "fill", "number", "choice"]
SYMBOLS = {"+": "+", "-": "−", "*": "×", "/": "÷"}


@dataclass(frozen=True)
class Answer:
    """One answer's content: `text` as the plainest reply gives it ("Yes", a matrix literal, the
    poem, "1776", "B"), the `game` of a matrix, a `lead` line that introduces it ("Here is a
    haiku using the word "sun":"), a `title` for a poem or table, and for a number the
    `working` that ends in it ("37 × 48 = 37 × 50 − 74 = 1776")."""

    kind: Kind
    text: str
    lead: str
    title: str = ""
    game: Game | None = None
    working: str = ""


def bare(answer: Answer) -> str:
    """The answer as the prompts ask for it: "ANSWER: Yes", "<OUTPUT>" and the matrix, else the
    text itself."""
    if answer.kind == "yes_no":
        return f"ANSWER: {answer.text}"
    if answer.kind == "matrix":
        return f"<OUTPUT>\n{answer.text}"
    return answer.text


def right_answer(scope: Scope, question: Question) -> Answer:
    """The answer the scope grades 1 (ValueError for a scope without a reference)."""
    if isinstance(scope, ConceptScope):
        item = scope.item_of(question)
        return concept_answer(scope, item, scope.tasks.reference(item))
    if isinstance(scope, ArithmeticScope):
        return number_answer(question, scope.exact_answer(question))
    if isinstance(scope, MCQScope):
        return choice_answer(scope.reference(question))
    raise ValueError(f"no reference answers for scope {getattr(scope, 'name', scope)!r}")


def concept_answer(scope: ConceptScope, item: Item, reply: str) -> Answer:
    """A concept's reply (its `reference`, or a near miss written the same way) as an Answer."""
    tasks = scope.tasks
    if item.kind == "classify":
        said = reply.removeprefix("ANSWER: ").strip()
        return Answer("yes_no", said, "Here is my answer:")
    if isinstance(tasks, GameConcept):
        game = parse_game(reply)
        if not isinstance(game, Game):
            raise ValueError(f"not a matrix reply: {reply!r}")
        return matrix_answer(game)
    if item.kind == "edit":
        return Answer("fill", reply, "Here is the text for the blank:")
    kind: Kind = "word" if isinstance(tasks, PairConcept) else "poem" if "\n" in reply else "line"
    return Answer(kind, reply, *_poem_lead(tasks, item))


def matrix_answer(game: Game) -> Answer:
    """A payoff matrix."""
    return Answer("matrix", game.python_literal(), "Here is the payoff matrix:", "Payoff matrix",
                  game=game)


def _poem_lead(tasks: object, item: Item) -> tuple[str, str]:
    data = item.data
    word = data.get("word", "")
    if isinstance(tasks, PairConcept):
        how = "rhymes perfectly with" if isinstance(tasks, PerfectRhyme) else "slant-rhymes with"
        return f'Here is a word that {how} "{word}":', ""
    if isinstance(tasks, Anapest):
        return f"Here is an anapestic phrase of {data['feet']} feet:", "Anapests"
    if isinstance(tasks, IambicPentameter):
        return f'Here is a line of iambic pentameter ending in "{word}":', "Pentameter"
    form = "haiku" if isinstance(tasks, Haiku) else "Shakespearean sonnet"
    return f'Here is a {form} using the word "{word}":', f"The {word.capitalize()}"


def number_answer(question: Question, value: Fraction) -> Answer:
    """A number, with a calculation that ends in it (operands as the arithmetic question
    prints them)."""
    data = question.data
    # the operands as printed: a float's shortest repr is its decimal ("950463.7")
    a, b, op = Fraction(repr(data["a"])), Fraction(repr(data["b"])), data["op"]
    text = number_text(value)
    return Answer("number", text, "Here is the result:", working=_working(a, b, op, text))


def _working(a: Fraction, b: Fraction, op: str, result: str) -> str:
    """"a op b = (a step) = x ∓ y = result": b split at a round number r above it."""
    n = number_text
    sym = SYMBOLS[op]
    start = f"{n(a)} {sym} {n(b)}"
    r = Fraction(10 ** len(str(int(b))))
    if op == "*":
        return (f"{start} = {n(a)} × {n(r)} − {n(a)} × {n(r - b)} = {n(a * r)} − "
                f"{n(a * (r - b))} = {result}")
    if op == "+":
        return f"{start} = {n(a)} + {n(r)} − {n(r - b)} = {n(a + r)} − {n(r - b)} = {result}"
    if op == "-":
        return f"{start} = {n(a)} − {n(r)} + {n(r - b)} = {n(a - r)} + {n(r - b)} = {result}"
    return f"{start} = {result}"


def choice_answer(label: str) -> Answer:
    """A multiple-choice label."""
    return Answer("choice", label, "Here is my answer:")
