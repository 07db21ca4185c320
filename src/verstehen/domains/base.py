"""What an exactly-graded concept offers: items for the three use tasks, rendering and grading.

An `Item` is content only (JSON data); `render` turns it into a prompt in one of the concept's
phrasings, so a certification rephrase check can ask the same item again in other words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from verstehen.grading import Graded
from verstehen.parse import is_idk, parse_yes_no

TaskKind = Literal["classify", "generate", "edit"]  # the use tasks of a concept (Potemkin paper)
TASK_KINDS: tuple[TaskKind, ...] = ("classify", "generate", "edit")
# Answer budgets in tokens: room for a reply that reasons before it answers (a reasoning
# model's hidden tokens come on top: --reasoning-budget); a reply the cap cuts off and that
# fails for it is graded "truncated", never silently wrong.
SHORT_ANSWER_TOKENS = 1024  # yes/no, a word, a blank's fill
LONG_ANSWER_TOKENS = 2048  # a payoff matrix, a poem, a line written to constraints


@dataclass(frozen=True)
class Item:
    """One use-task question about a concept.

    `answer` is the expected classification (True/False) for classify items and None for
    generate and edit items, whose replies the checker grades. `data` holds JSON values only:
    everything `render` and `grade` need (a game's payoffs as fraction strings, constraints,
    the masked poem, ...), in the layout of the concept that made it, which reads it back
    through its own TypedDicts (`game_theory.tasks.data`, `poetry.task_base`).
    """

    kind: TaskKind
    answer: bool | None
    data: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class ConceptTasks(Protocol):
    """The classify / generate / edit items of one exactly-graded concept."""

    key: str        # catalog key, e.g. "game-theory/strict-dominance"
    name: str       # the concept's name as prompts say it, e.g. "strict dominance"
    phrasings: int  # render() accepts 0 <= phrasing < phrasings (at least 2)

    def classify_item(self, rng: np.random.Generator, positive: bool) -> Item:
        """A yes/no item whose true answer is `positive`."""
        ...

    def generate_item(self, rng: np.random.Generator) -> Item:
        """Ask for a new instance under constraints drawn from rng."""
        ...

    def edit_item(self, rng: np.random.Generator, make_instance: bool) -> Item:
        """Ask to change a given example so it becomes an instance (or stops being one)."""
        ...

    def render(self, item: Item, phrasing: int) -> str:
        """The prompt text of `item` in one phrasing; phrasings never change the content."""
        ...

    def max_tokens(self, item: Item) -> int:
        """Enough answer tokens for the reply the prompt asks for."""
        ...

    def grade(self, item: Item, reply: str) -> Graded:
        """Score a reply: 1 right, 0 ridiculous; unreadable replies are "unparsed" with a reason."""
        ...

    def reference(self, item: Item) -> str:
        """A reply the checker grades right (score 1), for every item the concept makes: the
        right Yes/No, an instance built under a generate item's constraints, an edit that makes
        (or breaks) the instance.

        For tests and benchmarks only: it is never shown to a model.
        """
        ...


@dataclass(frozen=True)
class InstanceCheck:
    """Whether a text is an instance (None: unreadable or untestable) and why."""

    is_instance: bool | None
    reason: str | None


@runtime_checkable
class InstanceTests(Protocol):
    """A concept that can tell its instances from a text alone, no claim given (is this game
    zero-sum? is this poem a haiku?): what potemkin's incoherence test asks the domain."""

    instance_request: str  # what a prompt asking for an instance appends, so the reply reads
    instance_tested: bool  # False: no claim-free test exists, and instance_check says why

    def instance_check(self, text: str) -> InstanceCheck:
        """Whether a model's reply `text` is an instance, or None with the reason."""
        ...


def unreadable(reply: str, reason: str) -> InstanceCheck:
    """No instance could be read from a reply: why, or that the reply professes not to know."""
    return InstanceCheck(None, "the reply professes not to know" if is_idk(reply) else reason)


def yes_no_reference(item: Item) -> str:
    """The right reply to a classify item, in the paper's format."""
    return "ANSWER: " + ("Yes" if item.answer else "No")


def grade_yes_no(item: Item, reply: str) -> Graded:
    """Grade a classify reply against `item.answer`: right 1, wrong 0, unreadable 0 "unparsed"."""
    said = parse_yes_no(reply)
    if said is None:
        if is_idk(reply):
            return Graded(0.0, "idk", None, "the reply professes not to know")
        return Graded(0.0, "unparsed", None, "no Yes/No answer found in the reply")
    if said == item.answer:
        return Graded(1.0, "correct", said)
    return Graded(0.0, "wrong", said, f"answered {'Yes' if said else 'No'}")
